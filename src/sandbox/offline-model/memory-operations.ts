/**
 * The offline model's JSON-mode answers (memory extraction and the remember tool's reconciliation,
 * src/memory/fact-operations.ts). Rule-based: a new fact to remember that is about the same thing as a
 * known fact (where the user lives, what they study, their year, their diet) updates that fact; anything
 * else is left to the service, which adds the new fact. Extraction from a conversation is not attempted
 * offline: it answers no operations.
 */

/** Topics a fact can be about, by its opening words; "Moved to X" is about where the user lives. */
const TOPICS: [RegExp, string][] = [
  [/^(lives|living|moved|moving|resides|stays) (in|to|at)\b/i, 'home'],
  [/^(studies|majors?|majoring|is (a|an) .*\b(major|student))\b/i, 'study'],
  [/^is (a )?(first|second|third|fourth|fifth)[- ]year\b|^is a (freshman|sophomore|junior|senior)\b/i, 'year'],
  [/^(is|eats) (vegetarian|vegan|pescatarian|halal|kosher)\b|^eats no\b|^does not eat\b/i, 'diet'],
];

const topicOf = (fact: string) => TOPICS.find(([pattern]) => pattern.test(fact.trim()))?.[1];

/** `{"operations": [...]}` for the request's last user message. */
export function memoryOperations(userMessage: string): string {
  const newFact = /\nNew fact to remember: (.+)$/s.exec(userMessage)?.[1]?.trim();
  const topic = newFact ? topicOf(newFact) : undefined;
  if (!newFact || !topic) return '{"operations": []}';
  const known = [...userMessage.matchAll(/^(f\d+): (.+)$/gm)].find(([, , text]) => topicOf(text!) === topic);
  if (!known) return '{"operations": []}';
  const text = newFact.replace(/^moved to\b/i, 'Lives in');
  return JSON.stringify({ operations: [{ op: 'update', id: known[1], text }] });
}
