/**
 * The offline model's JSON-mode answers (the remember tool's reconciliation, src/memory/remember-tool.ts).
 * Rule-based: a new fact about the same thing as a known fact (where the user lives, what they study,
 * their year, their diet) updates that fact; anything else is left to the service, which adds the new
 * fact. Extraction from a conversation reads one thing offline: a move told as news (moves.ts), which
 * replaces the saved home or saves a first one; anything else answers no operations.
 */
import { readReconcileRequest } from '../../memory/remember-tool.js';
import { movedTo } from './moves.js';

/** Topics a fact can be about, by its opening words (facts are in the one wording of fact-wording.ts). */
const TOPICS: [RegExp, string][] = [
  [/^(lives|living|stays) (in|at)\b/i, 'home'],
  [/^(studies|majors?|majoring|is (a|an) .*\b(major|student))\b/i, 'study'],
  [/^is (a )?(first|second|third|fourth|fifth)[- ]year\b|^is a (freshman|sophomore|junior|senior)\b/i, 'year'],
  [/^(is|eats) (vegetarian|vegan|pescatarian|halal|kosher)\b|^eats no\b|^does not eat\b/i, 'diet'],
];

const topicOf = (fact: string) => TOPICS.find(([pattern]) => pattern.test(fact.trim()))?.[1];

/** `{"operations": [...]}` for the request's last user message. */
export function memoryOperations(userMessage: string): string {
  const extraction = extractionOperations(userMessage);
  if (extraction) return extraction;
  const request = readReconcileRequest(userMessage);
  const topic = request && topicOf(request.newFact);
  const known = topic && request.known.find((f) => topicOf(f.text) === topic);
  if (!request || !known) return '{"operations": []}';
  return JSON.stringify({ operations: [{ op: 'update', id: known.id, text: request.newFact }] });
}

/** An extraction request (src/memory/extraction.ts): known facts, then the conversation; null for any other message. */
function extractionOperations(message: string): string | null {
  const known = /^Known facts:\n([\s\S]*?)\n\n<conversation>\n([\s\S]*)\n<\/conversation>$/.exec(message.trim());
  if (!known) return null;
  const said = [...known[2]!.matchAll(/^User: (.+)$/gm)].at(-1)?.[1];
  const home = said ? movedTo(said) : null;
  if (!home) return '{"operations": []}';
  const text = `Lives in ${home}`;
  const facts = [...known[1]!.matchAll(/^(f\d+): (.+)$/gm)].map((m) => ({ id: m[1]!, text: m[2]! }));
  const old = facts.find((f) => topicOf(f.text) === 'home');
  return JSON.stringify({ operations: [old ? { op: 'update', id: old.id, text } : { op: 'add', text }] });
}
