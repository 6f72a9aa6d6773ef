/**
 * The one wording of a stored fact: a short third-person statement without a subject, in the user's
 * own terms ("Is vegetarian", "Lives in Morewood Gardens", "Takes their coffee black"). Applied to every
 * fact admitted (fact-guard.ts), whoever wrote it: the offline model passing the user's words on, or a
 * real model that wrote "I'm vegetarian", "The user lives in Donner" or "Their dorm is Morewood
 * Gardens". Deterministic and conservative: what it does not recognise keeps its wording, with only a
 * leading subject removed and first-person pronouns turned to third person.
 */

/** Where someone lives, said as a possession: "my dorm is X" means "Lives in X". */
const HOME = String.raw`(?:dorm(?:itory)?|residence(?: hall)?|res hall|house|apartment|flat|room|home|housing)`;
const OWNER = String.raw`(?:my|their|the user'?s|user'?s|his|her)`;

const LIVES_IN = 'Lives in ';

/** Where a fact in this wording says the user lives ("Lives in Stever House" → "Stever House"), else null. */
export const livesIn = (fact: string): string | null => (fact.startsWith(LIVES_IN) ? fact.slice(LIVES_IN.length).replace(/\.$/, '').trim() || null : null);

/** Whole-fact rewrites, tried in order; `$n` are the pattern's groups. */
const REWRITES: Array<[RegExp, string]> = [
  // A move says where someone lives now: "I moved to Donner" is "Lives in Donner", so it replaces the old home.
  [/^(?:(?:i|they|the user|user)\s+)?(?:just\s+|recently\s+)?(?:moved|has moved|have moved|'ve moved|’ve moved|am moving|is moving|relocated)\s+(?:in)?to\s+(.+)$/i, `${LIVES_IN}$1`],
  [new RegExp(String.raw`^${OWNER}\s+${HOME}\s+(?:is|will be)\s+(?:in|at)?\s*(.+)$`, 'i'), `${LIVES_IN}$1`],
  [new RegExp(String.raw`^${OWNER}\s+major\s+is\s+(.+)$`, 'i'), 'Majors in $1'],
  [new RegExp(String.raw`^${OWNER}\s+minor\s+is\s+(.+)$`, 'i'), 'Minors in $1'],
  [new RegExp(String.raw`^${OWNER}\s+name\s+is\s+(.+)$`, 'i'), 'Goes by $1'],
  [new RegExp(String.raw`^${OWNER}\s+(?:diet|dietary need)\s+is\s+(.+)$`, 'i'), 'Is $1'],
  // "My favourite food is pizza" → "Favourite food is pizza": the owner is implied, as in every fact.
  [new RegExp(String.raw`^${OWNER}\s+([\p{L}\s-]{1,40}?)\s+(is|are|was|were)\s+(.+)$`, 'iu'), '$1 $2 $3'],
];

/** Openings that are a subject and its verb: the verb in third person, the subject dropped. */
const SUBJECT_VERB: Array<[RegExp, string]> = [
  [/^(?:i am|i'm|i’m|im|they are|they're|the user is|user is|he is|she is)\s+/i, 'Is '],
  [/^(?:i was|they were|the user was)\s+/i, 'Was '],
  [/^(?:i have|i've|i’ve|ive|they have|the user has)\s+/i, 'Has '],
  [/^(?:i do not|i don't|i don’t|i dont|they do not|they don't|the user does not|the user doesn't)\s+/i, 'Does not '],
  [/^(?:i cannot|i can't|i can’t|i cant|they cannot|they can't|the user cannot|the user can't)\s+/i, 'Cannot '],
  [/^(?:i will|i'll|i’ll|they will)\s+/i, 'Will '],
  [/^(?:i would|i'd|i’d|they would)\s+/i, 'Would '],
  [/^(?:i can|they can|the user can)\s+/i, 'Can '],
];

const ADVERBS = /^(usually|often|always|never|sometimes|mostly|really|also|only|rarely|still|now)$/i;

/** "study" → "studies", "go" → "goes", "watch" → "watches", "live" → "lives". */
export function thirdPersonVerb(verb: string): string {
  const lower = verb.toLowerCase();
  if (lower === 'have') return 'has';
  if (lower === 'be') return 'is';
  if (/[^e]ed$/.test(lower) && lower.length >= 4) return verb; // past tense: "I started" → "Started", not "Starteds"
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`;
  if (/(s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`;
  return `${verb}s`;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** First-person pronouns left inside the fact, in third person: "my bike" → "their bike". */
function pronouns(text: string): string {
  return text
    .replace(/\bmyself\b/g, 'themselves')
    .replace(/\bmine\b/g, 'theirs')
    .replace(/\bmy\b/g, 'their')
    .replace(/\bme\b/g, 'them');
}

/** A fact in the one wording; empty stays empty. */
export function toThirdPerson(raw: string): string {
  const end = /[.!]*$/.exec(raw.trim())?.[0] ?? '';
  let t = raw.trim().slice(0, raw.trim().length - end.length).trim();
  if (!t) return raw.trim();
  for (const [pattern, replacement] of REWRITES) {
    if (pattern.test(t)) return capitalise(pronouns(t.replace(pattern, replacement)).trim()) + end;
  }
  for (const [pattern, replacement] of SUBJECT_VERB) {
    if (pattern.test(t)) return capitalise(pronouns(t.replace(pattern, replacement))) + end;
  }
  // "I live in Mudge", "I usually eat late", "The user prefers mornings", "They study physics".
  const subject = /^(i|they|the user|user)\s+(.+)$/i.exec(t);
  if (subject) {
    const words = subject[2]!.split(/\s+/);
    const adverb = words[0] && ADVERBS.test(words[0]) && words.length > 1 ? words.shift()! : null;
    const isFirstPerson = subject[1]!.toLowerCase() === 'i' || subject[1]!.toLowerCase() === 'they';
    const verb = isFirstPerson ? thirdPersonVerb(words.shift()!) : words.shift()!;
    t = [adverb, verb, ...words].filter(Boolean).join(' ');
  }
  return capitalise(pronouns(t)) + end;
}
