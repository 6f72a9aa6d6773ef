/**
 * Encoded content inside message text. The front end puts an attached file into the message itself (an
 * image becomes a `data:` URL of a few hundred KB) and sends the whole chat on every turn, so one big
 * attachment rides along in every later request. This module finds such runs; message-attachments.ts
 * decides what each is (an image of the current message, a note in the history, a 400).
 *
 * An attachment is a run of at least MIN_ATTACHMENT_CHARS base64 characters (with its `data:<type>;base64,`
 * prefix when it has one). Found by one linear scan, never a backtracking pattern: a body of megabytes
 * must cost one pass.
 */

/** Shorter runs are ordinary text (hashes, ids, keys a student pastes are far shorter). */
export const MIN_ATTACHMENT_CHARS = 1_024;

export interface Attachment {
  /** Where it starts (the `data:` prefix when there is one) and ends in the text. */
  start: number;
  end: number;
  /** The media type of a data URL, else null. */
  mediaType: string | null;
  /** Size of the decoded content in bytes (base64: 3 bytes per 4 characters). */
  bytes: number;
}

/** Base64 (standard and URL-safe) characters and padding. */
function isBase64Char(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || // A-Z
    (code >= 97 && code <= 122) || // a-z
    (code >= 48 && code <= 57) || // 0-9
    code === 43 || // +
    code === 47 || // /
    code === 61 || // =
    code === 45 || // -
    code === 95 // _
  );
}

/** `data:image/png;base64,` ending right before `at`: its start and media type, or null. */
function dataUrlPrefix(text: string, at: number): { start: number; mediaType: string | null } | null {
  if (!text.endsWith(';base64,', at) && !text.endsWith(',', at)) return null;
  // The prefix is short: look back at most 200 characters for `data:`.
  const from = Math.max(0, at - 200);
  const start = text.lastIndexOf('data:', at);
  if (start < from || start < 0) return null;
  const header = text.slice(start + 5, at - 1);
  if (/[\s"'<>]/.test(header)) return null;
  const mediaType = header.split(';')[0] || null;
  return { start, mediaType };
}

/** Kinds of character seen in a run: encoded content mixes all three; a run of one letter is not a file. */
const UPPER = 1;
const LOWER = 2;
const DIGIT = 4;
const MIXED = UPPER | LOWER | DIGIT;

function kindOf(code: number): number {
  if (code >= 65 && code <= 90) return UPPER;
  if (code >= 97 && code <= 122) return LOWER;
  if (code >= 48 && code <= 57) return DIGIT;
  return 0;
}

/**
 * The attachments in `text`, in order: a data URL's base64 content of any make-up, or a bare base64 run
 * mixing upper case, lower case and digits (so a long word or a row of one character stays text).
 */
export function findAttachments(text: string): Attachment[] {
  const found: Attachment[] = [];
  let runStart = -1;
  let kinds = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : -1;
    if (code >= 0 && isBase64Char(code)) {
      if (runStart < 0) {
        runStart = i;
        kinds = 0;
      }
      kinds |= kindOf(code);
      continue;
    }
    if (runStart >= 0 && i - runStart >= MIN_ATTACHMENT_CHARS) {
      const prefix = dataUrlPrefix(text, runStart);
      if (!prefix && kinds !== MIXED) {
        runStart = -1;
        continue;
      }
      found.push({
        start: prefix?.start ?? runStart,
        end: i,
        mediaType: prefix?.mediaType ?? null,
        bytes: Math.floor(((i - runStart) * 3) / 4),
      });
    }
    runStart = -1;
  }
  return found;
}

/** `300 KB`, `1.2 MB`: what a note says of an attachment's size. */
export function describeSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}
