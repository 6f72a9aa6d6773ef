/**
 * Flagrant prompt-injection fast path: messages that plainly try to override the assistant's
 * instructions, switch it into a "jailbreak" persona, or extract its system prompt are answered with a
 * one-sentence refusal without any model call. Only flagrant phrasings are caught here; subtler attempts
 * are the model's and the other guards' business (a leaked prompt is still caught by the prompt-leak
 * guard). Ordinary questions that merely contain the words ("how do I change my bash prompt", "ignore
 * the noise in the library") must pass, so every pattern needs an override verb AND an instruction noun,
 * or a persona name used as an assignment.
 */

/** The refusal the pipeline answers with when `detectFlagrantInjection` is true. One sentence. */
export const INJECTION_REFUSAL =
  "I can't help with that, but I'm happy to answer questions about campus buildings, courses, dining or the campus guide.";

const OVERRIDE_VERB = '(?:ignore|disregard|forget|override|bypass|abandon|discard)';
const QUANTIFIER = '(?:(?:all|any|every|each|the|your|my|these|those|of|everything|that|was|were|you|previously|earlier|given|told|before)\\s+){0,4}';
const PRIOR = '(?:previous|prior|preceding|above|earlier|original|initial|system|safety)';
// No "directions" or "commands" without PRIOR: "skip all the directions" is a campus question.
const RULES = '(?:instructions?|prompts?|rules?|guidelines?|directives?|programming|restrictions?|guardrails?|constraints?)';
const RULES_AFTER_PRIOR = `(?:${RULES}|directions?|commands?|context)`;
const REVEAL_VERB = '(?:reveal|show|print|display|output|repeat|recite|leak|dump|expose|echo|tell\\s+me|give\\s+me|share|write\\s+out|spit\\s+out|paste)';
const ASK_VERB = `(?:${REVEAL_VERB}|what(?:\\s+(?:is|are|was|were)|'s))`;
const ADJECTIVES = '(?:(?:full|entire|complete|exact|original|initial|hidden|secret|verbatim|whole)\\s+)*';
// "your system prompt", "the hidden instructions": unmistakably the assistant's own.
const OWN_PROMPT = `(?:your|the)\\s+${ADJECTIVES}(?:system|developer|hidden|initial|original|secret)\\s+(?:prompt|instructions?|message|rules)`;
// "your prompt", "your instructions": only with a reveal verb and not "… for printing".
const YOUR_PROMPT = `your\\s+${ADJECTIVES}(?:prompt|instructions)(?!\\s+(?:for|on|to|about|regarding|how)\\b)`;

const PATTERNS: readonly RegExp[] = [
  // "ignore all previous instructions", "disregard the above rules", "forget your system prompt"
  new RegExp(`\\b${OVERRIDE_VERB}\\s+${QUANTIFIER}${PRIOR}\\s+(?:\\w+\\s+)?${RULES_AFTER_PRIOR}\\b`),
  // "ignore your instructions", "forget all the rules", "ignore all instructions"
  new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:all|any|every|your)\\s+(?:(?:of|the|your)\\s+)*${RULES}\\b`),
  // "forget everything you were told / above"
  new RegExp(`\\b${OVERRIDE_VERB}\\s+(?:everything|all)\\s+(?:you\\s+(?:were|have\\s+been)\\s+told|above|before\\s+this|so\\s+far)\\b`),
  // "you are now DAN", "from now on you are DAN", "pretend to be DAN", "act as DAN"
  /\b(?:you\s+are\s+(?:now\s+)?|you're\s+(?:now\s+)?|from\s+now\s+on,?\s+you\s+(?:are|will\s+be)\s+|pretend\s+(?:to\s+be|you\s+are)\s+|act\s+as\s+(?:an?\s+)?|become\s+|roleplay\s+as\s+)dan\b/,
  /\bdan\s+mode\b|\bdo\s+anything\s+now\b|\bdeveloper\s+mode\s+(?:enabled|on|activated)\b|\benable\s+developer\s+mode\b|\bjailbreak(?:ed)?\s+mode\b/,
  // "reveal your system prompt", "print the hidden instructions", "what is your system prompt"
  new RegExp(`\\b${ASK_VERB}\\s+(?:me\\s+|us\\s+)?(?:back\\s+)?${OWN_PROMPT}\\b`),
  // "show me your prompt", "print your instructions"
  new RegExp(`\\b${REVEAL_VERB}\\s+(?:me\\s+|us\\s+)?(?:back\\s+)?${YOUR_PROMPT}`),
  // "repeat the text above verbatim", "print everything above this line"
  /\b(?:repeat|print|output|recite|echo)\s+(?:everything|all|the\s+(?:text|words|message|content)s?)\s+(?:above|before\s+this)\b/,
];

/** Lowercases, folds look-alike and zero-width characters, and collapses whitespace and punctuation. */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\p{M}\p{Cf}]/gu, '')
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[^\p{L}\p{N}']+/gu, ' ')
    .trim();
}

/**
 * True when the user's message is a flagrant injection attempt ("ignore all previous instructions",
 * "you are now DAN", "reveal your system prompt" and their variants).
 */
export function detectFlagrantInjection(text: string): boolean {
  const folded = fold(text);
  if (!folded) return false;
  return PATTERNS.some((p) => p.test(folded));
}
