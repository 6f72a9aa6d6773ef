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
import { endsSentenceAt } from '../sentence-end.js';
import type { Catalog } from '../../campus/catalog.js';
import { readClaims, type Claim, type ClaimClass } from './claims.js';
export type { ClassCounts, GroundingCounts } from './tally.js';
import { readBindings } from './days.js';
import type { Evidence } from './evidence.js';
import { Tally, type ClassCounts, type Counts } from './tally.js';
import { boundSubjects, boundSubjectSets, clauseBreaks, valueLists, type Mention } from './subject-facts.js';
import { hasTrigger, isSpace } from './triggers.js';
import { unconfirmedMark } from './grounding-note.js';
import { kindOf } from './subjects.js';
import { TableDays } from './table-days.js';
import { forcedCut, safePoint } from './hold-points.js';

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
  readonly byClass: ReadonlyMap<ClaimClass, ClassCounts>;
  /** Classes of the claims that were replaced (the closing note says where to check them). */
  readonly unconfirmed: ReadonlySet<ClaimClass>;
}

// List markers, ordered-list numbers, quotes and heading hashes at a line's start.
const LINE_PREFIX = /^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+|>[ \t]?|#{1,6}[ \t]+)*/;
// Could still grow into a line prefix ("1", "12.", "##").
const MAYBE_PREFIX = /^[ \t>*+#\d.)-]*$/;
/** A held segment longer than this is judged at a word boundary away from digits (an endless line is not held whole). */
const MAX_HELD = 1200;
/** Of the segment that already left, this much is kept as context for the held part's claims. */
const CONTEXT = 240;
const NON_SPACE = /\S/;
/** The longest place name a mark repeats ("(Tazza D'Oro's Friday hours not confirmed)"). */
const MAX_NAME = 40;
/** Segments whose subjects wait to be read (only when a later claim needs them): at most this many. */
const PENDING = 8;

/**
 * One answer's grounding, as a class: a turn makes one, and a class instance costs a hundredth of an
 * object of closures to make (measured: about 0.01 µs against 0.6 µs, on the per-turn path). Its counts
 * are its `Tally`'s (tally.ts).
 */
class Grounding extends Tally implements GroundingStream {
  /** Text of the current segment not yet released. */
  private buf = '';
  /** Where scanning for a segment end resumes in `buf`. */
  private scan = 0;
  /** The end of the segment's released text (context for claims that start before the held part). */
  private context = '';
  private lineStart = true;
  private table = false;
  private triggered = false;
  /** The line being read is a heading ("### Tazza D'Oro"). */
  private heading = false;
  /** The days of the current table's columns. */
  private readonly tables = new TableDays();
  /** The subject of each kind the text before named (a heading's place, the sentence before's), for a sentence that names none. */
  private readonly carry = new Map<string, string>();
  /** Each carried subject as the answer wrote it ("Tazza D'Oro"), for the mark of a claim bound to it by a sentence that did not name it. */
  private readonly written = new Map<string, string>();
  /** Segments that left since the last judged one, read for the subjects they name only when a claim needs them. */
  private pending: Array<{ text: string; heading: boolean }> = [];
  /**
   * A sentence held for the next one (issue 73): its only unconfirmed claims were hours said of several
   * days and true on some of them ("usually open 9 to 5 every day."), which the next sentence may
   * narrow ("On Fridays it closes at 7."). The two are judged together when the next one ends.
   */
  private deferred: { seg: string; context: string; counts: Counts } | null = null;
  /** Set by `judge`: every claim it marked was such a claim. */
  private narrowable = false;

  constructor(
    private readonly catalog: Catalog,
    private readonly evidence: Evidence,
    /** The campus weekday (0 Sunday) "today" and "tonight" name, or null. */
    private readonly today: number | null,
    /** The days the student's message names ("is it open tonight?"): a time the answer binds to no day of its own is about them. */
    private readonly askedDays: number[] | null,
  ) {
    super();
  }

  push(text: string): string {
    this.buf += text;
    return this.process(false);
  }

  flush(): string {
    let out = this.process(true);
    if (this.deferred) {
      // No sentence followed: the held one is judged alone, as it was.
      const { seg, context, counts } = this.deferred;
      this.deferred = null;
      this.restore(counts);
      this.context = context;
      out += this.judge(seg);
      this.context = '';
    }
    this.lineStart = true;
    return out;
  }


  reset(): void {
    this.buf = '';
    this.scan = 0;
    this.context = '';
    this.lineStart = true;
    this.triggered = false;
    this.carry.clear();
    this.written.clear();
    this.pending = [];
    this.deferred = null;
    this.clear();
  }

  /** A trigger in `text`, read with the released character before it (so "w" then "17" is one word). */
  private triggers(text: string): boolean {
    return hasTrigger(text, this.context[this.context.length - 1], this.context);
  }



  /** Each time claim's days: those its sentence binds it to (days.ts), else those the student asked about. */
  private bind(full: string, claims: readonly Claim[]): void {
    const times = claims.filter((c) => c.cls === 'time');
    const bound = readBindings(full, times, this.today);
    // A table row read whole from its line's start: its times bind by their column's days (table-days.ts).
    const byColumn = this.table && full.trimStart().startsWith('|') ? this.tables.bind(full, times, this.today) : null;
    times.forEach((c, i) => {
      const column = byColumn?.[i];
      const days = (column === undefined ? bound[i]!.days : column) ?? this.askedDays;
      if (days) c.days = days;
      if (column === undefined && bound[i]!.loose) c.loose = true;
    });
  }

  /** The held `seg` judged with `context` before it: unconfirmed claims replaced by their mark. */
  private judge(seg: string): string {
    const { context, evidence } = this;
    const full = context + seg;
    const claims = readClaims(full, { catalog: this.catalog, mode: 'answer', busTurn: evidence.hasWaits() });
    if (claims.length === 0) {
      this.remember(full);
      return seg;
    }
    // A claim is checked against the facts of the subjects (place, course, section, direction, route)
    // named next to it (boundSubjectSets), or, of a kind its sentence names none of, the subject the text
    // before named; and a time it binds to a day against that day's.
    this.catchUp();
    const mentions = evidence.mentionsOf(full, claims);
    const named = new Set(mentions.map((m) => kindOf(m.subject)));
    const carried = [...this.carry].filter(([kind]) => !named.has(kind)).map(([, subject]) => subject);
    // A place the sentence did not name ("It closes at 5 PM on Fridays."): a misbound claim's mark names it.
    const place = carried.find((s) => kindOf(s) === 'place');
    const placeName = place === undefined ? null : this.nameOf(place);
    this.learn(mentions, this.heading, full);
    const breaks = mentions.length > 0 ? clauseBreaks(full) : [];
    const lists = valueLists(full, claims, mentions);
    this.bind(full, claims);
    const groups = new Map<number, Claim[]>();
    for (const c of claims) groups.set(c.group, [...(groups.get(c.group) ?? []), c]);
    const cuts: Array<{ start: number; end: number; mark: string }> = [];
    this.narrowable = true;
    for (const members of groups.values()) {
      let misboundDay: number | null = null;
      let misbound = false;
      const failed = members.filter((c) => {
        // Paired with its subject by order ("La Prima and Tazza open at 7:30 AM and 8 AM"), or named
        // together with others ("La Prima and Tazza open at 8 AM"): then it must hold for each, the first
        // that fails deciding.
        const pair = lists.paired.get(c.group);
        const sets = pair
          ? [[...boundSubjects(full, c.start, c.end, mentions, breaks).filter((s) => kindOf(s) !== kindOf(pair)), pair]]
          : boundSubjectSets(full, c.start, c.end, mentions, breaks, lists.listed.has(c.group));
        const outcomes = sets.map((subjects) => evidence.check(c, subjects, carried));
        const outcome = outcomes.find((o) => o !== 'held') ?? 'held';
        // Bound to its days by a structure not understood: a value its subjects hold on some day is kept, and counted (issue 73).
        if (outcome === 'misbound' && c.loose && sets.every((subjects) => evidence.check({ ...c, days: undefined }, subjects, carried) === 'held')) {
          this.count(c.cls, 'held', true);
          return false;
        }
        this.count(c.cls, outcome);
        if (outcome === 'misbound') misbound = true;
        if (outcome === 'misbound' && c.days?.length === 1) misboundDay = c.days[0]!;
        if (outcome !== 'held' && !(outcome === 'misbound' && c.cls === 'time' && (c.days?.length ?? 0) >= 2)) this.narrowable = false;
        return outcome !== 'held';
      });
      if (failed.length === 0) continue;
      const start = Math.max(context.length, Math.min(...members.map((c) => c.start)));
      let end = Math.max(...members.map((c) => c.end));
      // "9 p.m." ending a sentence: its last period is the sentence's too, and stays ("… 5 p.m. on
      // weekends" keeps none: the period is the claim's).
      if (full[end - 1] === '.' && /^\s*$/.test(full.slice(end))) end--;
      if (end > start) cuts.push({ start, end, mark: unconfirmedMark(failed[0]!.cls, members.length > 1, misboundDay, misbound ? placeName : null) });
    }
    if (cuts.length === 0) {
      this.narrowable = false;
      return seg;
    }
    let out = '';
    let at = context.length;
    for (const cut of cuts.sort((a, b) => a.start - b.start)) {
      if (cut.start < at) continue;
      out += full.slice(at, cut.start) + cut.mark;
      at = cut.end;
    }
    return out + full.slice(at);
  }

  /** Keeps a segment that left unjudged, to read the subjects it names if a later claim needs them. */
  private remember(text: string): void {
    if (this.pending.length === PENDING) this.pending.shift();
    this.pending.push({ text: text.length > CONTEXT ? text.slice(-CONTEXT) : text, heading: this.heading });
  }

  /** Reads the subjects of the segments that left unjudged into `carry`. */
  private catchUp(): void {
    for (const p of this.pending) this.learn(this.evidence.mentionsOf(p.text, []), p.heading, p.text);
    this.pending = [];
  }

  /** The last subject of each kind `mentions` name is what follows is about; a heading starts afresh. */
  private learn(mentions: readonly Mention[], heading: boolean, text: string): void {
    if (heading) {
      this.carry.clear();
      this.written.clear();
    }
    // A guide's topic binds only where it is named (subject-facts.ts `pick`): it is never carried.
    for (const m of mentions) {
      if (kindOf(m.subject) === 'topic') continue;
      this.carry.set(kindOf(m.subject), m.subject);
      this.written.set(m.subject, text.slice(m.start, m.end));
    }
  }

  /** A carried subject's name as the answer wrote it, plain and short, or null. */
  private nameOf(subject: string): string | null {
    const name = (this.written.get(subject) ?? '').replace(/[*_`#]/g, '').replace(/\s+/g, ' ').trim();
    return name.length > 0 && name.length <= MAX_NAME ? name : null;
  }

  /**
   * The segment ends at `end` of `buf`: judged if it held a trigger, and the next one starts. `sentence`:
   * it ends a sentence within its line, so it may be held for the next (`deferred`).
   */
  private endSegment(end: number, sentence = false): string {
    let seg = this.buf.slice(0, end);
    // A segment that arrived and ended within one push was never tested for a trigger: test it now.
    let out = seg;
    let defer = false;
    if (this.deferred) {
      // The held sentence and this one, judged together, counted once.
      const held = this.deferred;
      this.deferred = null;
      this.restore(held.counts);
      this.context = held.context;
      seg = held.seg + seg;
      out = this.judge(seg);
    } else if (this.triggered || this.triggers(seg)) {
      const counts = sentence && !this.table ? this.snapshot() : null;
      const context = this.context;
      out = this.judge(seg);
      if (counts && this.narrowable) {
        this.deferred = { seg, context, counts };
        out = '';
        defer = true;
      }
    } else {
      // What left of it already is in `context`.
      if (NON_SPACE.test(seg) || NON_SPACE.test(this.context)) this.remember(this.context + seg);
    }
    this.buf = this.buf.slice(end);
    this.scan = 0;
    this.context = '';
    // The sentence after a held one is held too, to its end: nothing leaves before the held text.
    this.triggered = defer;
    return out;
  }

  /** Releases the first `upTo` characters of an untriggered segment. */
  private release(upTo: number): string {
    if (upTo <= 0) return '';
    const out = this.buf.slice(0, upTo);
    this.buf = this.buf.slice(upTo);
    this.scan = Math.max(0, this.scan - upTo);
    // Kept to at most twice its length: trimmed now and then, not copied on every delta.
    this.context += out;
    if (this.context.length > 2 * CONTEXT) this.context = this.context.slice(-CONTEXT);
    return out;
  }

  /** Is the character before `i` of `buf` the end of a sentence (sentence-end.ts: an end mark, maybe closers, not an abbreviation)? */
  private endsSentence(i: number): boolean {
    return endsSentenceAt(this.buf, i, this.context);
  }



  private process(final: boolean): string {
    let out = '';
    for (;;) {
      if (this.lineStart) {
        if (!this.buf) return out;
        const nl = this.buf.indexOf('\n');
        if (nl === -1 && !final && this.buf.length < 8 && MAYBE_PREFIX.test(this.buf)) return out;
        const prefix = LINE_PREFIX.exec(this.buf)![0];
        this.heading = prefix.includes('#');
        out += prefix;
        this.buf = this.buf.slice(prefix.length);
        this.table = this.buf.trimStart().startsWith('|');
        this.lineStart = false;
        this.scan = 0;
        this.context = '';
        this.triggered = false;
      }
      let ended = false;
      for (let i = this.scan; i < this.buf.length; i++) {
        const c = this.buf[i]!;
        if (c === '\n') {
          // A table's rows: its header's days bind the rows below (table-days.ts); kept whole only from the line's start.
          const row = this.table ? this.context + this.buf.slice(0, i) : null;
          this.tables.line(row === null ? null : row.trimStart().startsWith('|') ? row : '', this.today);
          out += this.endSegment(i) + '\n';
          this.buf = this.buf.slice(1);
          this.lineStart = true;
          ended = true;
          break;
        }
        if (!this.table && i > 0 && isSpace(c) && this.endsSentence(i)) {
          out += this.endSegment(i, true);
          ended = true;
          break;
        }
      }
      if (ended) continue;
      this.scan = this.buf.length;
      if (!this.triggered && this.triggers(this.buf)) this.triggered = true;
      if (this.triggered) {
        if (final) return out + this.endSegment(this.buf.length);
        if (this.buf.length > MAX_HELD) {
          out += this.endSegment(forcedCut(this.buf));
          continue;
        }
        return out;
      }
      return out + this.release(final ? this.buf.length : safePoint(this.buf));
    }
  }
}

/**
 * Creates the grounding check of one answer over the turn's evidence; `today` is the campus weekday,
 * `askedDays` the days the student's message names (days.ts `readDays`), when known.
 */
export function createGroundingStream(options: { catalog: Catalog; evidence: Evidence; today?: number | null; askedDays?: number[] | null }): GroundingStream {
  return new Grounding(options.catalog, options.evidence, options.today ?? null, options.askedDays ?? null);
}
