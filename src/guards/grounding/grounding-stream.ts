/**
 * The grounding check as the answer streams (issue 45): every hour, room, course number, phone number,
 * price, date, route or wait the answer states is checked against the turn's evidence before it leaves,
 * and one that no evidence holds is replaced in place by a mark ("(time not confirmed)").
 *
 * Text is held only while it could still be, or contain, a claim: a segment (a sentence, or a whole
 * line for a table row) streams as it arrives until a digit starting a word, "$", "noon" or "midnight"
 * shows up; from
 * there it is held to the segment's end and judged whole, with the text of the segment that already
 * left as context. Before that, only a trailing word that could begin a claim is held (a month or a
 * season: "October 15", "Spring 2027"; a "(" of a phone number). List markers and heading hashes at a
 * line's start are structure, not claims, and pass as they are. An answer with no claims streams as
 * before; each delta costs the same however long the answer is (a held segment is bounded).
 */
import type { Catalog } from '../../campus/catalog.js';
import { readClaims, type Claim, type ClaimClass } from './claims.js';
import type { Evidence } from './evidence.js';
import { unconfirmedMark } from './grounding-note.js';

/** Claims checked and claims no evidence held: of one class, or of a whole answer (`metadata.grounding`, CONTRACT.md). */
export interface GroundingCounts {
  checked: number;
  unverified: number;
}

export interface GroundingStream {
  /** Verified text in (after the leak scanner); text that may leave out. */
  push(text: string): string;
  /** End of a model pass: the held segment is judged and released. */
  flush(): string;
  /** Everything before was reasoning: what is held is dropped and nothing of it is counted. */
  reset(): void;
  readonly checked: number;
  readonly unverified: number;
  /** Counts by claim class, for telemetry. */
  readonly byClass: ReadonlyMap<ClaimClass, GroundingCounts>;
  /** Classes of the claims that were replaced (the closing note says where to check them). */
  readonly unconfirmed: ReadonlySet<ClaimClass>;
}

// List markers, ordered-list numbers, quotes and heading hashes at a line's start.
const LINE_PREFIX = /^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+|>[ \t]?|#{1,6}[ \t]+)*/;
// Could still grow into a line prefix ("1", "12.", "##").
const MAYBE_PREFIX = /^[ \t>*+#\d.)-]*$/;
// Noon and midnight start a claim with no digit (a cheap test first, the word-bounded one only on a hit).
const CLOCK_WORD_HINT = /no{2}n|mid(?:day|night)/i;
const CLOCK_WORD = /\b(?:noon|midday|midnight)\b/i;
// A period after these is no sentence end ("9 p.m. on", "Oct. 15", "Dr. Smith").
const ABBREVIATION = /(?:^|[\s(])(?:[ap]\.m|[A-Za-z]|e\.g|i\.e|vs|St|Dr|Mr|Mrs|Ms|Ave|No|Prof|Rm|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.$/;
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '*', '_']);
/** A held segment longer than this is judged at a word boundary away from digits (an endless line is not held whole). */
const MAX_HELD = 1200;
/** Of the segment that already left, this much is kept as context for the held part's claims. */
const CONTEXT = 240;

/** Words that begin a claim without a digit (held at the end of what arrived), and their prefixes. */
const LEAD_INS = new Set([
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  'spring', 'summer', 'fall', 'autumn', 'winter',
]);
/**
 * From three letters: "Su" of "Sure" or "No" leave at once (a one-chunk wait on many first words), while
 * "Sep", "Sum" or "noo" wait. Model chunks are tokens, which seldom cut a month's name in two.
 */
const MIN_PREFIX = 3;
const PREFIXES = new Set<string>();
for (const w of [...LEAD_INS, 'noon', 'midday', 'midnight']) for (let i = MIN_PREFIX; i <= w.length; i++) PREFIXES.add(w.slice(0, i));
/** Their first letters, either case: most words are ruled out by their first letter alone. */
const FIRST_LETTERS = new Set([...PREFIXES].flatMap((p) => [p.charCodeAt(0), p.toUpperCase().charCodeAt(0)]));
const LONGEST_LEAD_IN = 9;
/** Could the word `buf[start, end)` be a lead-in (or, `prefix`, still grow into one)? */
const mayLeadIn = (buf: string, start: number, end: number, prefix: boolean): boolean => {
  const length = end - start;
  if (length < (prefix ? MIN_PREFIX : 3) || length > LONGEST_LEAD_IN || !FIRST_LETTERS.has(buf.charCodeAt(start))) return false;
  const word = buf.slice(start, end).toLowerCase();
  return prefix ? PREFIXES.has(word) : LEAD_INS.has(word);
};

const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\u00a0';
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** A letter or digit (ASCII by comparison, anything else by its Unicode category). */
const isWordChar = (ch: string | undefined): boolean => {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 0x80) return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return /[\p{L}\p{N}]/u.test(ch);
};
const isLetter = (ch: string): boolean => {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return /\p{L}/u.test(ch);
};

/**
 * Does `text` hold what may start a claim: a digit that starts a word (never one inside it: "word0",
 * "H1N1", "mp3"), a dollar sign, or noon and midnight? `before` is the character released just before it.
 */
function hasTrigger(text: string, before: string | undefined): boolean {
  // Noon, midday and midnight all have an "n": the word test runs only on text that has one.
  let n = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x24) return true;
    if (isDigit(c) && !isWordChar(i > 0 ? text[i - 1] : before)) return true;
    if (c === 0x6e || c === 0x4e) n = true;
  }
  return n && CLOCK_WORD_HINT.test(text) && CLOCK_WORD.test(text);
}

export function createGroundingStream(options: { catalog: Catalog; evidence: Evidence }): GroundingStream {
  const { catalog, evidence } = options;
  /** Text of the current segment not yet released. */
  let buf = '';
  /** Where scanning for a segment end resumes in `buf`. */
  let scan = 0;
  /** The end of the segment's released text (context for claims that start before the held part). */
  let context = '';
  let lineStart = true;
  let table = false;
  let triggered = false;
  let checked = 0;
  let unverified = 0;
  const byClass = new Map<ClaimClass, GroundingCounts>();
  const unconfirmed = new Set<ClaimClass>();

  /** A trigger in `text`, read with the released character before it (so "w" then "17" is one word). */
  const triggers = (text: string): boolean => hasTrigger(text, context[context.length - 1]);

  const count = (cls: ClaimClass, ok: boolean) => {
    const c = byClass.get(cls) ?? { checked: 0, unverified: 0 };
    c.checked++;
    checked++;
    if (!ok) {
      c.unverified++;
      unverified++;
      unconfirmed.add(cls);
    }
    byClass.set(cls, c);
  };

  /** The held `seg` judged with `context` before it: unconfirmed claims replaced by their mark. */
  const judge = (seg: string): string => {
    const full = context + seg;
    const claims = readClaims(full, { catalog, mode: 'answer', busTurn: evidence.hasWaits() });
    if (claims.length === 0) return seg;
    // A sentence that names its place, course or route is checked against that subject's own facts.
    const subjects = evidence.subjectsOf(full, claims);
    const groups = new Map<number, Claim[]>();
    for (const c of claims) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);
    const cuts: Array<{ start: number; end: number; mark: string }> = [];
    for (const members of groups.values()) {
      const failed = members.filter((c) => {
        const ok = evidence.holds(c, subjects);
        count(c.cls, ok);
        return !ok;
      });
      if (failed.length === 0) continue;
      const start = Math.max(context.length, Math.min(...members.map((c) => c.start)));
      let end = Math.max(...members.map((c) => c.end));
      // "9 p.m." ending a sentence: its last period is the sentence's too, and stays.
      if (full[end - 1] === '.') end--;
      if (end > start) cuts.push({ start, end, mark: unconfirmedMark(failed[0]!.cls, members.length > 1) });
    }
    if (cuts.length === 0) return seg;
    let out = '';
    let at = context.length;
    for (const cut of cuts.sort((a, b) => a.start - b.start)) {
      if (cut.start < at) continue;
      out += full.slice(at, cut.start) + cut.mark;
      at = cut.end;
    }
    return out + full.slice(at);
  };

  /** The segment ends at `end` of `buf`: judged if it held a trigger, and the next one starts. */
  const endSegment = (end: number): string => {
    const seg = buf.slice(0, end);
    // A segment that arrived and ended within one push was never tested for a trigger: test it now.
    const out = triggered || triggers(seg) ? judge(seg) : seg;
    buf = buf.slice(end);
    scan = 0;
    context = '';
    triggered = false;
    return out;
  };

  /** Releases the first `upTo` characters of an untriggered segment. */
  const release = (upTo: number): string => {
    if (upTo <= 0) return '';
    const out = buf.slice(0, upTo);
    buf = buf.slice(upTo);
    scan = Math.max(0, scan - upTo);
    // Kept to at most twice its length: trimmed now and then, not copied on every delta.
    context += out;
    if (context.length > 2 * CONTEXT) context = context.slice(-CONTEXT);
    return out;
  };

  /** How much of an untriggered `buf` may leave: all but a trailing word that could begin a claim. */
  const safePoint = (): number => {
    let end = buf.length;
    // A word still arriving: held only while it could grow into a month, a season, noon or midnight.
    let start = end;
    while (start > 0 && isLetter(buf[start - 1]!)) start--;
    if (start < end) return mayLeadIn(buf, start, end, true) ? start : end;
    // A finished month or season (maybe "Oct."), or a "(" or "+", waits for what follows it.
    while (end > 0 && (buf[end - 1] === ' ' || buf[end - 1] === '\t')) end--;
    const last = buf[end - 1];
    if (last === '(' || last === '+') return end - 1;
    if (last === '.') end--;
    start = end;
    while (start > 0 && isLetter(buf[start - 1]!)) start--;
    return mayLeadIn(buf, start, end, false) ? start : buf.length;
  };

  /** Is the character before `i` of `buf` the end of a sentence (an end mark, maybe closers, not an abbreviation)? */
  const endsSentence = (i: number): boolean => {
    let j = i - 1;
    while (j >= 0 && CLOSERS.has(buf[j]!)) j--;
    if (j < 0) return false;
    const mark = buf[j]!;
    if (mark !== '.' && mark !== '!' && mark !== '?') return false;
    if (mark !== '.') return true;
    const before = (context + buf.slice(0, j + 1)).slice(-12);
    return !ABBREVIATION.test(before);
  };

  /** A cut for an over-long held segment: the last space with no digit within 16 characters. */
  const forcedCut = (): number => {
    for (let i = buf.length - 17; i > 16; i--) {
      if (isSpace(buf[i]!) && !/\d/.test(buf.slice(i - 16, i + 17))) return i;
    }
    return buf.length - 64;
  };

  const process = (final: boolean): string => {
    let out = '';
    for (;;) {
      if (lineStart) {
        if (!buf) return out;
        const nl = buf.indexOf('\n');
        if (nl === -1 && !final && buf.length < 8 && MAYBE_PREFIX.test(buf)) return out;
        const prefix = LINE_PREFIX.exec(buf)![0];
        out += prefix;
        buf = buf.slice(prefix.length);
        table = buf.trimStart().startsWith('|');
        lineStart = false;
        scan = 0;
        context = '';
        triggered = false;
      }
      let ended = false;
      for (let i = scan; i < buf.length; i++) {
        const c = buf[i]!;
        if (c === '\n') {
          out += endSegment(i) + '\n';
          buf = buf.slice(1);
          lineStart = true;
          ended = true;
          break;
        }
        if (!table && i > 0 && isSpace(c) && endsSentence(i)) {
          out += endSegment(i);
          ended = true;
          break;
        }
      }
      if (ended) continue;
      scan = buf.length;
      if (!triggered && triggers(buf)) triggered = true;
      if (triggered) {
        if (final) return out + endSegment(buf.length);
        if (buf.length > MAX_HELD) {
          out += endSegment(forcedCut());
          continue;
        }
        return out;
      }
      return out + release(final ? buf.length : safePoint());
    }
  };

  return {
    push(text) {
      buf += text;
      return process(false);
    },
    flush() {
      const out = process(true);
      lineStart = true;
      return out;
    },
    reset() {
      buf = '';
      scan = 0;
      context = '';
      lineStart = true;
      triggered = false;
      checked = 0;
      unverified = 0;
      byClass.clear();
      unconfirmed.clear();
    },
    get checked() {
      return checked;
    },
    get unverified() {
      return unverified;
    },
    byClass,
    unconfirmed,
  };
}
