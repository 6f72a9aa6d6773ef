/**
 * The canonical reading the leak scanner runs once per way it reads the text (directly, unescaped, and
 * decoded from each encoding at each phase): a symbol at a time, against the secret fragments, the whole
 * values and the system prompt, reporting spans to redact and a prompt leak to the scan's Findings.
 */
import { DIGIT_FLAG, SYMBOL_MASK } from '../canonical.js';
import type { SubstringIndex } from '../substring-index.js';
import type { WholeMatcher } from '../whole-matcher.js';

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

/**
 * What every reading reports to: the spans to redact (absolute offsets) and whether the prompt leaked.
 *
 * The spans are kept merged: sorted, disjoint and not touching (overlapping or adjacent spans make one
 * `[redacted]` anyway). An answer that keeps matching overlapping fragments of a secret (a secret with a
 * run such as `0123456789012`, an answer of digits) reports a span every few characters, each overlapping
 * the last; merged, they stay one span, so what the scanner holds and walks on each release is bounded by
 * the held text, not by how many findings it has seen. Unmerged, each release walked every finding again:
 * quadratic in the answer, minutes of event loop at 20,000 characters (issue 61).
 */
export class Findings {
  /** Starts of the merged spans, ascending; `ends[i]` belongs to `starts[i]`. */
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  /** Offsets before this were released: a span reported from there is kept from here on. */
  floor = 0;
  leaked = false;

  /** Reports `[start, end)`; merged with every span it overlaps or touches. */
  add(start: number, end: number): void {
    if (start < this.floor) start = this.floor;
    if (end <= start) return;
    const { starts, ends } = this;
    // Spans arrive near the end of the text: find the place from the back.
    let i = starts.length;
    while (i > 0 && starts[i - 1]! > end) i--;
    // starts[0..i) begin at or before `end`; merge backwards while they reach `start`.
    let j = i;
    while (j > 0 && ends[j - 1]! >= start) j--;
    if (j < i) {
      start = Math.min(start, starts[j]!);
      end = Math.max(end, ends[i - 1]!);
    }
    starts.splice(j, i - j, start);
    ends.splice(j, i - j, end);
  }

  get count(): number {
    return this.starts.length;
  }
}

/**
 * One canonical reading of the text (direct, unescaped, or decoded from one encoding at one phase) and
 * its matchers' state: the secret fragments, the whole values and the system prompt.
 */
export class Reading {
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
        findings.add(this.spanStart, this.spanEnd);
        this.spanStart = -1;
      }
    }
    if (targets.whole) {
      this.wState = targets.whole.step(this.wState, symbol);
      const k = targets.whole.matched(this.wState);
      if (k > 0) findings.add(this.ring[(this.count - k) & mask]!, to);
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
    if (this.spanStart >= 0) this.findings.add(this.spanStart, this.spanEnd);
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
export interface ScanContext {
  targets: LeakTargets;
  ringSize: number;
  mask: number;
  findings: Findings;
}
