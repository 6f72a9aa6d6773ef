/**
 * The leak scanner: text goes in chunk by chunk, text that can no longer turn into a leak comes out,
 * with every leaked span replaced by `[redacted]`. It reads the text four ways at once, one pass, state
 * carried between chunks (linear in the text, nothing re-scanned):
 *
 * - canonically (security/canonical.ts: case, spacing, zero-width characters, Markdown and Unicode
 *   compatibility forms folded away), against the secret index (any long enough fragment of a secret or
 *   of its reversal), the whole values (host names, short secrets: one automaton, whole-matcher.ts) and
 *   the system prompt;
 * - as base64 at each of the four character phases, decoded on the fly and read canonically again,
 *   so a secret encoded at any byte alignment is read back in clear;
 * - as hex at both nibble phases, likewise;
 * - raw, for key-shaped words of the common providers and bearer tokens, configured or not.
 *
 * It holds back exactly what is still undecided (the start of a match that may grow into a leak) and
 * releases the rest at once. A prompt leak (a 64-symbol run of the system prompt, forwards or reversed)
 * stops the release for good: the caller replaces the answer.
 */
import { asciiSymbol, canonicalSymbol, createCanonicalReader, DIGIT_FLAG, SYMBOL_MASK } from './canonical.js';
import type { SubstringIndex } from './substring-index.js';
import type { WholeMatcher } from './whole-matcher.js';

export const REDACTED = '[redacted]';

/** A fragment of a secret this long (canonical symbols) is a leak when it contains a digit. */
export const FRAGMENT_WITH_DIGIT = 10;
/** A fragment of a secret this long is a leak whatever it contains (lowered for shorter secrets). */
export const FRAGMENT_ANY = 16;
/** A run of this many canonical symbols of the system prompt is a leak (about 80 characters of prose). */
export const PROMPT_WINDOW = 64;
/**
 * A secret match is held from its first symbol. The start of the longest matching suffix never moves
 * back, so nothing released can later turn out to belong to a leak: the redaction is the same however
 * the text was chunked (the stream route's 1-character deltas and the JSON route's whole answer read
 * `[redacted]1` alike), and the hold costs only the last symbol or two of ordinary text, which a random
 * secret's alphabet usually matches.
 */
export const SECRET_HOLD = 1;
/**
 * Prompt runs shorter than this leave at once (ordinary prose shares a few words with the prompt);
 * longer ones are held until they stop matching. A prompt run refuses the whole answer anyway.
 */
export const PROMPT_HOLD = 16;

/** What the scanner looks for; built once per policy (security/leak-policy.ts). */
export interface LeakTargets {
  /** Fragments of high-entropy secrets and their reversals. */
  fragments: SubstringIndex | null;
  /** FRAGMENT_ANY, or the shortest indexed secret when shorter. */
  fragmentAny: number;
  /** Values that only count whole (host names, short secrets), forwards and reversed, or null. */
  whole: WholeMatcher | null;
  /** The system prompt (forwards and reversed, the user's memory block cut out), or null. */
  prompt: SubstringIndex | null;
}

export interface LeakScanner {
  /** Takes the next chunk; returns the text now safe to release (maybe empty), redacted. */
  push(text: string): string;
  /**
   * The text is complete (end of a model pass): releases everything still held, redacted. Every match
   * in progress ends here, so the scanner reads what follows as a new text.
   */
  flush(): string;
  /** True once the text repeated a run of the system prompt; nothing is released after that. */
  readonly leaked: boolean;
  /** True when anything released so far was redacted. */
  readonly redacted: boolean;
  /** How many spans were redacted so far (a whole-text scan compares it before and after). */
  readonly redactions: number;
  /** Characters currently held back. */
  readonly held: number;
}

// Raw key shapes. A "word" is a maximal run of key characters; it is redacted when it has one of
// these shapes, and held back while it could still grow into one.
const KEY_PREFIXES = [
  'sk-', 'sk_live_', 'sk_test_', 'rk_live_', 'AIza', 'AKIA', 'ASIA', 'ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_',
  'github_pat_', 'xoxa-', 'xoxb-', 'xoxp-', 'xoxr-', 'xoxs-', 'hf_', 'gsk_', 'glpat-', 'pplx-', 'nvapi-', 'r8_',
];
const KEY_PREFIX_MAX = Math.max(...KEY_PREFIXES.map((p) => p.length));
const KEY_SHAPE = new RegExp(
  '^(?:sk-[A-Za-z0-9_-]{16,}|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|AIza[A-Za-z0-9_-]{35,}|A[KS]IA[A-Z0-9]{16,}' +
    '|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abprs]-[A-Za-z0-9-]{10,}|hf_[A-Za-z0-9]{30,}' +
    '|gsk_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_-]{20,}|pplx-[A-Za-z0-9]{30,}|nvapi-[A-Za-z0-9_-]{30,}|r8_[A-Za-z0-9]{30,})$',
);
const mayBeKey = (head: string) => KEY_PREFIXES.some((p) => p.startsWith(head) || head.startsWith(p));
const BEARER_CODES = [...'bearer'].map((ch) => ch.charCodeAt(0));
/** A bearer token (RFC 6750 b64token) needs a digit and this many characters, so "Bearer bonds" stays prose. */
const BEARER_TOKEN_MIN = 12;

// Character classes of the raw readers, by ASCII code: key characters, token characters, whitespace.
const isKeyChar = (c: number) => asciiSymbol(c) >= 0 || c === 95 || c === 45;
const isTokenChar = (c: number) => isKeyChar(c) || c === 46 || c === 126 || c === 43 || c === 47 || c === 61;
const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
const B64 = new Int8Array(128).fill(-1);
for (let i = 0; i < 64; i++) B64['ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.charCodeAt(i)] = i;
B64[45] = 62; // '-' (URL-safe alphabet)
B64[95] = 63; // '_'
// Base32 (RFC 4648), in its upper-case alphabet: A-Z are 0-25, 2-7 are 26-31. Read case-insensitively,
// every lowercase letter of ordinary prose would feed eight decoders (measured: the scanner 1.6× slower
// per character); upper case, prose breaks a run at almost every letter.
const B32 = new Int8Array(128).fill(-1);
for (let i = 0; i < 32; i++) B32['ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.charCodeAt(i)] = i;
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** The index of the first character that may open an escape (`%`, `&`, `\\`), or -1. */
function firstEscapeOpener(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 37 || c === 38 || c === 92) return i;
  }
  return -1;
}

/** One canonical reading of the text (direct, or decoded) and its matchers' state. */
interface Track {
  /** Offsets where the last `ring.length` symbols came from. */
  ring: number[];
  count: number;
  /** `count` just after the last digit. */
  digitAt: number;
  sState: number;
  sLen: number;
  /** An open secret span (start offset, -1 when none) and its end so far. */
  spanStart: number;
  spanEnd: number;
  /** State in the whole-value automaton. */
  wState: number;
  pState: number;
  pLen: number;
  /** Fed since it was last closed (closing an idle reading is skipped: punctuation ends runs often). */
  active: boolean;
}

/** A decoder feeding one track: bits accumulated, and where the byte being built started. */
interface Decoder {
  track: Track;
  acc: number;
  bits: number;
  byteStart: number;
}

export function createLeakScanner(targets: LeakTargets): LeakScanner {
  const { fragments, fragmentAny, whole, prompt } = targets;
  let ringSize = 128;
  while (ringSize <= (whole?.longest ?? 0)) ringSize *= 2;
  const mask = ringSize - 1;
  // Plain arrays, not typed ones: a scanner is made per answer and per log line, and allocating
  // fourteen small typed arrays cost more (about 35 µs) than scanning a typical line.
  const newTrack = (): Track => ({
    // Allocated on the first symbol: most decoded readings of an answer are never fed.
    ring: [],
    count: 0,
    digitAt: 0,
    sState: 0,
    sLen: 0,
    spanStart: -1,
    spanEnd: 0,
    wState: 0,
    pState: 0,
    pLen: 0,
    active: false,
  });
  const direct = newTrack();
  const newDecoder = (): Decoder => ({ track: newTrack(), acc: 0, bits: 0, byteStart: 0 });
  const base64 = [newDecoder(), newDecoder(), newDecoder(), newDecoder()];
  const hex = [newDecoder(), newDecoder()];
  // Five bytes are eight base32 characters: a secret encoded at any byte alignment needs all 8 phases.
  const base32 = Array.from({ length: 8 }, newDecoder);
  // The text with its escapes undone (percent-encoding, HTML character references, \u and \x escapes):
  // read only from the first character that may open an escape, until the text ends (see `unescape`).
  const unescaped = newTrack();
  const tracks = [direct, unescaped, ...base64.map((d) => d.track), ...hex.map((d) => d.track), ...base32.map((d) => d.track)];
  const reader = createCanonicalReader();
  const unescapedReader = createCanonicalReader();

  let buf = '';
  // Absolute offset of buf[0].
  let base = 0;
  let spans: Array<[number, number]> = [];
  let leaked = false;
  let redactions = 0;
  let b64Run = 0;
  let hexRun = 0;
  let b32Run = 0;
  // The current key word and token (start offset or -1), their first characters, and whether they may be secrets.
  let keyStart = -1;
  let keyCandidate = false;
  let tokenStart = -1;
  // How many characters of the token so far spell "bearer" (case-insensitive); -1 once they do not.
  let bearerPrefix = -1;
  let tokenDigit = false;
  let tokenCandidate = false;
  // The last token was the word "bearer" and whitespace followed it.
  let afterBearer = false;
  let bearerSpaced = false;

  const feed = (t: Track, flagged: number, from: number, to: number) => {
    t.active = true;
    if (t.ring.length === 0) t.ring = new Array<number>(ringSize).fill(0);
    t.ring[t.count & mask] = from;
    t.count++;
    if (flagged & DIGIT_FLAG) t.digitAt = t.count;
    const symbol = flagged & SYMBOL_MASK;
    if (fragments) {
      const r = fragments.step(t.sState, t.sLen, symbol);
      t.sState = r.state;
      t.sLen = r.length;
      const leak = t.sLen >= fragmentAny || (t.sLen >= FRAGMENT_WITH_DIGIT && t.digitAt > t.count - t.sLen);
      if (leak) {
        if (t.spanStart < 0) t.spanStart = t.ring[(t.count - t.sLen) & mask]!;
        t.spanEnd = to;
      } else if (t.spanStart >= 0) {
        spans.push([t.spanStart, t.spanEnd]);
        t.spanStart = -1;
      }
    }
    if (whole) {
      t.wState = whole.step(t.wState, symbol);
      const k = whole.matched(t.wState);
      if (k > 0) spans.push([t.ring[(t.count - k) & mask]!, to]);
    }
    if (prompt) {
      const r = prompt.step(t.pState, t.pLen, symbol);
      t.pState = r.state;
      t.pLen = r.length;
      if (t.pLen >= PROMPT_WINDOW) leaked = true;
    }
  };

  /** End of a reading (a decoded run ends, or the text does): close an open span, forget partial matches. */
  const closeTrack = (t: Track) => {
    if (!t.active) return;
    t.active = false;
    if (t.spanStart >= 0) spans.push([t.spanStart, t.spanEnd]);
    t.spanStart = -1;
    t.sState = t.sLen = t.pState = t.pLen = t.wState = 0;
  };

  /**
   * Where a reading needs the text held from. An escape spells one symbol in three to ten characters,
   * so the unescaped reading holds a prompt run from 4 symbols: the threshold that lets 15 plain
   * symbols leave would let a hundred escaped characters leave.
   */
  const holdOf = (t: Track): number => {
    const promptHold = t === unescaped ? 4 : PROMPT_HOLD;
    let h = Infinity;
    if (t.spanStart >= 0) h = t.spanStart;
    else if (t.sLen >= SECRET_HOLD) h = t.ring[(t.count - t.sLen) & mask]!;
    if (whole) {
      const k = whole.depth(t.wState);
      if (k >= SECRET_HOLD) h = Math.min(h, t.ring[(t.count - k) & mask]!);
    }
    if (t.pLen >= promptHold) h = Math.min(h, t.ring[(t.count - t.pLen) & mask]!);
    return h;
  };

  const decode = (d: Decoder, value: number, width: number, at: number) => {
    if (d.bits === 0) d.byteStart = at;
    d.acc = ((d.acc << width) | value) & 0x3fff;
    d.bits += width;
    if (d.bits >= 8) {
      d.bits -= 8;
      const symbol = canonicalSymbol((d.acc >> d.bits) & 0xff);
      if (symbol >= 0) feed(d.track, symbol, d.byteStart, at + 1);
      d.byteStart = at;
    }
  };
  const endDecoders = (ds: Decoder[]) => {
    for (const d of ds) {
      d.acc = d.bits = 0;
      closeTrack(d.track);
    }
  };

  const readDirect = (symbol: number, at: number) => feed(direct, symbol, at, at + 1);

  // --- The unescaped reading ---------------------------------------------------------------------
  // A small state machine over the raw characters: `%XX` (UTF-8 bytes assembled), `&#NNN;` and
  // `&#xHH;` (the `;` optional, as browsers read them), `\uHHHH` and `\xHH`. A decoded character is
  // read canonically with the offsets of its whole escape; anything else is read as it stands.
  let unescaping = false;
  let esc: 'none' | 'pct' | 'amp' | 'amp#' | 'dec' | 'hexref' | 'bs' | 'u' | 'x' = 'none';
  let escStart = 0;
  let escRaw = '';
  let escValue = 0;
  let escDigits = 0;
  // UTF-8 assembly for percent-encoded bytes.
  let utf8Need = 0;
  let utf8Value = 0;
  let utf8Start = 0;
  // The span a character read by `unescapedReader` is attributed to (the escape's, or its own).
  let spanFrom = 0;
  let spanTo = 0;
  const readUnescaped = (symbol: number) => feed(unescaped, symbol, spanFrom, spanTo);
  const emitChar = (ch: string, from: number, to: number) => {
    spanFrom = from;
    spanTo = to;
    unescapedReader.push(ch, from, readUnescaped);
  };
  const emitPlain = (text: string, at: number) => {
    for (let i = 0; i < text.length; i++) emitChar(text[i]!, at + i, at + i + 1);
  };
  /** `unit`: a UTF-16 code unit from `\\u`, where half a surrogate pair is joined by the reader. */
  const emitCodePoint = (cp: number, from: number, to: number, unit = false) => {
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff && !unit)) return;
    emitChar(cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp), from, to);
  };
  const emitByte = (byte: number, from: number, to: number) => {
    if (utf8Need > 0 && (byte & 0xc0) === 0x80) {
      utf8Value = (utf8Value << 6) | (byte & 0x3f);
      if (--utf8Need === 0) emitCodePoint(utf8Value, utf8Start, to);
      return;
    }
    utf8Need = 0;
    // A percent sign that was itself percent-encoded (`%2573`) opens the next escape: encoding twice
    // is undone twice.
    if (byte === 0x25) {
      esc = 'pct';
      escStart = from;
      escValue = 0;
      escDigits = 0;
      return;
    }
    if (byte < 0x80) return emitCodePoint(byte, from, to);
    const lead = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : byte >= 0xc0 ? 1 : 0;
    if (lead === 0) return;
    utf8Need = lead;
    utf8Value = byte & (0x3f >> lead);
    utf8Start = from;
  };
  /** An escape that did not complete is read as the plain text it was. */
  const abandonEscape = () => {
    if (esc !== 'none') emitPlain(escRaw, escStart);
    esc = 'none';
    escRaw = '';
  };
  const openEscape = (kind: typeof esc, c: string, at: number) => {
    esc = kind;
    escStart = at;
    escRaw = c;
    escValue = 0;
    escDigits = 0;
  };
  const unescape = (text: string, offset: number) => {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      const c = ch.charCodeAt(0);
      const at = offset + i;
      const h = c < 128 ? HEX[c]! : -1;
      const digit = c >= 48 && c <= 57 ? c - 48 : -1;
      let handled = true;
      switch (esc) {
        case 'none':
          handled = false;
          break;
        case 'pct':
        case 'x':
        case 'u':
          if (h >= 0) {
            escRaw += ch;
            escValue = escValue * 16 + h;
            if (++escDigits === (esc === 'u' ? 4 : 2)) {
              const kind = esc;
              esc = 'none';
              if (kind === 'pct') emitByte(escValue, escStart, at + 1);
              else emitCodePoint(escValue, escStart, at + 1, kind === 'u');
              if (esc === 'none') escRaw = '';
            }
          } else handled = false;
          break;
        case 'amp':
          if (ch === '#') {
            esc = 'amp#';
            escRaw += ch;
          } else handled = false;
          break;
        case 'amp#':
          if (ch === 'x' || ch === 'X') {
            esc = 'hexref';
            escRaw += ch;
          } else if (digit >= 0) {
            esc = 'dec';
            escRaw += ch;
            escValue = digit;
            escDigits = 1;
          } else handled = false;
          break;
        case 'dec':
        case 'hexref': {
          const d = esc === 'dec' ? digit : h;
          if (d >= 0 && escDigits < 7) {
            escRaw += ch;
            escValue = escValue * (esc === 'dec' ? 10 : 16) + d;
            escDigits++;
          } else if (escDigits > 0) {
            emitCodePoint(escValue, escStart, ch === ';' ? at + 1 : at);
            esc = 'none';
            escRaw = '';
            if (ch === ';') continue;
            handled = false;
          } else handled = false;
          break;
        }
        case 'bs':
          if (ch === 'u' || ch === 'x') {
            esc = ch;
            escRaw += ch;
          } else handled = false;
          break;
      }
      if (handled) continue;
      // Not (or no longer) inside an escape: what was held of one is plain text, and this character
      // may open the next.
      abandonEscape();
      if (ch === '%') openEscape('pct', ch, at);
      else if (ch === '&') openEscape('amp', ch, at);
      else if (ch === '\\') openEscape('bs', ch, at);
      else emitChar(ch, at, at + 1);
    }
  };
  const startUnescaping = () => {
    unescaping = true;
    // The direct reading so far is this reading so far: copy its state.
    unescaped.ring = [...direct.ring];
    unescaped.count = direct.count;
    unescaped.digitAt = direct.digitAt;
    unescaped.sState = direct.sState;
    unescaped.sLen = direct.sLen;
    unescaped.spanStart = -1;
    unescaped.wState = direct.wState;
    unescaped.pState = direct.pState;
    unescaped.pLen = direct.pLen;
    unescaped.active = true;
  };
  const endUnescaping = () => {
    if (!unescaping) return;
    abandonEscape();
    utf8Need = 0;
    closeTrack(unescaped);
    unescapedReader.reset();
    unescaping = false;
  };

  const endKey = (end: number) => {
    if (keyCandidate && KEY_SHAPE.test(buf.slice(keyStart - base, end - base))) spans.push([keyStart, end]);
    keyStart = -1;
    keyCandidate = false;
  };
  const endToken = (end: number) => {
    if (tokenCandidate && tokenDigit && end - tokenStart >= BEARER_TOKEN_MIN) spans.push([tokenStart, end]);
    afterBearer = bearerPrefix === 6 && end - tokenStart === 6;
    bearerSpaced = false;
    tokenStart = -1;
    tokenCandidate = false;
  };

  const readRaw = (text: string, offset: number) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const at = offset + i;
      // base64, four phases
      const b = c < 128 ? B64[c]! : -1;
      if (b >= 0) {
        for (let p = 0; p < 4 && p <= b64Run; p++) decode(base64[p]!, b, 6, at);
        b64Run++;
      } else if (!isSpace(c) && b64Run > 0) {
        endDecoders(base64);
        b64Run = 0;
      }
      // base32, eight phases
      const b32 = c < 128 ? B32[c]! : -1;
      if (b32 >= 0) {
        for (let p = 0; p < 8 && p <= b32Run; p++) decode(base32[p]!, b32, 5, at);
        b32Run++;
      } else if (!isSpace(c) && b32Run > 0) {
        endDecoders(base32);
        b32Run = 0;
      }
      // hex, two phases
      const h = c < 128 ? HEX[c]! : -1;
      if (h >= 0) {
        for (let p = 0; p < 2 && p <= hexRun; p++) decode(hex[p]!, h, 4, at);
        hexRun++;
      } else if (!isSpace(c) && hexRun > 0) {
        endDecoders(hex);
        hexRun = 0;
      }
      // key-shaped words
      if (c < 128 && isKeyChar(c)) {
        if (keyStart < 0) {
          keyStart = at;
          keyCandidate = true;
        }
        // Once a word cannot start a key it never will: most words are ruled out at their first letter,
        // and only candidates pay for a look at their head (they are still in `buf`, held).
        if (keyCandidate && at - keyStart < KEY_PREFIX_MAX) keyCandidate = mayBeKey(buf.slice(keyStart - base, at + 1 - base));
      } else if (keyStart >= 0) endKey(at);
      // bearer tokens
      if (c < 128 && isTokenChar(c)) {
        if (tokenStart < 0) {
          tokenStart = at;
          bearerPrefix = 0;
          tokenDigit = false;
          tokenCandidate = afterBearer && bearerSpaced;
        }
        if (bearerPrefix >= 0) bearerPrefix = bearerPrefix < 6 && (c | 32) === BEARER_CODES[bearerPrefix] ? bearerPrefix + 1 : -1;
        if (c >= 48 && c <= 57) tokenDigit = true;
      } else {
        if (tokenStart >= 0) endToken(at);
        if (isSpace(c)) bearerSpaced = true;
        else afterBearer = false;
      }
    }
  };

  const release = (limit: number): string => {
    let cut = limit;
    for (let moved = true; moved; ) {
      moved = false;
      for (const [start, end] of spans) {
        if (start < cut && end > cut && start >= base) {
          cut = start;
          moved = true;
        }
      }
    }
    if (cut <= base) return '';
    const n = cut - base;
    let out = buf.slice(0, n);
    if (spans.length > 0) {
      const now = spans.filter(([start]) => start < cut).sort((a, b) => a[0] - b[0]);
      // A span that runs past the cut (it began in text already released) keeps its remainder.
      spans = spans.filter(([, end]) => end > cut).map(([start, end]): [number, number] => [Math.max(start, cut), end]);
      if (now.length > 0) {
        let text = '';
        let at = base;
        for (const [s, e] of now) {
          const start = Math.max(s, base, at);
          const end = Math.min(e, cut);
          if (end <= start) {
            at = Math.max(at, end);
            continue;
          }
          text += buf.slice(at - base, start - base);
          // Adjacent or overlapping spans make one `[redacted]`.
          if (!text.endsWith(REDACTED) || start > at) text += REDACTED;
          at = end;
        }
        out = text + buf.slice(at - base, n);
        redactions += now.length;
      }
    }
    buf = buf.slice(n);
    base = cut;
    return out;
  };

  const holdPoint = (): number => {
    let h = base + buf.length;
    // A closed reading (not fed since it was closed) holds nothing.
    for (const t of tracks) if (t.active) h = Math.min(h, holdOf(t));
    if (keyCandidate) h = Math.min(h, keyStart);
    if (tokenCandidate) h = Math.min(h, tokenStart);
    // An escape still open may decode into part of a match.
    if (esc !== 'none') h = Math.min(h, escStart);
    if (utf8Need > 0) h = Math.min(h, utf8Start);
    return h;
  };

  return {
    push(text) {
      if (leaked || !text) return '';
      const offset = base + buf.length;
      buf += text;
      // The unescaped reading starts as a copy of the direct one at the first possible escape: until
      // then the two readings are the same symbols, so the copy is exact and plain text costs nothing.
      const opens = unescaping ? 0 : firstEscapeOpener(text);
      if (opens < 0) reader.push(text, offset, readDirect);
      else {
        if (opens > 0) reader.push(text.slice(0, opens), offset, readDirect);
        if (!unescaping) startUnescaping();
        reader.push(opens > 0 ? text.slice(opens) : text, offset + opens, readDirect);
        unescape(opens > 0 ? text.slice(opens) : text, offset + opens);
      }
      readRaw(text, offset);
      if (leaked) return '';
      return release(holdPoint());
    },
    flush() {
      const end = base + buf.length;
      if (keyStart >= 0) endKey(end);
      if (tokenStart >= 0) endToken(end);
      afterBearer = bearerSpaced = false;
      endDecoders(base64);
      endDecoders(hex);
      endDecoders(base32);
      b64Run = hexRun = b32Run = 0;
      closeTrack(direct);
      reader.reset();
      endUnescaping();
      if (leaked) return '';
      return release(end);
    },
    get leaked() {
      return leaked;
    },
    get redacted() {
      return redactions > 0;
    },
    get redactions() {
      return redactions;
    },
    get held() {
      return buf.length;
    },
  };
}
