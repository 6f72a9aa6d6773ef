/**
 * A yes/no question about taking a course, read from its parts wherever they sit in the sentence
 * (issue 64): the course asked about is the object of take / register for / sign up for / enroll in /
 * qualify for / get into (or the course "for" or "before" which another is asked about), not the first
 * course named; the courses the student has are those after took / did / finished / passed / completed /
 * have, or before done / finished / under my belt; the courses they lack follow without / haven't /
 * skip. Three questions come of it, each answered yes or no first, from the requisites the course tools
 * return (AND of OR groups):
 *
 * - eligible: "am I allowed to take 15-213 if I finished 15-122?", "I passed 15-112, can I sign up for
 *   15-122?", "do I qualify for 15-150 with 15-112 and 21-127 done?": the groups evaluated against
 *   what the student has;
 * - can-without: "can I take 15-213 without 15-122?";
 * - needs: "do I need 15-122 before 15-213?", "is 21-127 required for 15-251?".
 */

export interface PrereqCheck {
  /** The courses the question names besides the one asked about (the one asked about a prerequisite, or the student's). */
  other: string;
  asks: 'can-without' | 'needs' | 'eligible';
  /** eligible: every course the student says they have. */
  taken?: string[];
}

const COURSE_IDS = /\b(\d{2})\s?-?\s?(\d{3})\b/g;
const PREREQ_WORDS = /\b(without|before|required|require[sd]?|need(ed)?|pre-?req\w*|prerequisit\w*|skip|if i (haven'?t|have not|didn'?t))\b/i;

/** Words right before a course that make it the one asked about ("sign up for 15-122"). */
const TARGET_BEFORE =
  /\b(?:take|taking|register(?:ing)? (?:for|in)|regist(?:er|ering)|sign(?:ing)? up (?:for|to)|signup for|enrol(?:l|ling|led)? (?:in|into|for)|enrol(?:l)?|qualify (?:for|to take)|eligible (?:for|to take)|get (?:in)?to|go (?:in)?to|move on to|jump (?:in)?to|allowed (?:in)?to(?: take)?|for|before(?: taking)?|into|(?:pre-?req\w*|prerequisite|requirement|required) of)\s+(?:(?:the|a|course|class)\s+)*$/i;
/** Words right before a course the student has ("I finished 15-122", "having done 15-112 and"). */
const TAKEN_BEFORE =
  /\b(?:took|taken|did|done|finished|finish|passed|pass|completed|complete|have|having|got(?: credit for)?|aced|already(?: did| took| have)?|with|after)\s+(?:(?:the|a|course|class|both|already|only|just)\s+)*$/i;
/** Words right after the courses a student has ("with 15-112 and 21-127 done"). */
const TAKEN_AFTER = /^(?:\s*(?:,|and|&)?\s*(?:\d{2}\s?-?\s?\d{3}))*\s*(?:done|finished|completed|passed|under my belt|already|behind me)\b/i;
/** Words right before a course the student lacks ("without 15-122", "haven't taken 15-122"). */
const LACKS_BEFORE =
  /\b(?:without|skip(?:ping)?|no|never took|(?:have ?n[o']?t|have not|haven't|didn'?t|did not|not)(?: yet)?(?: (?:taken|take|done|do|finished|passed|completed))?)\s+(?:(?:the|a|course|class|yet)\s+)*$/i;

interface Named {
  id: string;
  at: number;
  end: number;
}

/** The course whose prerequisites are asked about, and the check, when a question names two or more courses. */
export function prereqCheckOf(q: string): { courseId: string; check: PrereqCheck } | null {
  const named: Named[] = [];
  for (const m of q.matchAll(COURSE_IDS)) {
    const id = `${m[1]}-${m[2]}`;
    if (!named.some((c) => c.id === id)) named.push({ id, at: m.index!, end: m.index! + m[0].length });
  }
  if (named.length < 2) return null;
  // A list shares its lead ("took 15-112 and 21-127"): each course is read with what precedes the list.
  const lead = (c: Named): string => {
    let start = c.at;
    for (let i = named.indexOf(c) - 1; i >= 0; i--) {
      const between = q.slice(named[i]!.end, start);
      if (!/^\s*(?:,|and|&|or)?\s*(?:,\s*)?(?:and\s+)?$/i.test(between)) break;
      start = named[i]!.at;
    }
    return q.slice(0, start);
  };
  const trail = (c: Named): string => q.slice(c.end);
  const lacks = named.filter((c) => LACKS_BEFORE.test(lead(c)));
  const taken = named.filter((c) => !lacks.includes(c) && (TAKEN_BEFORE.test(lead(c)) || TAKEN_AFTER.test(trail(c))));
  const targets = named.filter((c) => !lacks.includes(c) && !taken.includes(c) && TARGET_BEFORE.test(lead(c)));
  const target = targets[0] ?? named.find((c) => !lacks.includes(c) && !taken.includes(c)) ?? null;
  if (!target) return null;
  const others = named.filter((c) => c !== target);
  if (lacks.length > 0) return { courseId: target.id, check: { other: lacks[0]!.id, asks: 'can-without' } };
  if (taken.length > 0 && (targets.length > 0 || /\b(can|could|may|am|do|will|would|should|eligible|allowed|qualify|ready)\b/i.test(q))) {
    return { courseId: target.id, check: { other: taken[0]!.id, asks: 'eligible', taken: taken.map((c) => c.id) } };
  }
  if (!PREREQ_WORDS.test(q)) return null;
  return { courseId: target.id, check: { other: others[0]!.id, asks: 'needs' } };
}

/** A group of the requisites as words: "15-122", "one of 21-127 or 15-151". */
const groupWords = (g: readonly string[]) => (g.length > 1 ? `one of ${g.join(' or ')}` : g[0]!);

/** The yes/no line for a check against the course's prerequisite groups (AND of OR). */
export function prereqVerdict(check: PrereqCheck, name: string, relations: readonly (readonly string[])[]): string {
  const listed = relations.length ? relations.map(groupWords).join(' and ') : 'none';
  if (check.asks === 'eligible') {
    const has = new Set(check.taken ?? [check.other]);
    const yours = [...has].map((c) => `**${c}**`).join(' and ');
    if (relations.length === 0) return `**Yes**: ${name} has no prerequisites.`;
    const missing = relations.filter((g) => !g.some((c) => has.has(c)));
    if (missing.length === 0) return `**Yes**: with ${yours} you meet the prerequisites of ${name} (its prerequisites: ${listed}).`;
    return `**No**, not yet: ${name} also needs ${missing.map(groupWords).join(' and ')} (its prerequisites: ${listed}; you named ${yours}).`;
  }
  const group = relations.find((g) => g.includes(check.other));
  const other = `**${check.other}**`;
  if (!group) {
    // Not a direct prerequisite; it may still be one of a prerequisite's own.
    const own = relations.length ? `its prerequisites: ${listed}; check their own prerequisites too` : 'it has no prerequisites';
    return check.asks === 'can-without'
      ? `**Yes**, as far as its own prerequisites go: ${other} is not a direct prerequisite of ${name} (${own}).`
      : `**Not directly**: ${other} is not a direct prerequisite of ${name} (${own}).`;
  }
  if (group.length > 1) {
    return `${name} needs ${group.join(' or ')}: ${other} is one way to meet that prerequisite, ${group.filter((c) => c !== check.other).join(' or ')} the other (all its prerequisites: ${listed}).`;
  }
  return check.asks === 'can-without'
    ? `**No**: ${other} is a prerequisite of ${name}, so you need it first (its prerequisites: ${listed}).`
    : `**Yes**: ${other} is a prerequisite of ${name} (its prerequisites: ${listed}).`;
}
