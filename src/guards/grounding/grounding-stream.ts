/**
 * The grounding check as the answer streams (issue 45): every hour, room, course number, phone number,
 * price, date, route or wait the answer states is checked against the turn's evidence before it leaves,
 * and one that no evidence holds is replaced in place by a mark ("(time not confirmed)").
 *
 * The answer is cut into segments by segments.ts (a sentence, or a table row; held only from a claim's
 * trigger on); here each segment that may hold a claim is judged: its claims read (claims.ts), bound to
 * their days (days.ts, table-days.ts) and subjects (subject-facts.ts), checked against the evidence, and
 * the ones it does not hold marked. An answer with no claims streams as before.
 */
import type { Catalog } from '../../campus/catalog.js';
import { readClaims, type Claim, type ClaimClass } from './claims.js';
export type { ClassCounts, GroundingCounts } from './tally.js';
import { daysBeside, readBindings } from './days.js';
import type { Evidence } from './evidence.js';
import { Tally, type ClassCounts, type Counts } from './tally.js';
import { boundSubjects, boundSubjectSets, clauseBreaks, valueLists, type Mention } from './subject-facts.js';
import { unconfirmedMark } from './grounding-note.js';
import { kindOf } from './subjects.js';
import { TableDays } from './table-days.js';
import { CONTEXT, Segmenter, type Segment, type SegmentJudge } from './segments.js';

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
class Grounding extends Tally implements GroundingStream, SegmentJudge {
  /** Cuts the answer into the segments judged here (segments.ts). */
  private readonly segments = new Segmenter(this);
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
  private deferred: { seg: string; context: string; heading: boolean; counts: Counts } | null = null;
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
    return this.segments.push(text);
  }

  flush(): string {
    let out = this.segments.flush();
    if (this.deferred) {
      // No sentence followed: the held one is judged alone, as it was.
      const { seg, context, heading, counts } = this.deferred;
      this.deferred = null;
      this.restore(counts);
      out += this.judge(seg, context, heading, false);
    }
    return out;
  }

  reset(): void {
    this.segments.reset();
    this.carry.clear();
    this.written.clear();
    this.pending = [];
    this.deferred = null;
    this.clear();
  }

  /** A line of the answer ended (segments.ts): a table row's header may bind the rows below. */
  line(row: string | null): void {
    this.tables.line(row, this.today);
  }

  /**
   * A segment ended (segments.ts): judged if it may hold a claim, else kept for the subjects it names. A
   * sentence whose only marks are hours of several days true on some of them is held for the next one
   * (`deferred`), and then the next segment is held to its end too.
   */
  end({ text, context, triggered, sentence, heading, table }: Segment): { out: string; holdNext: boolean } {
    if (this.deferred) {
      // The held sentence and this one, judged together, counted once.
      const held = this.deferred;
      this.deferred = null;
      this.restore(held.counts);
      return { out: this.judge(held.seg + text, held.context, heading, table), holdNext: false };
    }
    if (triggered) {
      const counts = sentence && !table ? this.snapshot() : null;
      const out = this.judge(text, context, heading, table);
      if (counts && this.narrowable) {
        this.deferred = { seg: text, context, heading, counts };
        return { out: '', holdNext: true };
      }
      return { out, holdNext: false };
    }
    // What left of it already is in `context`.
    if (NON_SPACE.test(text) || NON_SPACE.test(context)) this.remember(context + text, heading);
    return { out: text, holdNext: false };
  }

  /**
   * Each time claim's days: those its sentence binds it to (days.ts), else those the student asked about;
   * each date claim's named days: those written right beside it ("Saturday, December 5", "12/5 (Sat)").
   */
  private bind(full: string, claims: readonly Claim[], table: boolean): void {
    for (const c of claims) {
      if (c.cls !== 'date') continue;
      const named = daysBeside(full, c.start, c.end, this.today);
      if (named.length > 0) c.named = named;
    }
    const times = claims.filter((c) => c.cls === 'time');
    const bound = readBindings(full, times, this.today);
    // A table row read whole from its line's start: its times bind by their column's days (table-days.ts).
    const byColumn = table && full.trimStart().startsWith('|') ? this.tables.bind(full, times, this.today) : null;
    times.forEach((c, i) => {
      const column = byColumn?.[i];
      const days = (column === undefined ? bound[i]!.days : column) ?? this.askedDays;
      if (days) c.days = days;
      if (column === undefined && bound[i]!.loose) c.loose = true;
    });
  }

  /** The held `seg` judged with `context` before it: unconfirmed claims replaced by their mark. */
  private judge(seg: string, context: string, heading: boolean, table: boolean): string {
    const { evidence } = this;
    const full = context + seg;
    const claims = readClaims(full, { catalog: this.catalog, mode: 'answer', busTurn: evidence.hasWaits() });
    if (claims.length === 0) {
      this.remember(full, heading);
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
    this.learn(mentions, heading, full);
    const breaks = mentions.length > 0 ? clauseBreaks(full) : [];
    const lists = valueLists(full, claims, mentions);
    this.bind(full, claims, table);
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
  private remember(text: string, heading: boolean): void {
    if (this.pending.length === PENDING) this.pending.shift();
    this.pending.push({ text: text.length > CONTEXT ? text.slice(-CONTEXT) : text, heading });
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
}

/**
 * Creates the grounding check of one answer over the turn's evidence; `today` is the campus weekday,
 * `askedDays` the days the student's message names (days.ts `readDays`), when known.
 */
export function createGroundingStream(options: { catalog: Catalog; evidence: Evidence; today?: number | null; askedDays?: number[] | null }): GroundingStream {
  return new Grounding(options.catalog, options.evidence, options.today ?? null, options.askedDays ?? null);
}
