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

/** What every reading reports to: the spans to redact (absolute offsets) and whether the prompt leaked. */
class Findings {
  spans: Array<[number, number]> = [];
  leaked = false;
}

/**
 * One canonical reading of the text (direct, unescaped, or decoded from one encoding at one phase) and
 * its matchers' state: the secret fragments, the whole values and the system prompt.
 */
class Reading {
  /** Offsets where the last `ring.length` symbols came from; allocated on the first symbol (most decoded readings are never fed). */
  ring: number[] = [];
  count = 0;
  /** `count` just after the last digit. */
  digitAt = 0;
  sState = 0;
  sLen = 0;
  /** An open secret span (start offset, -1 when none) and its end so far. */
  spanStart = -1;
  spanEnd = 0;
  /** State in the whole-value automaton. */
  wState = 0;
  pState = 0;
  pLen = 0;
  /** Fed since it was last closed (closing an idle reading is skipped: punctuation ends runs often). */
  active = false;
  // The scan's parts, as own fields: read once per symbol on the hot path.
  private readonly targets: LeakTargets;
  private readonly mask: number;
  private readonly ringSize: number;
  private readonly findings: Findings;
  /** Prompt runs at least this long hold the text (an escaped symbol is many characters: held sooner). */
  private readonly promptHold: number;

  constructor(scan: ScanContext, promptHold: number) {
    this.targets = scan.targets;
    this.mask = scan.mask;
    this.ringSize = scan.ringSize;
    this.findings = scan.findings;
    this.promptHold = promptHold;
  }

  feed(flagged: number, from: number, to: number): void {
    const { targets, mask, findings } = this;
    this.active = true;
    if (this.ring.length === 0) this.ring = new Array<number>(this.ringSize).fill(0);
    this.ring[this.count & mask] = from;
    this.count++;
    if (flagged & DIGIT_FLAG) this.digitAt = this.count;
    const symbol = flagged & SYMBOL_MASK;
    if (targets.fragments) {
      const r = targets.fragments.step(this.sState, this.sLen, symbol);
      this.sState = r.state;
      this.sLen = r.length;
      const leak = this.sLen >= targets.fragmentAny || (this.sLen >= FRAGMENT_WITH_DIGIT && this.digitAt > this.count - this.sLen);
      if (leak) {
        if (this.spanStart < 0) this.spanStart = this.ring[(this.count - this.sLen) & mask]!;
        this.spanEnd = to;
      } else if (this.spanStart >= 0) {
        findings.spans.push([this.spanStart, this.spanEnd]);
        this.spanStart = -1;
      }
    }
    if (targets.whole) {
      this.wState = targets.whole.step(this.wState, symbol);
      const k = targets.whole.matched(this.wState);
      if (k > 0) findings.spans.push([this.ring[(this.count - k) & mask]!, to]);
    }
    if (targets.prompt) {
      const r = targets.prompt.step(this.pState, this.pLen, symbol);
      this.pState = r.state;
      this.pLen = r.length;
      if (this.pLen >= PROMPT_WINDOW) findings.leaked = true;
    }
  }

  /** End of the reading (a decoded run ends, or the text does): close an open span, forget partial matches. */
  close(): void {
    if (!this.active) return;
    this.active = false;
    if (this.spanStart >= 0) this.findings.spans.push([this.spanStart, this.spanEnd]);
    this.spanStart = -1;
    this.sState = this.sLen = this.pState = this.pLen = this.wState = 0;
  }

  /** Where this reading needs the text held from (Infinity: nowhere); a closed reading holds nothing. */
  holdFrom(): number {
    if (!this.active) return Infinity;
    const { mask, targets } = this;
    let h = Infinity;
    if (this.spanStart >= 0) h = this.spanStart;
    else if (this.sLen >= SECRET_HOLD) h = this.ring[(this.count - this.sLen) & mask]!;
    if (targets.whole) {
      const k = targets.whole.depth(this.wState);
      if (k >= SECRET_HOLD) h = Math.min(h, this.ring[(this.count - k) & mask]!);
    }
    if (this.pLen >= this.promptHold) h = Math.min(h, this.ring[(this.count - this.pLen) & mask]!);
    return h;
  }

  /** Takes over `other`'s state: the unescaped reading starts as the direct one at the first escape. */
  copyOf(other: Reading): void {
    this.ring = [...other.ring];
    this.count = other.count;
    this.digitAt = other.digitAt;
    this.sState = other.sState;
    this.sLen = other.sLen;
    this.spanStart = -1;
    this.wState = other.wState;
    this.pState = other.pState;
    this.pLen = other.pLen;
    this.active = true;
  }
}

/** What the readings of one scanner share. */
interface ScanContext {
  targets: LeakTargets;
  ringSize: number;
  mask: number;
  findings: Findings;
}

/** One phase of an encoding: bits accumulated into bytes, each decoded byte read canonically. */
class Decoder {
  private acc = 0;
  private bits = 0;
  /** Where the byte being built started. */
  private byteStart = 0;
  readonly reading: Reading;

  constructor(scan: ScanContext) {
    this.reading = new Reading(scan, PROMPT_HOLD);
  }

  push(value: number, width: number, at: number): void {
    if (this.bits === 0) this.byteStart = at;
    this.acc = ((this.acc << width) | value) & 0x3fff;
    this.bits += width;
    if (this.bits >= 8) {
      this.bits -= 8;
      const symbol = canonicalSymbol((this.acc >> this.bits) & 0xff);
      if (symbol >= 0) this.reading.feed(symbol, this.byteStart, at + 1);
      this.byteStart = at;
    }
  }

  end(): void {
    this.acc = this.bits = 0;
    this.reading.close();
  }
}

/**
 * The raw text read as one encoding (base64, base32, hex): a run of the alphabet's characters (spaces
 * inside a run are skipped, as a wrapped encoding has them) is decoded at every phase at once, since a
 * secret may start at any byte alignment; a character outside the alphabet ends the run.
 */
class EncodedRun {
  private run = 0;
  readonly decoders: Decoder[];

  constructor(
    scan: ScanContext,
    /** The alphabet: a character code's value, or -1. */
    private readonly values: Int8Array,
    /** Bits per character. */
    private readonly width: number,
    /** Characters per whole number of bytes: the phases a secret can start at. */
    phases: number,
  ) {
    this.decoders = Array.from({ length: phases }, () => new Decoder(scan));
  }

  feedRun(c: number, at: number): void {
    const value = c < 128 ? this.values[c]! : -1;
    if (value >= 0) {
      // Phase p starts at the p-th character of the run.
      const phases = Math.min(this.decoders.length, this.run + 1);
      for (let p = 0; p < phases; p++) this.decoders[p]!.push(value, this.width, at);
      this.run++;
    } else if (this.run > 0 && !isSpace(c)) this.end();
  }

  end(): void {
    for (const d of this.decoders) d.end();
    this.run = 0;
  }
}

/** Where an escape being read started, in which form; `none` outside one. */
type EscapeState = 'none' | 'pct' | 'amp' | 'amp#' | 'dec' | 'hexref' | 'bs' | 'u' | 'x';

/**
 * The text with its escapes undone (percent-encoding with UTF-8 assembled, HTML character references
 * `&#NNN;` and `&#xHH;` with the `;` optional as browsers read them, `\uHHHH` and `\xHH`), read
 * canonically: a decoded character carries the offsets of its whole escape, anything else its own.
 * Started only at the first character that may open an escape, as a copy of the direct reading.
 */
class Unescaper {
  readonly reading: Reading;
  private readonly reader = createCanonicalReader();
  running = false;
  private state: EscapeState = 'none';
  private start = 0;
  private raw = '';
  private value = 0;
  private digits = 0;
  // UTF-8 assembly for percent-encoded bytes.
  private utf8Need = 0;
  private utf8Value = 0;
  private utf8Start = 0;
  // The span the character being read is attributed to.
  private spanFrom = 0;
  private spanTo = 0;
  private readonly readSymbol = (symbol: number) => this.reading.feed(symbol, this.spanFrom, this.spanTo);

  constructor(scan: ScanContext) {
    // An escape spells one symbol in three to ten characters: the threshold that lets 15 plain symbols
    // of a prompt run leave would let a hundred escaped characters leave, so 4 symbols hold here.
    this.reading = new Reading(scan, 4);
  }

  begin(direct: Reading): void {
    this.running = true;
    this.reading.copyOf(direct);
  }

  /** Where an escape still open (it may decode into part of a match) needs the text held from. */
  holdFrom(): number {
    let h = this.reading.holdFrom();
    if (this.state !== 'none') h = Math.min(h, this.start);
    if (this.utf8Need > 0) h = Math.min(h, this.utf8Start);
    return h;
  }

  end(): void {
    if (!this.running) return;
    this.abandon();
    this.utf8Need = 0;
    this.reading.close();
    this.reader.reset();
    this.running = false;
  }

  push(text: string, offset: number): void {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      const at = offset + i;
      const step = this.step(ch, at);
      if (step === 'taken') continue;
      // Not (or no longer) inside an escape: what was held of one is plain text, and this character
      // may open the next.
      this.abandon();
      if (ch === '%') this.open('pct', ch, at);
      else if (ch === '&') this.open('amp', ch, at);
      else if (ch === '\\') this.open('bs', ch, at);
      else this.emitChar(ch, at, at + 1);
    }
  }

  /** One character inside an escape: `taken` when it belongs to it, `free` when it is read on its own. */
  private step(ch: string, at: number): 'taken' | 'free' {
    const c = ch.charCodeAt(0);
    switch (this.state) {
      case 'none':
        return 'free';
      case 'pct':
      case 'x':
      case 'u': {
        const h = c < 128 ? HEX[c]! : -1;
        if (h < 0) return 'free';
        this.raw += ch;
        this.value = this.value * 16 + h;
        if (++this.digits === (this.state === 'u' ? 4 : 2)) {
          const kind = this.state;
          this.state = 'none';
          if (kind === 'pct') this.emitByte(this.value, this.start, at + 1);
          else this.emitCodePoint(this.value, this.start, at + 1, kind === 'u');
          // Unless the decoded byte opened the next escape (`%2573`), nothing is held of this one.
          if (this.state === 'none') this.raw = '';
        }
        return 'taken';
      }
      case 'amp':
        if (ch !== '#') return 'free';
        this.state = 'amp#';
        this.raw += ch;
        return 'taken';
      case 'amp#':
        if (ch === 'x' || ch === 'X') {
          this.state = 'hexref';
          this.raw += ch;
          return 'taken';
        }
        if (c < 48 || c > 57) return 'free';
        this.state = 'dec';
        this.raw += ch;
        this.value = c - 48;
        this.digits = 1;
        return 'taken';
      case 'dec':
      case 'hexref': {
        const dec = this.state === 'dec';
        const d = dec ? (c >= 48 && c <= 57 ? c - 48 : -1) : c < 128 ? HEX[c]! : -1;
        if (d >= 0 && this.digits < 7) {
          this.raw += ch;
          this.value = this.value * (dec ? 10 : 16) + d;
          this.digits++;
          return 'taken';
        }
        if (this.digits === 0) return 'free';
        // The reference ends here; its `;` belongs to it, anything else is read on its own.
        this.emitCodePoint(this.value, this.start, ch === ';' ? at + 1 : at);
        this.state = 'none';
        this.raw = '';
        return ch === ';' ? 'taken' : 'free';
      }
      case 'bs':
        if (ch !== 'u' && ch !== 'x') return 'free';
        this.state = ch;
        this.raw += ch;
        return 'taken';
    }
  }

  private open(state: EscapeState, ch: string, at: number): void {
    this.state = state;
    this.start = at;
    this.raw = ch;
    this.value = 0;
    this.digits = 0;
  }

  /** An escape that did not complete is read as the plain text it was. */
  private abandon(): void {
    if (this.state !== 'none') {
      for (let i = 0; i < this.raw.length; i++) this.emitChar(this.raw[i]!, this.start + i, this.start + i + 1);
    }
    this.state = 'none';
    this.raw = '';
  }

  private emitChar(ch: string, from: number, to: number): void {
    this.spanFrom = from;
    this.spanTo = to;
    this.reader.push(ch, from, this.readSymbol);
  }

  /** `unit`: a UTF-16 code unit from `\\u`, where half a surrogate pair is joined by the reader. */
  private emitCodePoint(cp: number, from: number, to: number, unit = false): void {
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff && !unit)) return;
    this.emitChar(cp >= 0xd800 && cp <= 0xdfff ? String.fromCharCode(cp) : String.fromCodePoint(cp), from, to);
  }

  private emitByte(byte: number, from: number, to: number): void {
    if (this.utf8Need > 0 && (byte & 0xc0) === 0x80) {
      this.utf8Value = (this.utf8Value << 6) | (byte & 0x3f);
      if (--this.utf8Need === 0) this.emitCodePoint(this.utf8Value, this.utf8Start, to);
      return;
    }
    this.utf8Need = 0;
    // A percent sign that was itself percent-encoded (`%2573`) opens the next escape: encoding twice
    // is undone twice.
    if (byte === 0x25) {
      // Its raw text stays that of the escape that spelled it: abandoned, `%25` and what followed are
      // read as they stand.
      this.state = 'pct';
      this.start = from;
      this.value = 0;
      this.digits = 0;
      return;
    }
    if (byte < 0x80) return this.emitCodePoint(byte, from, to);
    const lead = byte >= 0xf0 ? 3 : byte >= 0xe0 ? 2 : byte >= 0xc0 ? 1 : 0;
    if (lead === 0) return;
    this.utf8Need = lead;
    this.utf8Value = byte & (0x3f >> lead);
    this.utf8Start = from;
  }
}

/**
 * Raw key-shaped words of the common providers, configured or not: a word is a maximal run of key
 * characters, redacted when it has a key's shape and held while it could still grow into one.
 */
class KeyWords {
  private start = -1;
  /** The word so far may still be a key (most words are ruled out at their first letter). */
  private candidate = false;

  constructor(private readonly scan: RawText) {}

  step(c: number, at: number): void {
    if (c < 128 && isKeyChar(c)) {
      if (this.start < 0) {
        this.start = at;
        this.candidate = true;
      }
      // Only candidates pay for a look at their head (still in the buffer: held).
      if (this.candidate && at - this.start < KEY_PREFIX_MAX) this.candidate = mayBeKey(this.scan.text(this.start, at + 1));
    } else if (this.start >= 0) this.end(at);
  }

  end(end: number): void {
    if (this.start < 0) return;
    if (this.candidate && KEY_SHAPE.test(this.scan.text(this.start, end))) this.scan.findings.spans.push([this.start, end]);
    this.start = -1;
    this.candidate = false;
  }

  holdFrom(): number {
    return this.candidate ? this.start : Infinity;
  }
}

/** Bearer tokens: a token after the word "bearer" and whitespace, with a digit and BEARER_TOKEN_MIN characters. */
class BearerTokens {
  private start = -1;
  /** How many characters of the token so far spell "bearer" (case-insensitive); -1 once they do not. */
  private bearerPrefix = -1;
  private digit = false;
  private candidate = false;
  /** The last token was the word "bearer" ... */
  private afterBearer = false;
  /** ... and whitespace followed it. */
  private spaced = false;

  constructor(private readonly findings: Findings) {}

  step(c: number, at: number): void {
    if (c < 128 && isTokenChar(c)) {
      if (this.start < 0) {
        this.start = at;
        this.bearerPrefix = 0;
        this.digit = false;
        this.candidate = this.afterBearer && this.spaced;
      }
      if (this.bearerPrefix >= 0) this.bearerPrefix = this.bearerPrefix < 6 && (c | 32) === BEARER_CODES[this.bearerPrefix] ? this.bearerPrefix + 1 : -1;
      if (c >= 48 && c <= 57) this.digit = true;
    } else {
      if (this.start >= 0) this.endToken(at);
      if (isSpace(c)) this.spaced = true;
      else this.afterBearer = false;
    }
  }

  /** The text ends: a token in progress ends, and nothing after carries over. */
  end(end: number): void {
    if (this.start >= 0) this.endToken(end);
    this.afterBearer = this.spaced = false;
  }

  holdFrom(): number {
    return this.candidate ? this.start : Infinity;
  }

  private endToken(end: number): void {
    if (this.candidate && this.digit && end - this.start >= BEARER_TOKEN_MIN) this.findings.spans.push([this.start, end]);
    this.afterBearer = this.bearerPrefix === 6 && end - this.start === 6;
    this.spaced = false;
    this.start = -1;
    this.candidate = false;
  }
}

/** What the raw readers see of the held text. */
interface RawText {
  findings: Findings;
  /** The held text between two absolute offsets. */
  text(from: number, to: number): string;
}

export function createLeakScanner(targets: LeakTargets): LeakScanner {
  let ringSize = 128;
  while (ringSize <= (targets.whole?.longest ?? 0)) ringSize *= 2;
  const findings = new Findings();
  const scan: ScanContext = { targets, ringSize, mask: ringSize - 1, findings };

  let buf = '';
  // Absolute offset of buf[0].
  let base = 0;
  let redactions = 0;

  const direct = new Reading(scan, PROMPT_HOLD);
  const reader = createCanonicalReader();
  const readDirect = (symbol: number, at: number) => direct.feed(symbol, at, at + 1);
  const unescaper = new Unescaper(scan);
  // Five bytes are eight base32 characters: a secret encoded at any byte alignment needs all 8 phases.
  const encodings = [new EncodedRun(scan, B64, 6, 4), new EncodedRun(scan, B32, 5, 8), new EncodedRun(scan, HEX, 4, 2)];
  const raw: RawText = { findings, text: (from, to) => buf.slice(from - base, to - base) };
  const keys = new KeyWords(raw);
  const bearer = new BearerTokens(findings);
  const decoded = encodings.flatMap((e) => e.decoders.map((d) => d.reading));

  const readRaw = (text: string, offset: number) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const at = offset + i;
      for (let e = 0; e < encodings.length; e++) encodings[e]!.feedRun(c, at);
      keys.step(c, at);
      bearer.step(c, at);
    }
  };

  const release = (limit: number): string => {
    let cut = limit;
    for (let moved = true; moved; ) {
      moved = false;
      for (const [start, end] of findings.spans) {
        if (start < cut && end > cut && start >= base) {
          cut = start;
          moved = true;
        }
      }
    }
    if (cut <= base) return '';
    const n = cut - base;
    let out = buf.slice(0, n);
    if (findings.spans.length > 0) {
      const now = findings.spans.filter(([start]) => start < cut).sort((a, b) => a[0] - b[0]);
      // A span that runs past the cut (it began in text already released) keeps its remainder.
      findings.spans = findings.spans.filter(([, end]) => end > cut).map(([start, end]): [number, number] => [Math.max(start, cut), end]);
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
    let h = Math.min(base + buf.length, direct.holdFrom(), unescaper.holdFrom(), keys.holdFrom(), bearer.holdFrom());
    for (const r of decoded) if (r.active) h = Math.min(h, r.holdFrom());
    return h;
  };

  return {
    push(text) {
      if (findings.leaked || !text) return '';
      const offset = base + buf.length;
      buf += text;
      // The unescaped reading starts as a copy of the direct one at the first possible escape: until
      // then the two readings are the same symbols, so the copy is exact and plain text costs nothing.
      const opens = unescaper.running ? 0 : firstEscapeOpener(text);
      if (opens < 0) reader.push(text, offset, readDirect);
      else {
        if (opens > 0) reader.push(text.slice(0, opens), offset, readDirect);
        if (!unescaper.running) unescaper.begin(direct);
        const rest = opens > 0 ? text.slice(opens) : text;
        reader.push(rest, offset + opens, readDirect);
        unescaper.push(rest, offset + opens);
      }
      readRaw(text, offset);
      if (findings.leaked) return '';
      return release(holdPoint());
    },
    flush() {
      const end = base + buf.length;
      keys.end(end);
      bearer.end(end);
      for (const e of encodings) e.end();
      direct.close();
      reader.reset();
      unescaper.end();
      if (findings.leaked) return '';
      return release(end);
    },
    get leaked() {
      return findings.leaked;
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
