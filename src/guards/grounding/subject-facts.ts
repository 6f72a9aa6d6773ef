/**
 * A turn's facts by what they are about (issue 59): each fact read inside a subject's block or object
 * (subjects.ts) belongs to that subject, and to every set of subjects read at once (a route's group
 * inside a stop's direction belongs to `dir:inbound`, `route:61D` and `dir:inbound+route:61D`), so a
 * claim bound to both is held only by what holds for both. Sections, terms and directions qualify what they
 * sit in: read inside a course (a course's lecture) or around a route, their facts are that course's or
 * route's too; read with nothing around them (a schedule result with no `courseID`), their facts still
 * hold a claim bound to a course or a place, but never one bound to another section or direction.
 *
 * It also finds where a text names the subjects: the aliases the readers gave, as one pattern.
 */
import { crossesSentence } from '../sentence-end.js';
import type { Claim } from './claims.js';
import { ANY_BUILDING, classOf, isBound, roomOf, valueOf, type Fact, type FactClass } from './facts.js';
import { aliasesPattern, courseSubject, fold, kindOf, phrase, routeSubject, spaceSubject } from './subjects.js';

/** A subject named in a text, and where. */
export interface Mention {
  subject: string;
  start: number;
  end: number;
}

/** Where a clause ends inside a sentence: what binds a claim to the subject named next to it. */
const CLAUSE_BREAK = /[;,]\s|\s(?:and|but|while|whereas)\s/gi;

/** The clause breaks of `text`, each as [where it starts, where the next clause starts]. */
export const clauseBreaks = (text: string): Array<[number, number]> => [...text.matchAll(CLAUSE_BREAK)].map((m) => [m.index!, m.index! + m[0].length]);

/** A capitalised word: a name the subjects may not know. */
const OTHER_NAME = /\b[A-Z][A-Za-z]/;

/** A mention picked for a claim, and whether it stands in the claim's own clause. */
interface Picked {
  mention: Mention;
  inClause: boolean;
}

/**
 * The subject of each kind `mentions` name that a claim at [start, end) of `text` is about: the one
 * named nearest before it in its clause, else after it in its clause ("in 4 minutes inbound"), else
 * nearest before it in the text ("La Prima opens at 7:30 AM, and Tazza D'Oro at 8 AM": 8 AM is
 * Tazza's). A kind named only in a later clause does not bind it, and a guide's topic only in its own clause.
 */
function pick(text: string, start: number, end: number, mentions: readonly Mention[], breaks: Array<[number, number]>): Picked[] {
  let from = 0;
  let to = text.length;
  for (const [at, after] of breaks) {
    if (after <= start) from = after;
    else if (at >= end) {
      to = at;
      break;
    }
  }
  const byKind = new Map<string, Mention[]>();
  for (const m of mentions) byKind.set(kindOf(m.subject), [...(byKind.get(kindOf(m.subject)) ?? []), m]);
  const before = (ms: readonly Mention[]) => ms.filter((m) => m.end <= start).at(-1);
  const out: Picked[] = [];
  for (const [kind, ms] of byKind) {
    const clause = ms.filter((m) => m.start >= from && m.end <= to);
    const own = before(clause) ?? clause.find((m) => m.start >= start);
    // A guide's topic binds only in the claim's clause with no other name between them: a guide's
    // passage names offices and people the tools give no section of ("call CaPS or University Police
    // at 412-268-2323").
    if (kind === 'topic') {
      if (own && !OTHER_NAME.test(own.end <= start ? text.slice(own.end, start) : text.slice(end, own.start))) out.push({ mention: own, inClause: true });
      continue;
    }
    const mention = own ?? before(ms);
    if (mention) out.push({ mention, inClause: own !== undefined });
  }
  return out;
}

export function boundSubjects(text: string, start: number, end: number, mentions: readonly Mention[], breaks = clauseBreaks(text)): string[] {
  return mentions.length === 0 ? [] : pick(text, start, end, mentions, breaks).map((p) => p.mention.subject);
}

/** Between two subjects named as one: "La Prima and Tazza", "A, B and C", "X & Y", "X/Y". */
const JOINED = /^\s*(?:,\s*(?:and\s+|&\s*)?|and\s+|&\s*|\/\s*)$/i;
const RESPECTIVELY = /\brespectively\b/i;

/**
 * The sets of subjects a claim must hold for: `boundSubjects`, and when the subject in its own clause
 * was named together with others of its kind ("Both La Prima and Tazza D'Oro open at 8 AM"), the same
 * with each of those in its place, so the claim is held only if it holds for every one of them. Not
 * for a claim that is one of a list of values (`listed`, from `valueLists`: the values pair off with
 * the subjects, "open at 7:30 AM and 8 AM"), nor where the sentence says so ("…, respectively").
 */
export function boundSubjectSets(
  text: string,
  start: number,
  end: number,
  mentions: readonly Mention[],
  breaks = clauseBreaks(text),
  listed = false,
): string[][] {
  if (mentions.length === 0) return [[]];
  const picked = pick(text, start, end, mentions, breaks);
  const base = picked.map((p) => p.mention.subject);
  const sets = [base];
  if (listed || RESPECTIVELY.test(text)) return sets;
  picked.forEach((p, i) => {
    if (!p.inClause) return;
    const kind = kindOf(p.mention.subject);
    const same = mentions.filter((m) => kindOf(m.subject) === kind);
    const at = same.indexOf(p.mention);
    const joined: Mention[] = [];
    for (let k = at; k > 0 && JOINED.test(text.slice(same[k - 1]!.end, same[k]!.start)); k--) joined.push(same[k - 1]!);
    for (let k = at; k < same.length - 1 && JOINED.test(text.slice(same[k]!.end, same[k + 1]!.start)); k++) joined.push(same[k + 1]!);
    for (const other of new Set(joined.map((m) => m.subject))) if (other !== p.mention.subject) sets.push(base.map((s, k) => (k === i ? other : s)));
  });
  return sets;
}

/** A section's bare letter where a list of sections puts it, before a day or a time (see `bareSections`). */
const BARE_SECTION =
  /(?:^|[;,\n]|\band\b)[ \t]*(?:[-*•][ \t]*)?([A-Z])(?=[ \t]*(?::|\(|\bis\b|\bmeets\b)[ \t]*(?:on[ \t]+)?(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun|M\b|Tu\b|W\b|Th\b|R\b|F\b|Sa\b|Su\b|\d))/g;

/** The lists of values of a text, and the subject each paired one belongs to. */
export interface ValueLists {
  /** Claim groups that are one of a list of values of their class ("7:30 AM and 8 AM"). */
  listed: Set<number>;
  /** Of them, each group paired with a subject by order (below). */
  paired: Map<number, string>;
}

/**
 * Values listed as their subjects are ("La Prima and Tazza D'Oro open at 7:30 AM and 8 AM", "…until
 * 2 PM and 9 PM respectively"): claims of one class (a range counts once) joined as a list; the k-th of
 * such a list is the k-th subject of a list of as many subjects of one kind named before it in the
 * sentence.
 */
export function valueLists(text: string, claims: readonly Claim[], mentions: readonly Mention[]): ValueLists {
  const lists: ValueLists = { listed: new Set(), paired: new Map() };
  if (claims.length < 2) return lists;
  // The claims as values: a range's two ends are one.
  const values: Array<{ group: number; cls: string; start: number; end: number }> = [];
  for (const c of [...claims].sort((a, b) => a.start - b.start)) {
    const last = values.at(-1);
    if (last && last.group === c.group) last.end = Math.max(last.end, c.end);
    else values.push({ group: c.group, cls: c.cls, start: c.start, end: c.end });
  }
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && values[j + 1]!.cls === values[i]!.cls && JOINED.test(text.slice(values[j]!.end, values[j + 1]!.start))) j++;
    const list = values.slice(i, j + 1);
    i = j + 1;
    if (list.length < 2) continue;
    for (const v of list) lists.listed.add(v.group);
    const subjects = mentions.length < 2 ? null : joinedBefore(text, mentions, list[0]!.start, list.length);
    if (subjects) list.forEach((v, k) => lists.paired.set(v.group, subjects[k]!));
  }
  return lists;
}

/** The `n` subjects of one kind named as a list (JOINED) nearest before `at` in its sentence, or null. */
function joinedBefore(text: string, mentions: readonly Mention[], at: number, n: number): string[] | null {
  const before = mentions.filter((m) => m.end <= at && !crossesSentence(text.slice(m.end, at), true));
  for (let last = before.length - 1; last >= 0; last--) {
    const kind = kindOf(before[last]!.subject);
    const list = [before[last]!];
    for (let k = last - 1; k >= 0 && list.length < n; k--) {
      if (kindOf(before[k]!.subject) !== kind) continue;
      if (!JOINED.test(text.slice(before[k]!.end, list[0]!.start))) break;
      list.unshift(before[k]!);
    }
    const subjects = [...new Set(list.map((m) => m.subject))];
    if (list.length === n && subjects.length === n) return subjects;
  }
  return null;
}

/** The room subject a room claim's fact names (GHC 6115), or null for a room of any building. */
function spaceOf(key: Fact): string | null {
  const room = roomOf(key);
  return room && room.code !== ANY_BUILDING ? spaceSubject(room.code, room.number) : null;
}

/** Text with nothing to fold. */
const ASCII = /^[\x00-\x7f]*$/;

/** Kinds that qualify the subject around them (a course's section or term, a route's direction). */
const QUALIFIERS: ReadonlySet<string> = new Set(['section', 'dir', 'sem']);
/** A guide section's topic: what one passage of the guide is about. */
const TOPIC = 'topic';
const TWO_CAPITALS = /[A-Z][^A-Z]*[A-Z]/;

export class SubjectFacts {
  /** Facts no subject owns. */
  private readonly unscoped = new Set<Fact>();
  /** Facts read inside sections or directions only (module note). */
  private readonly loose = new Set<Fact>();
  /**
   * Facts read inside guide topics only: they hold a claim bound to no topic (a place's or a term's claim
   * may rest on the guide: "Tazza D'Oro takes DineXtra at $5.50"), never one bound to another topic.
   */
  private readonly topical = new Set<Fact>();
  /** Facts by subject, and by each set of subjects read at once (`dir:inbound+route:61D`). */
  private readonly scoped = new Map<string, Set<Fact>>();
  /** Whether a subject's facts hold a class ("time", "wait-min"): what a carried subject speaks of, asked per claim. */
  private readonly spoken = new Map<string, boolean>();
  /** Kinds of subject read nested ("dir+route", "course+section"): where no combined facts means none. */
  private readonly nested = new Set<string>();
  /** Alias phrase → the subjects it names (one, or it names none). */
  private readonly aliases = new Map<string, Set<string>>();
  /** The aliases that name one subject, as one pattern (made when first needed after aliases change). */
  private aliasRe: RegExp | null = null;
  /** Whether an alias names a section by one letter (made when first needed after aliases change). */
  private hasLetterSections: boolean | null = null;
  /** The subjects whose blocks or objects are being read, outermost first. */
  private stack: string[] = [];
  /** The scopes a fact read now goes to: every non-empty set of the stack's subjects. */
  private targets: Array<Set<string>> = [];
  /** Only sections and directions are being read. */
  private qualifiersOnly = false;
  /** Only guide topics are being read. */
  private topicsOnly = false;

  /** Reads `read` as `subject`'s too (named by `names`), inside the subjects being read; null: as nobody's. */
  within(subject: string | null, names: readonly string[], read: () => void): void {
    const outer = this.stack;
    if (subject !== null) {
      for (const alias of names) this.aliases.set(alias, (this.aliases.get(alias) ?? new Set()).add(subject));
      if (names.length > 0) {
        this.aliasRe = null;
        this.hasLetterSections = null;
      }
    }
    this.enter(subject === null ? [] : outer.includes(subject) ? outer : [...outer, subject]);
    try {
      read();
    } finally {
      this.enter(outer);
    }
  }

  /** Reads from now on as `stack`'s subjects. */
  enter(stack: string[]): void {
    this.stack = stack;
    const combos: string[] = [];
    for (let mask = 1; mask < 1 << stack.length; mask++) combos.push(stack.filter((_, i) => mask & (1 << i)).sort().join('+'));
    this.targets = combos.map((key) => {
      let set = this.scoped.get(key);
      if (!set) this.scoped.set(key, (set = new Set()));
      return set;
    });
    this.qualifiersOnly = stack.length > 0 && stack.every((s) => QUALIFIERS.has(kindOf(s)));
    this.topicsOnly = stack.length > 0 && stack.every((s) => kindOf(s) === TOPIC);
    if (stack.length > 1) this.nested.add([...new Set(stack.map(kindOf))].sort().join('+'));
  }

  /** A fact read now: nobody's, or the subjects' being read. */
  add(key: Fact): void {
    if (this.targets.length === 0) return void this.unscoped.add(key);
    for (const set of this.targets) set.add(key);
    if (this.qualifiersOnly) this.loose.add(key);
    else if (this.topicsOnly) this.topical.add(key);
    if (this.spoken.size > 0) this.spoken.clear();
  }

  /** Do `subject`'s facts hold values of the class `cls` ("time", "wait-min")? Found when first asked. */
  speaks(subject: string, cls: FactClass | null): boolean {
    if (cls === null) return false;
    const asked = `${subject}|${cls}`;
    let answer = this.spoken.get(asked);
    if (answer === undefined) {
      answer = false;
      for (const k of this.scoped.get(subject) ?? []) if (classOf(k) === cls) answer = true;
      this.spoken.set(asked, answer);
    }
    return answer;
  }

  /** Does `subject` have a plain value (no day) of the class `cls` ("units")? */
  hasValue(subject: string, cls: FactClass): boolean {
    for (const k of this.scoped.get(subject) ?? []) if (classOf(k) === cls && !isBound(k)) return true;
    return false;
  }

  /**
   * Whether a fact holds for `subjects`: theirs (all of them at once where the tools nest their kinds,
   * else any one's), or nobody's; a section's or direction's loose facts only for a claim bound to none
   * of them, and a guide topic's only for a claim bound to no topic.
   */
  holderOf(subjects: readonly string[]): (k: Fact) => boolean {
    const { unscoped, loose, topical } = this;
    const own = this.factsOf(subjects);
    if (subjects.some((s) => kindOf(s) === TOPIC)) return (k) => unscoped.has(k) || own(k);
    const qualified = subjects.some((s) => QUALIFIERS.has(kindOf(s)));
    return qualified ? (k) => unscoped.has(k) || topical.has(k) || own(k) : (k) => unscoped.has(k) || loose.has(k) || topical.has(k) || own(k);
  }

  private factsOf(subjects: readonly string[]): (k: Fact) => boolean {
    if (subjects.length === 1) {
      const set = this.scoped.get(subjects[0]!);
      return (k) => set?.has(k) === true;
    }
    const together = this.scoped.get([...subjects].sort().join('+'));
    if (together) return (k) => together.has(k);
    // Kinds the tools nest (a route within a direction) but never these together: nothing holds for both.
    if (this.nested.has([...new Set(subjects.map(kindOf))].sort().join('+'))) return () => false;
    const sets = subjects.map((s) => this.scoped.get(s)).filter((x): x is Set<Fact> => x !== undefined);
    return (k) => sets.some((set) => set.has(k));
  }

  /** Where `text` names subjects (by alias, or by a course or route claim of `claims`), in text order. */
  mentionsOf(text: string, claims: readonly Claim[]): Mention[] {
    const out: Mention[] = [];
    for (const c of claims) {
      for (const key of c.keys) {
        const subject =
          c.cls === 'course' ? courseSubject(valueOf(key)) : c.cls === 'route' ? routeSubject(valueOf(key)) : c.cls === 'room' ? spaceOf(key) : null;
        if (subject && this.scoped.has(subject)) out.push({ subject, start: c.start, end: c.end });
      }
    }
    const re = this.aliasPattern();
    // Folding accents keeps each character where it was ("Café" → "Cafe").
    if (re) {
      for (const m of (ASCII.test(text) ? text : fold(text)).matchAll(re)) {
        const named = this.aliases.get(phrase(m[0]));
        if (named?.size !== 1) continue;
        const subject = [...named][0]!;
        // A guide topic's one-word name is an acronym ("UHS", "CaPS"): written without its capitals it is
        // a word ("enrollment caps"), not the office.
        if (kindOf(subject) === TOPIC && !/\s/.test(m[0]) && !TWO_CAPITALS.test(m[0])) continue;
        out.push({ subject, start: m.index!, end: m.index! + m[0].length });
      }
    }
    if (this.letterSections()) this.bareSections(text, out);
    return out.sort((a, b) => a.start - b.start);
  }

  /** Whether the evidence has a section named by one letter ("B"): the only time `bareSections` reads. */
  private letterSections(): boolean {
    this.hasLetterSections ??= [...this.aliases.keys()].some((a) => /^ section [a-z] $/.test(a));
    return this.hasLetterSections;
  }

  /**
   * A list of sections names them by their letter alone ("Recitation A meets …; B is Fridays 2–2:50 PM",
   * "B: Fri 2:00–2:50 PM, GHC 4102"): a capital letter first in a clause, list item or line, before "is",
   * "meets", ":" or "(" and a day or a time, names the section of that letter when the evidence has
   * exactly one.
   */
  private bareSections(text: string, out: Mention[]): void {
    for (const m of text.matchAll(BARE_SECTION)) {
      const named = this.aliases.get(` section ${m[1]!.toLowerCase()} `);
      if (named?.size !== 1) continue;
      const start = m.index! + m[0].length - 1;
      if (!out.some((o) => o.start <= start && start < o.end)) out.push({ subject: [...named][0]!, start, end: start + 1 });
    }
  }

  /** One pattern of every alias that names one subject, longest first; null when there are none. */
  private aliasPattern(): RegExp | null {
    if (this.aliasRe) return this.aliasRe;
    const names = [...this.aliases].filter(([, named]) => named.size === 1).map(([alias]) => alias);
    if (names.length === 0) return null;
    this.aliasRe = aliasesPattern(names);
    return this.aliasRe;
  }
}
