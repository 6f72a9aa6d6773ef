/**
 * The attachments of a chat message (CONTRACT.md "Attachments"). The front end writes them into the
 * message text: an image as `![name](data:image/<type>;base64,…)`, a text or code file as
 * `**Attached:** name` followed by a fenced block; `/v1` image parts are written the same way
 * (openai-request.ts). Here they are taken out of the words, so the question's 8,000-character limit
 * applies to what the student typed, and checked against their own limits (ATTACHMENT_LIMITS).
 *
 * The current message keeps its attachments (images to be read for a model that sees, files as
 * untrusted data); an earlier message keeps only a short note of each (`noteAttachments`), so an old
 * photo costs no tokens and never breaks the chat. One linear scan each; no backtracking pattern runs over
 * a body of megabytes.
 */
import { BadRequestError } from '../http/errors.js';
import type { ImageInput, ReadImage } from '../media/images.js';
import { describeSize, findAttachments, MIN_ATTACHMENT_CHARS, type Attachment } from './attachments.js';

/** The documented limits (README "Attachments"): the front end's own caps, a little over. */
export const ATTACHMENT_LIMITS = {
  /** Attachments in one message. */
  count: 8,
  /** Bytes of one image (the front end sends images of up to 512 KB as they are). */
  imageBytes: 512 * 1024,
  /** Bytes of one text file (the front end sends files of up to 400 KB). */
  fileBytes: 400 * 1024,
  /** Bytes of all attachments of one message. */
  totalBytes: 2 * 1024 * 1024,
  /** Characters of a file's text that reach the model (the rest is cut, with a note). */
  fileCharsToModel: 12_000,
} as const;

/** A text or code file attached to the message. */
export interface AttachedFile {
  name: string;
  text: string;
  /** Its size in UTF-8 bytes. */
  bytes: number;
}

/** What the current message carries besides its words. */
export interface MessageAttachments {
  images: ImageInput[];
  files: AttachedFile[];
  /** Image links (`![x](https://…)`): never fetched, so never read. */
  imageLinks: string[];
}

/** An image as the model sees it, with what it costs the model in input tokens (model/vision.ts). */
export interface SeenImage extends ReadImage {
  tokens: number;
}

/** An attachment the model does not get: an image for a model that does not see, or an image link. */
export interface UnreadAttachment {
  name: string;
  why: 'model' | 'link';
}

/** A turn's attachments once read (pipeline/attachments.ts). */
export interface SeenAttachments {
  images: SeenImage[];
  files: AttachedFile[];
  unread: UnreadAttachment[];
}

export const NO_ATTACHMENTS: MessageAttachments = Object.freeze({ images: [], files: [], imageLinks: [] }) as MessageAttachments;

/** A name as the student gave it, safe to repeat: one line, no brackets or quotes, at most 80 characters. */
export function cleanName(name: string, fallback: string): string {
  const clean = name.replace(/[\u0000-\u001f\u007f[\]()"`<>*_\\]/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80).trim();
  return clean || fallback;
}

/** `**Attached:** name` then a fenced block: where the block starts, the name and where it ends. */
interface FileBlock {
  start: number;
  end: number;
  name: string;
  text: string;
}

const FILE_HEADER = /^\*\*Attached:?\*\*:?[ \t]*(.*)$/gm;
const FENCE_OPEN = /^[ \t]{0,3}(`{3,}|~{3,})[^\n]*$/;

/** The file blocks of `text`, in order (a header without a fence after it is words). */
function fileBlocks(text: string): FileBlock[] {
  const blocks: FileBlock[] = [];
  if (!text.includes('**Attached')) return blocks;
  for (const header of text.matchAll(FILE_HEADER)) {
    const start = header.index;
    if (blocks.length > 0 && start < blocks.at(-1)!.end) continue;
    // The fence opens on the next line that is not blank.
    let at = start + header[0].length;
    while (text[at] === '\n' || text[at] === '\r') at++;
    const lineEnd = text.indexOf('\n', at) === -1 ? text.length : text.indexOf('\n', at);
    const open = FENCE_OPEN.exec(text.slice(at, lineEnd).replace(/\r$/, ''));
    if (!open) continue;
    const fence = open[1]!;
    // The block closes at a line of the same character, at least as long (CommonMark), or at the end.
    let close = text.length;
    let end = text.length;
    for (let line = lineEnd + 1; line < text.length; ) {
      const next = text.indexOf('\n', line) === -1 ? text.length : text.indexOf('\n', line);
      const l = text.slice(line, next).replace(/\r$/, '').trim();
      if (l.length >= fence.length && l[0] === fence[0] && [...l].every((ch) => ch === fence[0])) {
        close = line;
        end = next;
        break;
      }
      line = next + 1;
    }
    const body = lineEnd >= text.length ? '' : text.slice(lineEnd + 1, close).replace(/\r?\n$/, '');
    blocks.push({ start, end, name: cleanName(header[1]!, 'file'), text: body });
  }
  return blocks;
}

/** Markdown images that point at http(s) (never fetched). */
const IMAGE_LINK = /!\[([^\]\n]{0,200})\]\((https?:\/\/[^\s)]{1,2000})\)/g;

/** A 400 naming the attachment and the limit it passed. */
function overLimit(what: string, size: number, limit: number, unit: string): BadRequestError {
  return new BadRequestError(`${what} is ${describeSize(size)}; ${unit} of up to ${describeSize(limit)} are read`, 'attachment too large');
}

/**
 * Whether `text` may carry an attachment at all: a run long enough to be encoded data, a file header or
 * an image. Most messages are a short question: they skip the scan.
 */
function mayHoldAttachments(text: string): boolean {
  return text.length >= MIN_ATTACHMENT_CHARS || text.includes('**Attached') || text.includes('![');
}

/** A piece of the message that is not words. */
interface Span {
  start: number;
  end: number;
}

/** The words with the spans taken out, blank runs closed up. */
function without(text: string, spans: Span[]): string {
  if (spans.length === 0) return text.trim();
  let out = '';
  let at = 0;
  for (const s of [...spans].sort((a, b) => a.start - b.start)) {
    out += text.slice(at, s.start);
    at = Math.max(at, s.end);
  }
  return (out + text.slice(at)).replace(/\n{3,}/g, '\n\n').trim();
}

/** A Markdown image of a data URL, of any size: `![name](data:image/<type>;base64,<bytes>)`. */
const INLINE_IMAGE = /!\[([^\]\n]{0,300})\]\(data:(image\/[\w.+-]{1,100});base64,([A-Za-z0-9+/=_-]*)\)/g;

/** An image found: where its Markdown (or bare data URL) lies, and where its base64 starts. */
type FoundImage = Attachment & { name: string; spanStart: number; spanEnd: number; dataStart: number };

/** The attachments found in `text` with where each lies (images, files, links, and runs that are none of these). */
function scan(text: string): { files: FileBlock[]; images: FoundImage[]; others: Attachment[]; links: Array<Span & { url: string; name: string }> } {
  const files = fileBlocks(text);
  const inFile = (i: number) => files.some((f) => i >= f.start && i < f.end);
  const images: FoundImage[] = [];
  // Written as the front end writes an image, whatever its size (a small icon is a few hundred bytes).
  if (text.includes('](data:')) {
    for (const m of text.matchAll(INLINE_IMAGE)) {
      if (inFile(m.index)) continue;
      const end = m.index + m[0].length;
      images.push({ start: m.index, end: end - 1, mediaType: m[2]!, bytes: Math.floor((m[3]!.length * 3) / 4), name: m[1]!, spanStart: m.index, spanEnd: end, dataStart: end - 1 - m[3]!.length });
    }
  }
  const inImage = (i: number) => images.some((a) => i >= a.spanStart && i < a.spanEnd);
  const others: Attachment[] = [];
  if (text.length >= MIN_ATTACHMENT_CHARS) {
    for (const a of findAttachments(text)) {
      if (inFile(a.start) || inImage(a.start)) continue;
      // A data URL of an image outside Markdown is an image too; anything else is a run nobody reads.
      if (a.mediaType?.toLowerCase().startsWith('image/')) images.push({ ...a, name: '', spanStart: a.start, spanEnd: a.end, dataStart: text.indexOf(',', a.start) + 1 });
      else others.push(a);
    }
    images.sort((a, b) => a.spanStart - b.spanStart);
  }
  const links: Array<Span & { url: string; name: string }> = [];
  if (text.includes('![')) {
    for (const m of text.matchAll(IMAGE_LINK)) if (!inFile(m.index)) links.push({ start: m.index, end: m.index + m[0].length, url: m[2]!, name: m[1]! });
  }
  return { files, images, others, links };
}

/**
 * The current message split into its words and its attachments; a 400 when an attachment passes its
 * limit or is not one the assistant can take (a base64 run that is not an image, a data URL of another kind).
 */
export function splitMessage(text: string): { words: string; attachments: MessageAttachments } {
  if (!mayHoldAttachments(text)) return { words: text.trim(), attachments: NO_ATTACHMENTS };
  const { files, images, others, links } = scan(text);
  if (files.length + images.length + links.length === 0 && others.length === 0) return { words: text.trim(), attachments: NO_ATTACHMENTS };
  const other = others[0];
  if (other) {
    throw new BadRequestError(
      `the message carries an attachment (${other.mediaType ? `${other.mediaType}, ` : ''}${describeSize(other.bytes)}) that the assistant cannot read: attach photos and screenshots as images and text as a text file, or paste a short excerpt`,
      'unreadable attachment',
    );
  }
  const count = files.length + images.length + links.length;
  if (count > ATTACHMENT_LIMITS.count) {
    throw new BadRequestError(`the message carries ${count} attachments; at most ${ATTACHMENT_LIMITS.count} are read at once`, 'too many attachments');
  }
  let total = 0;
  const imageInputs = images.map((a, i): ImageInput => {
    const name = cleanName(a.name, `image ${i + 1}`);
    if (a.bytes > ATTACHMENT_LIMITS.imageBytes) throw overLimit(`the image "${name}"`, a.bytes, ATTACHMENT_LIMITS.imageBytes, 'images');
    const b64 = text.slice(a.dataStart, a.end);
    const bytes = Buffer.from(b64, 'base64');
    total += bytes.length;
    return { name, bytes };
  });
  const attached = files.map((f): AttachedFile => {
    const bytes = Buffer.byteLength(f.text);
    if (bytes > ATTACHMENT_LIMITS.fileBytes) throw overLimit(`the file "${f.name}"`, bytes, ATTACHMENT_LIMITS.fileBytes, 'files');
    total += bytes;
    return { name: f.name, text: f.text, bytes };
  });
  if (total > ATTACHMENT_LIMITS.totalBytes) {
    throw new BadRequestError(`the message's attachments are ${describeSize(total)} together; up to ${describeSize(ATTACHMENT_LIMITS.totalBytes)} are read`, 'attachment too large');
  }
  const spans: Span[] = [...files, ...images.map((a) => ({ start: a.spanStart, end: a.spanEnd })), ...links];
  return {
    words: without(text, spans),
    attachments: { images: imageInputs, files: attached, imageLinks: links.map((l, i) => cleanName(l.name, `linked image ${i + 1}`)) },
  };
}

/** The short note an attachment of an earlier message becomes: `[attachment left out: image "flyer.png", 220 KB]`. */
export function attachmentNote(kind: string, name: string | null, bytes: number | null): string {
  return `[attachment left out: ${kind}${name ? ` "${name}"` : ''}${bytes !== null ? `, ${describeSize(bytes)}` : ''}]`;
}

/**
 * An earlier message with each attachment replaced by its note (name, kind, size), never its bytes;
 * the same string when it has none. Also what the title route titles.
 */
export function noteAttachments(text: string): string {
  if (!mayHoldAttachments(text)) return text;
  const { files, images, others, links } = scan(text);
  const notes: Array<Span & { note: string }> = [
    ...files.map((f) => ({ start: f.start, end: f.end, note: attachmentNote('text file', f.name, Buffer.byteLength(f.text)) })),
    ...images.map((a) => ({ start: a.spanStart, end: a.spanEnd, note: attachmentNote(a.mediaType ?? 'image', a.name ? cleanName(a.name, 'image') : null, a.bytes) })),
    ...others.map((a) => ({ start: a.start, end: a.end, note: attachmentNote(a.mediaType ?? 'encoded data', null, a.bytes) })),
    ...links.map((l) => ({ start: l.start, end: l.end, note: attachmentNote('image link', cleanName(l.name, 'image'), null) })),
  ].sort((a, b) => a.start - b.start);
  if (notes.length === 0) return text;
  let out = '';
  let at = 0;
  for (const n of notes) {
    if (n.start < at) continue;
    out += text.slice(at, n.start) + n.note;
    at = n.end;
  }
  return out + text.slice(at);
}

/**
 * The words of a message without its attachments, never a 400 (the title route titles these); a message
 * of attachments alone reads as their names.
 */
export function wordsOf(text: string): string {
  if (!mayHoldAttachments(text)) return text.trim();
  const { files, images, others, links } = scan(text);
  const spans: Span[] = [...files, ...images.map((a) => ({ start: a.spanStart, end: a.spanEnd })), ...others, ...links];
  const words = without(text, spans);
  if (words) return words;
  return [...files.map((f) => f.name), ...images.map((a) => cleanName(a.name, 'image')), ...links.map((l) => cleanName(l.name, 'image'))].join(', ');
}
