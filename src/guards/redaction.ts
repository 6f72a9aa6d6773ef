/**
 * Answer redaction: the configured secret values (exact match, security/secrets.ts) plus anything
 * shaped like a credential whatever its value: API keys (`sk-…`, `sk-or-v1-…`, `sk-proj-…`) and bearer
 * tokens. Also the streaming helper `unsafeTailStart`, which says where, at the end of a buffer, text
 * must wait because a secret or a key may still be forming (the hold-back of the secure stream).
 */
import { REDACTED, redactSecretValues } from '../security/secrets.js';

// Key characters: what OpenAI/OpenRouter/Anthropic keys are made of. 16+ after `sk-` so "sk-learn" is prose.
const KEY_CHAR = 'A-Za-z0-9_\\-';
const KEY = new RegExp(`(?<![${KEY_CHAR}])sk-[${KEY_CHAR}]{16,}`, 'g');
// Token characters of RFC 6750 (b64token). A token needs a digit and 12+ characters, so that
// "bearer instruments" or "the bearer of bad news" stay prose.
const TOKEN_CHAR = 'A-Za-z0-9._~+/=\\-';
const BEARER = new RegExp(`(?<![A-Za-z])(bearer)(\\s+)(?=[${TOKEN_CHAR}]*\\d)[${TOKEN_CHAR}]{12,}`, 'gi');

// Tails that could still become a key or a bearer token when more text arrives.
const PARTIAL_KEY = new RegExp(`(?<![${KEY_CHAR}])s(?:k(?:-[${KEY_CHAR}]*)?)?$`);
const PARTIAL_BEARER = new RegExp(`(?<![A-Za-z])b(?:e(?:a(?:r(?:e(?:r(?:\\s+[${TOKEN_CHAR}]*)?)?)?)?)?)?$`, 'i');

/** A redacted text and whether anything was replaced. */
export interface Redaction {
  text: string;
  /** True when anything was replaced. */
  redacted: boolean;
}

/** Replaces secret values, key-shaped strings and bearer tokens with `[redacted]`. */
export function redactAnswer(text: string, secrets: readonly string[]): Redaction {
  let out = redactSecretValues(text, secrets);
  out = out.replace(KEY, REDACTED).replace(BEARER, (_m, word: string, space: string) => `${word}${space}${REDACTED}`);
  return { text: out, redacted: out !== text };
}

/** Spans [start, end) of every complete secret, key or bearer token in `text`. */
function sensitiveSpans(text: string, secrets: readonly string[]): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const s of secrets) {
    for (let i = text.indexOf(s); i !== -1; i = text.indexOf(s, i + 1)) spans.push([i, i + s.length]);
  }
  for (const re of [KEY, BEARER]) {
    for (const m of text.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  }
  return spans;
}

/**
 * The earliest index of `text` from which nothing may be released yet, given that more text may
 * follow: a suffix that is the beginning of a secret, a key or bearer token touching the end (it may
 * grow), the beginning of one ("sk", "Bearer "), and any complete secret that would be cut by the
 * limit. `limit` is the caller's own cut (e.g. from the prompt guard); the result is ≤ limit.
 */
export function unsafeTailStart(text: string, secrets: readonly string[], limit = text.length): number {
  let cut = Math.min(limit, text.length);
  const longest = secrets.reduce((n, s) => Math.max(n, s.length), 0);
  // A proper prefix of a secret at the very end.
  for (let i = Math.max(0, text.length - longest + 1); i < text.length && i < cut; i++) {
    const tail = text.slice(i);
    if (secrets.some((s) => s.length > tail.length && s.startsWith(tail))) {
      cut = i;
      break;
    }
  }
  for (const re of [PARTIAL_KEY, PARTIAL_BEARER]) {
    const m = re.exec(text);
    if (m) cut = Math.min(cut, m.index);
  }
  // Complete matches: one touching the end may still grow; one straddling the cut must not be split.
  const spans = sensitiveSpans(text, secrets);
  let moved = true;
  while (moved) {
    moved = false;
    for (const [start, end] of spans) {
      if (start < cut && (end > cut || end === text.length)) {
        cut = start;
        moved = true;
      }
    }
  }
  return cut;
}
