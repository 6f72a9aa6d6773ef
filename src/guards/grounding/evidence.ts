/**
 * A turn's evidence (issue 45): what its tools returned (raw, every pass), the student's message, the
 * history sent, the service's own facts (the prompt's campus date and time and the user's recalled
 * facts, the configured phone numbers, kept as a nameless subject of their own, the coming week's dates) as facts read by the one claim reader
 * (claims.ts). Tool results are read by their shapes in tool-results.ts (JSON field by field, a dining
 * list's places block by block), into the facts kept here (EvidenceReader, the FactSink).
 *
 * Facts of a subject (a dining place's block, a course, a bus route: subjects.ts) are also kept apart,
 * so a sentence that names its subject is checked against that subject's facts and the evidence no
 * subject owns (the student's message, the prompt, results without subjects), not against every other
 * place's hours.
 *
 * Reading is lazy: texts are queued and read the first time a claim is checked, so an answer that
 * states nothing checkable costs nothing here.
 */
import type { Catalog } from '../../campus/catalog.js';
import { readClaims, type Claim } from './claims.js';
import { ANY_BUILDING, calendarDates, classOf, fact, isBound, numberOf, onDay, roomOf, termYear, valueOf, type Fact, type FactClass } from './facts.js';
import { askedMoments, bindTimes, readDays, statedHours } from './days.js';
import { SubjectFacts, type Mention } from './subject-facts.js';
import { readToolResult, type FactSink } from './tool-results.js';
import { kindOf } from './subjects.js';

export interface Evidence {
  /** Text whose atoms count as evidence: the system prompt. */
  addText(text: string): void;
  /**
   * One of the service's own facts (a configured phone number): evidence, kept as a subject nobody names,
   * so it holds a claim bound to no guide section's topic but not one bound to another office's
   * ("UHS: 412-268-2922" is the counseling number told for UHS).
   */
  addServiceFact(text: string): void;
  /**
   * A person's words (a history item): evidence, except that hours they state ("open until 11 PM") no
   * longer hold a claim where this turn's tools gave times (issue 59: tools outrank words).
   */
  addWords(text: string): void;
  /**
   * The student's message: a person's words (addWords), and a time it names for no day ("what's open
   * before 8am?") is the moment asked about, which an answer may echo for the day it answers about.
   */
  addQuestion(text: string): void;
  /** A tool's raw result: JSON read field by field, anything else as text. */
  addToolResult(text: string): void;
  /**
   * The campus calendar from the prompt's date (YYYY-MM-DD) to `days` days after it: a date of it holds
   * only as the date of a weekday the answer names beside it ("Saturday, December 5", "tomorrow (11/30)"),
   * never as an event's date no tool gave (issue 73, item 5). Computed only if a claim is ever checked.
   */
  addCalendar(isoDate: string, days: number): void;
  /**
   * Does some evidence hold this claim? With `subjects` (those its sentence binds it to), only their
   * facts and the evidence no subject owns count.
   */
  holds(claim: Claim, subjects?: readonly string[]): boolean;
  /**
   * `holds`, and why not: a claim bound to days (`claim.days`) is held only by the facts of those days
   * wherever a tool gave that day's hours (for a subject whose tool gave any day's hours, on every day),
   * and by the unbound rule for a day no tool spoke of. A claim
   * bound to subjects is held only by their facts: by the facts read with all of them at once where the
   * tools nest them (a route's waits at one stop's direction, a course's section), else by any of theirs.
   * `carried` are subjects the text before named (a heading, a lead line, the sentence before): each
   * binds the claim only if its facts hold values of the claim's class. 'misbound': not held for its
   * binding, but true elsewhere (another day, place, section or direction).
   */
  check(claim: Claim, subjects?: readonly string[], carried?: readonly string[]): ClaimOutcome;
  /** Where `text` names subjects of the evidence (by alias, or by a course or route claim of `claims`), in text order. */
  mentionsOf(text: string, claims: readonly Claim[]): Mention[];
  /** Did a tool report a bus wait this turn (so "in 4 minutes" is a wait in any sentence)? */
  hasWaits(): boolean;
}

/** How a claim fared against the evidence. */
export type ClaimOutcome = 'held' | 'unverified' | 'misbound';

/** What the evidence was given, in order, until it is read. */
/** `words`: a person's (the student's message, the history), outranked by this turn's tools (issue 59). */
/** `service`: the service's own fact (addServiceFact). */
type Queued = { text: string; tool: boolean; question?: boolean; words?: boolean; service?: boolean } | { calendar: string; days: number };

/** The subject the service's own facts are read as: a guide topic's kind (its facts hold a claim bound to no topic), with no name. */
const SERVICE_FACTS = 'topic:(service)';

/**
 * The evidence of one turn: every turn makes one (a class: cheap to make), and texts wait in its queue;
 * the reader, with its indexes, is made the first time a claim is checked.
 */
class TurnEvidence implements Evidence {
  private readonly queue: Queued[] = [];
  private reader: Reader | null = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly today: () => number | null,
  ) {}

  addText(text: string): void {
    if (text) this.queue.push({ text, tool: false });
  }

  addServiceFact(text: string): void {
    if (text) this.queue.push({ text, tool: false, service: true });
  }

  addWords(text: string): void {
    if (text) this.queue.push({ text, tool: false, words: true });
  }

  addToolResult(text: string): void {
    if (text) this.queue.push({ text, tool: true });
  }

  addQuestion(text: string): void {
    if (text) this.queue.push({ text, tool: false, question: true, words: true });
  }

  addCalendar(isoDate: string, days: number): void {
    this.queue.push({ calendar: isoDate, days });
  }

  holds(claim: Claim, subjects?: readonly string[]): boolean {
    return this.read().check(claim, subjects) === 'held';
  }

  check(claim: Claim, subjects?: readonly string[], carried?: readonly string[]): ClaimOutcome {
    return this.read().check(claim, subjects, carried);
  }

  mentionsOf(text: string, claims: readonly Claim[]): Mention[] {
    return this.read().mentionsOf(text, claims);
  }

  hasWaits(): boolean {
    return this.read().hasWaits();
  }

  /** The reader, with everything queued so far read into it. */
  private read(): Reader {
    this.reader ??= new EvidenceReader(this.catalog, this.today());
    while (this.queue.length > 0) this.reader.read(this.queue.shift()!);
    return this.reader;
  }
}

/**
 * Creates the evidence of one turn; `catalog` resolves buildings named in results, `today` is the
 * campus weekday (0 Sunday; null when unknown) that "today" and "tonight" name, asked only once read.
 */
export function createEvidence(catalog: Catalog, today: () => number | null = () => null): Evidence {
  return new TurnEvidence(catalog, today);
}

/** The facts read so far, and how to read more. */
interface Reader extends Pick<Evidence, 'check' | 'mentionsOf' | 'hasWaits'> {
  read(item: Queued): void;
}

const CLOSED = /\bclosed\b/i;
/** The classes a subject has one value of (its units, its room, its floor, its price): what its tool facts outrank. */
const SUBJECT_VALUES: ReadonlySet<string> = new Set(['units', 'room', 'floor', 'price', 'wait']);
/** 11:59 PM is what a student calls midnight. */
const MINUTE_TO_MIDNIGHT = fact.time(1439);
const MIDNIGHT = fact.time(0);

/** One turn's facts: every fact, by the subject that owns it, and how claims are checked against them. */
class EvidenceReader implements Reader, FactSink {
  /** Every fact. */
  private readonly facts = new Set<Fact>();
  /** Every fact by what it is about. */
  private readonly subjects = new SubjectFacts();
  private waits = false;
  /** Read from a tool, not from words (the student's message, the history, the prompt): what qualifies a day. */
  private fromTool = false;
  /** Reading a person's words (the student's message, the history). */
  private fromWords = false;
  /** Keys some source other than a person's words gave (a tool, the prompt, the service's facts). */
  private readonly told = new Set<Fact>();
  /** Keys of times a person's words stated as hours (days.ts statedHours). */
  private readonly stated = new Set<Fact>();
  /** A tool gave a time this turn. */
  private toolTimes = false;
  /** Times given somewhere without a day of a tool's line (a moment, words, a line naming no day): see `outcome`. */
  private readonly dayless = new Set<Fact>();
  /** The coming week's dates by their weekday (addCalendar). */
  private calendar = new Map<Fact, number>();
  /** Adding the keys of a time a tool's line bound to its days. */
  private dayBound = false;
  fetchedAt: number | null = null;

  constructor(
    private readonly catalog: Catalog,
    private readonly today: number | null,
  ) {}

  read(item: Queued): void {
    if ('calendar' in item) {
      const { dates, years } = calendarDates(item.calendar, item.days);
      for (const [date, weekday] of dates) this.calendar.set(date, weekday);
      for (const year of years) this.add(fact.year(year));
    } else if (item.service) this.subjects.within(SERVICE_FACTS, [], () => this.readText(item.text));
    else if (item.tool) {
      this.fromTool = true;
      try {
        readToolResult(item.text, this, this.catalog);
      } finally {
        this.fromTool = false;
        this.subjects.enter([]);
      }
    } else {
      this.fromWords = item.words === true;
      try {
        this.readText(item.text);
      } finally {
        this.fromWords = false;
      }
      if (item.words) {
        const times = readClaims(item.text, { catalog: this.catalog, mode: 'evidence' }).filter((c) => c.cls === 'time');
        if (item.question) for (const k of askedMoments(item.text, times)) this.add(onDay(k, 'asked'));
        for (const k of statedHours(item.text, times)) this.stated.add(k);
      }
    }
  }

  within(subject: string | null, names: readonly string[], read: () => void): void {
    this.subjects.within(subject, names, read);
  }

  addKey(key: Fact): void {
    this.add(key);
    const cls = classOf(key);
    if (key === MINUTE_TO_MIDNIGHT) this.add(MIDNIGHT);
    if (cls === 'room') {
      const room = roomOf(key);
      if (!room) return;
      // A room holds its number in any building's name for it, and its floor (the first digit at CMU-style numbering).
      this.add(fact.room(ANY_BUILDING, room.number));
      const floor = /^(\d)\d{2,3}[A-Z]?$/.exec(room.number);
      if (floor) this.add(fact.floor(floor[1]!));
    } else if (cls === 'term') {
      // "Spring 2027" states its year: a date "1/19/2027" holds with "January 19" beside it.
      const year = termYear(key);
      if (year !== null) this.add(fact.year(year));
    } else if (cls === 'wait-sec') {
      this.waits = true;
      // `minutes` is ceil(seconds / 60) at the tool server; a model may also round or floor.
      const s = numberOf(key);
      for (const m of new Set([Math.ceil(s / 60), Math.floor(s / 60), Math.round(s / 60)])) {
        this.add(fact.wait('wait-min', m));
        // "Around 4:15 PM": the clock time a wait comes to, from when the predictions were fetched.
        if (this.fetchedAt !== null) this.add(fact.time((this.fetchedAt + m) % 1440));
      }
    } else if (cls === 'wait-min') {
      this.waits = true;
      if (this.fetchedAt !== null) this.add(fact.time((this.fetchedAt + numberOf(key)) % 1440));
    } else if (cls === 'phone') this.add(fact.phone7(valueOf(key).slice(3)));
  }

  readText(text: string, hours = true): void {
    const claims = readClaims(text, { catalog: this.catalog, mode: 'evidence' });
    const bound = hours ? this.readDayTimes(text, claims) : null;
    for (const c of claims) {
      this.dayBound = bound?.has(c) === true;
      for (const k of c.keys) this.addKey(k);
      for (const k of c.fallback ?? []) this.addKey(k);
    }
    this.dayBound = false;
  }

  readDayLine(line: string): void {
    this.readDayTimes(line);
  }

  check(claim: Claim, named: readonly string[] = [], carried: readonly string[] = []): ClaimOutcome {
    const cls: FactClass | null = claim.keys[0] ? classOf(claim.keys[0]) : null;
    // A subject carried from the text before binds only a claim of a class its facts hold ("It closes
    // at 9 PM" after the place's heading; not "the bus comes in 4 minutes" after it).
    // A term names a schedule's term itself ("Spring 2027"): it binds to no subject. A room binds only
    // its floor ("GHC 6115 is on the 4th floor"), not the times and rooms said beside it.
    // A guide section's topic binds only a claim of a class its text holds ("UHS: 412-268-2922" binds the
    // phone to UHS's section; "UHS accepts DineXtra at $5.50" leaves the price to the rule for no subject).
    const binds = (s: string) => {
      const kind = kindOf(s);
      return kind === 'space' ? cls === 'floor' : kind === 'topic' ? this.subjects.speaks(s, cls) : true;
    };
    if (cls === 'date' && this.onCalendar(claim)) return 'held';
    const subjects = cls === 'term' ? [] : [...new Set([...named, ...carried.filter((s) => this.subjects.speaks(s, cls))])].filter(binds);
    if (subjects.length === 0) return this.outcome(claim, (k) => this.facts.has(k), undefined);
    const outcome = this.outcome(claim, this.subjects.holderOf(subjects), subjects);
    // Not held for its subjects, but for another's: true elsewhere.
    if (outcome === 'unverified' && this.outcome(claim, (k) => this.facts.has(k), undefined) !== 'unverified') return 'misbound';
    return outcome;
  }

  /** A date claim that is the date of a weekday its words name, in the coming week (addCalendar). */
  private onCalendar(claim: Claim): boolean {
    if (!claim.named || claim.named.length === 0 || this.calendar.size === 0) return false;
    return [...claim.keys, ...(claim.fallback ?? [])].some((k) => {
      const weekday = this.calendar.get(k);
      return weekday !== undefined && claim.named!.includes(weekday);
    });
  }

  /** The claim's outcome where `has` says which facts count (its subjects', or all). */
  private outcome(claim: Claim, has: (k: Fact) => boolean, subjects: readonly string[] | undefined): ClaimOutcome {
    // Hours only a person's words gave do not hold where the tools spoke (`outranked`).
    const unbound = (claim.keys.some(has) || (claim.fallback !== undefined && claim.fallback.every(has))) && !this.outranked(claim, has, subjects);
    if (!claim.days || claim.days.length === 0) return unbound ? 'held' : 'unverified';
    // Each day it is bound to: that day's facts where a tool spoke of the day (or the moment the student
    // asked about for no day), else the unbound rule.
    // A subject whose tool gave the hours of some days ("Tuesday - Saturday: …") spoke of its week: a
    // day it left out is not a day of those hours.
    const week = subjects !== undefined && subjects.some((s) => this.subjects.speaks(s, 'day'));
    // Bound to no subject: a time the tools gave only for named days ("open 8:30 a.m. to 5 p.m. on
    // weekdays") is those days' hours, so told for another day ("on weekends") it is not held there.
    const daysOnly = subjects === undefined && claim.cls === 'time' && !claim.keys.some((k) => this.dayless.has(k));
    const ok = claim.days.every((d) => (week || daysOnly || has(fact.day(d)) ? claim.keys.some((k) => has(onDay(k, d)) || has(onDay(k, 'asked'))) : unbound));
    if (ok) return 'held';
    const elsewhere = unbound || claim.keys.some((k) => [0, 1, 2, 3, 4, 5, 6].some((d) => has(onDay(k, d))));
    return elsewhere ? 'misbound' : 'unverified';
  }

  mentionsOf(text: string, claims: readonly Claim[]): Mention[] {
    return this.subjects.mentionsOf(text, claims);
  }

  hasWaits(): boolean {
    return this.waits;
  }

  private add(key: Fact): void {
    const time = classOf(key) === 'time';
    if (!this.dayBound && time && !isBound(key)) this.dayless.add(key);
    this.facts.add(key);
    this.subjects.add(key);
    if (!this.fromWords) this.told.add(key);
    if (this.fromTool && time) this.toolTimes = true;
  }

  /**
   * Tools outrank words (issue 59): a claim held only by hours a person's words stated (the student's
   * "open until 11 tonight?", an earlier answer's "until 11 PM") is not held where this turn's tools
   * gave times; nor is any other value (units, a room, a price) held only by words where the tools gave
   * a value of its class for the subject its sentence names. A moment the student asked about may still
   * be echoed, and a time of the student's own ("my class ends at 4:30") is theirs.
   */
  private outranked(claim: Claim, has: (k: Fact) => boolean, subjects: readonly string[] | undefined): boolean {
    const holders = claim.keys.filter(has);
    if (holders.length === 0 || holders.some((k) => this.told.has(k))) return false;
    if (claim.keys.some((k) => has(onDay(k, 'asked')))) return false;
    // A time: only hours the words stated (a student's own times, "my class ends at 4:30", stay theirs).
    if (claim.cls === 'time') return this.toolTimes && holders.every((k) => this.stated.has(k));
    // A subject's own values; a course, a route or a date the student names is theirs to name.
    if (!SUBJECT_VALUES.has(claim.cls)) return false;
    const cls = classOf(claim.keys[0]!);
    return (subjects ?? []).some((s) => this.subjects.hasValue(s, cls));
  }

  /**
   * A tool's times of each line bound to the days the line names ("- Monday: 10:30 AM - 7:00 PM", "Monday -
   * Friday: 7:30 AM - 2:00 PM | Saturday - Sunday: 11:00 AM - 8:00 PM"): each time on its days (`onDay`), and `fact.day`
   * for each day it gave hours (or "Closed") for, so a claim bound to that day needs that day's facts.
   * Returns the time claims it bound to days.
   */
  private readDayTimes(text: string, claims?: readonly Claim[]): Set<Claim> {
    const bound = new Set<Claim>();
    // Words (the student's, the history's) never qualify a day: where a tool spoke of a day, the tool is
    // what holds that day's times, and where none did the unbound rule reads the words as before.
    if (!this.fromTool) return bound;
    // The claims the text was read into (read here only for a text not read yet), line by line.
    const read = claims ?? readClaims(text, { catalog: this.catalog, mode: 'evidence' });
    let start = 0;
    for (const line of text.split('\n')) {
      const end = start + line.length;
      const days = readDays(line, this.today);
      if (days.length > 0) {
        const inLine = read.filter((c) => c.cls === 'time' && c.start >= start && c.end <= end);
        const times = inLine.map((c) => ({ ...c, start: c.start - start, end: c.end - start }));
        bindTimes(line, times, this.today).forEach((days, i) => {
          if (days && days.length > 0) bound.add(inLine[i]!);
          for (const d of days ?? []) {
            for (const k of times[i]!.keys) this.add(onDay(k, d));
            this.add(fact.day(d));
          }
        });
        if (CLOSED.test(line)) for (const d of days) for (const day of d.days) this.add(fact.day(day));
      }
      start = end + 1;
    }
    return bound;
  }
}
