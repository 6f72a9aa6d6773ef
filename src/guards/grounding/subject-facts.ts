/**
 * A turn's facts by what they are about (issue 59): each fact read inside a subject's block or object
 * (subjects.ts) belongs to that subject, and to every set of subjects read at once (a route's group
 * inside a stop's direction belongs to `dir:inbound`, `route:61D` and `dir:inbound+route:61D`), so a
 * claim bound to both is held only by what holds for both. Sections and directions qualify what they
 * sit in: read inside a course (a course's lecture) or around a route, their facts are that course's or
 * route's too; read with nothing around them (a schedule result with no `courseID`), their facts still
 * hold a claim bound to a course or a place, but never one bound to another section or direction.
 *
 * It also finds where a text names the subjects: the aliases the readers gave, as one pattern.
 */
import type { Claim } from './claims.js';
import { aliasesPattern, courseSubject, fold, kindOf, phrase, routeSubject } from './subjects.js';

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

/**
 * The subject of each kind `mentions` name that a claim at [start, end) of `text` is about: the one
 * named nearest before it in its clause, else after it in its clause ("in 4 minutes inbound"), else
 * nearest before it in the text ("La Prima opens at 7:30 AM, and Tazza D'Oro at 8 AM": 8 AM is
 * Tazza's). A kind named only in a later clause does not bind it.
 */
export function boundSubjects(text: string, start: number, end: number, mentions: readonly Mention[], breaks = clauseBreaks(text)): string[] {
  if (mentions.length === 0) return [];
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
  const out: string[] = [];
  for (const ms of byKind.values()) {
    const clause = ms.filter((m) => m.start >= from && m.end <= to);
    const pick = before(clause) ?? clause.find((m) => m.start >= start) ?? before(ms);
    if (pick) out.push(pick.subject);
  }
  return out;
}

/** Text with nothing to fold. */
const ASCII = /^[\x00-\x7f]*$/;

/** Kinds that qualify the subject around them (a course's section, a route's direction). */
const QUALIFIERS: ReadonlySet<string> = new Set(['section', 'dir']);

export class SubjectFacts {
  /** Facts no subject owns. */
  private readonly unscoped = new Set<string>();
  /** Facts read inside sections or directions only (module note). */
  private readonly loose = new Set<string>();
  /** Facts by subject, and by each set of subjects read at once (`dir:inbound+route:61D`). */
  private readonly scoped = new Map<string, Set<string>>();
  /** Whether a subject's facts hold a key class ("time", "wait-min"): what a carried subject speaks of, asked per claim. */
  private readonly spoken = new Map<string, boolean>();
  /** Kinds of subject read nested ("dir+route", "course+section"): where no combined facts means none. */
  private readonly nested = new Set<string>();
  /** Alias phrase → the subjects it names (one, or it names none). */
  private readonly aliases = new Map<string, Set<string>>();
  /** The aliases that name one subject, as one pattern (made when first needed after aliases change). */
  private aliasRe: RegExp | null = null;
  /** The subjects whose blocks or objects are being read, outermost first. */
  private stack: string[] = [];
  /** The scopes a fact read now goes to: every non-empty set of the stack's subjects. */
  private targets: Array<Set<string>> = [];
  /** Only sections and directions are being read. */
  private qualifiersOnly = false;

  /** Reads `read` as `subject`'s too (named by `names`), inside the subjects being read; null: as nobody's. */
  within(subject: string | null, names: readonly string[], read: () => void): void {
    const outer = this.stack;
    if (subject !== null) {
      for (const alias of names) this.aliases.set(alias, (this.aliases.get(alias) ?? new Set()).add(subject));
      if (names.length > 0) this.aliasRe = null;
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
    if (stack.length > 1) this.nested.add([...new Set(stack.map(kindOf))].sort().join('+'));
  }

  /** A fact read now: nobody's, or the subjects' being read. */
  add(key: string): void {
    if (this.targets.length === 0) return void this.unscoped.add(key);
    for (const set of this.targets) set.add(key);
    if (this.qualifiersOnly) this.loose.add(key);
    if (this.spoken.size > 0) this.spoken.clear();
  }

  /** Do `subject`'s facts hold values of the key class `cls` ("time", "wait-min")? Found when first asked. */
  speaks(subject: string, cls: string): boolean {
    const asked = `${subject}|${cls}`;
    let answer = this.spoken.get(asked);
    if (answer === undefined) {
      answer = false;
      for (const k of this.scoped.get(subject) ?? []) if (k.startsWith(cls) && k[cls.length] === ':') answer = true;
      this.spoken.set(asked, answer);
    }
    return answer;
  }

  /** Does `subject` have a plain value (no day) of the key class prefix `cls` ("units:")? */
  hasValue(subject: string, cls: string): boolean {
    for (const k of this.scoped.get(subject) ?? []) if (k.startsWith(cls) && !k.includes('@')) return true;
    return false;
  }

  /**
   * Whether a fact holds for `subjects`: theirs (all of them at once where the tools nest their kinds,
   * else any one's), or nobody's; a section's or direction's loose facts only for a claim bound to none.
   */
  holderOf(subjects: readonly string[]): (k: string) => boolean {
    const { unscoped, loose } = this;
    const own = this.factsOf(subjects);
    const qualified = subjects.some((s) => QUALIFIERS.has(kindOf(s)));
    return qualified ? (k) => unscoped.has(k) || own(k) : (k) => unscoped.has(k) || loose.has(k) || own(k);
  }

  private factsOf(subjects: readonly string[]): (k: string) => boolean {
    if (subjects.length === 1) {
      const set = this.scoped.get(subjects[0]!);
      return (k) => set?.has(k) === true;
    }
    const together = this.scoped.get([...subjects].sort().join('+'));
    if (together) return (k) => together.has(k);
    // Kinds the tools nest (a route within a direction) but never these together: nothing holds for both.
    if (this.nested.has([...new Set(subjects.map(kindOf))].sort().join('+'))) return () => false;
    const sets = subjects.map((s) => this.scoped.get(s)).filter((x): x is Set<string> => x !== undefined);
    return (k) => sets.some((set) => set.has(k));
  }

  /** Where `text` names subjects (by alias, or by a course or route claim of `claims`), in text order. */
  mentionsOf(text: string, claims: readonly Claim[]): Mention[] {
    const out: Mention[] = [];
    for (const c of claims) {
      for (const key of c.keys) {
        const subject = c.cls === 'course' ? courseSubject(key.slice('course:'.length)) : c.cls === 'route' ? routeSubject(key.slice('route:'.length)) : null;
        if (subject && this.scoped.has(subject)) out.push({ subject, start: c.start, end: c.end });
      }
    }
    const re = this.aliasPattern();
    // Folding accents keeps each character where it was ("Café" → "Cafe").
    if (re) {
      for (const m of (ASCII.test(text) ? text : fold(text)).matchAll(re)) {
        const named = this.aliases.get(phrase(m[0]));
        if (named?.size === 1) out.push({ subject: [...named][0]!, start: m.index!, end: m.index! + m[0].length });
      }
    }
    return out.sort((a, b) => a.start - b.start);
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
