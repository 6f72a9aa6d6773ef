/**
 * "Can I take 15-213 without 15-122?", "do I need 15-122 before 15-213?", "is 21-127 required for
 * 15-251?": a question about one course's prerequisites that names another course, answered yes or no
 * from the requisites the course tools return (AND of OR groups).
 */

export interface PrereqCheck {
  /** The course the question is about whether it is a prerequisite. */
  other: string;
  /** "Can I take X without Y?" (yes when Y is not required) or "do I need Y for X?" (yes when it is). */
  asks: 'can-without' | 'needs';
}

const COURSE_IDS = /\b(\d{2})\s?-?\s?(\d{3})\b/g;
const PREREQ_WORDS = /\b(without|before|required|require[sd]?|need(ed)?|pre-?req\w*|prerequisit\w*|skip|if i (haven'?t|have not|didn'?t))\b/i;
const CAN_WITHOUT = /\b(without|skip|if i (haven'?t|have not|didn'?t))\b/i;

/** The course asked about and the check, when a question names two courses and asks about prerequisites. */
export function prereqCheckOf(q: string): { courseId: string; check: PrereqCheck } | null {
  const ids = [...q.matchAll(COURSE_IDS)].map((m) => ({ id: `${m[1]}-${m[2]}`, at: m.index! }));
  if (ids.length < 2 || ids[0]!.id === ids[1]!.id || !PREREQ_WORDS.test(q)) return null;
  // The course after "for" or "before (taking)" is the one whose prerequisites are asked; else the first named.
  const pointer = /\b(?:for|before(?: taking)?|to take|into)\s+$/i;
  const target = ids.find((c) => pointer.test(q.slice(0, c.at))) ?? ids[0]!;
  const other = ids.find((c) => c.id !== target.id)!;
  return { courseId: target.id, check: { other: other.id, asks: CAN_WITHOUT.test(q) ? 'can-without' : 'needs' } };
}

/** The yes/no line for a check against the course's prerequisite groups (AND of OR). */
export function prereqVerdict(check: PrereqCheck, name: string, relations: readonly (readonly string[])[]): string {
  const group = relations.find((g) => g.includes(check.other));
  const listed = relations.length ? relations.map((g) => (g.length > 1 ? `one of ${g.join(' or ')}` : g[0])).join(' and ') : 'none';
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
