/**
 * False "lookup failed" claims: with a map attached, the route or location lookup demonstrably worked,
 * so a sentence saying a route, location, building or map lookup failed ("I couldn't retrieve the
 * route", "the routing tool isn't working") or sending the user to an external map site is wrong.
 * The repair drops those sentences (sentence-filter.ts) and leads with a pointer to the attached map.
 * Claims about other tools (dining, courses) are left alone: those lookups may really have failed.
 */
import type { CmuMaps } from '../campus/cmu-maps.js';
import { dropSentences } from './sentence-filter.js';

const NEG =
  "(?:couldn'?t|could\\s+not|can'?t|cannot|can\\s+not|unable\\s+to|(?:was|were|am|'m|is|are)\\s+not\\s+able\\s+to|(?:wasn'?t|weren'?t|isn'?t|aren'?t)\\s+able\\s+to|not\\s+able\\s+to|failed\\s+to|fail\\s+to|(?:haven'?t|have\\s+not|hasn'?t|has\\s+not)\\s+been\\s+able\\s+to|(?:do|does)\\s*(?:n'?t|\\s+not)\\s+have\\s+access\\s+to|no\\s+access\\s+to|(?:having|had|have)\\s+(?:some\\s+)?trouble)";
const VERB =
  '(?:retriev|get|gett|fetch|find|load|access|generat|provid|show|display|pull|look|locat|determin|calculat|comput|obtain|produc|giv|map|plot|creat|render|us|reach|connect|bring|draw|plan|work)\\w*';
// Words that make a sentence about the map or the route; weaker ones (a location, a building) also
// fit a dining or course sentence, so they only count when no other campus domain is named.
const STRONG_MAP_WORD = '(?:routes?|routing|directions?|paths?|maps?|mapping|navigation|navigate|walking|way\\s+to)';
const MAP_WORD = `(?:${STRONG_MAP_WORD}|locations?|buildings?|coordinates|distance|where\\s+\\S+\\s+is)`;
// Who fails: the assistant ("I couldn't", "we were unable", "I'm having trouble") or "it".
const SELF = "\\b(?:i|we|it)(?:'m|'ve|'d|\\s+am|\\s+was|\\s+were|\\s+have|\\s+had|\\s+still|\\s+currently|\\s+just|\\s+also|\\s+really|\\s+unfortunately)*\\s+";
const GENERIC_OBJECT = '(?:tools?|lookups?|the\\s+information|that\\s+information|the\\s+data|search(?:es)?|results?)';
const BROKEN =
  "(?:(?:is|are|was|were|seems?|appears?)\\s+(?:to\\s+be\\s+)?(?:currently\\s+|temporarily\\s+)?(?:not\\s+|n't\\s+)?(?:down|broken|failing|unavailable|offline|erroring|unresponsive|not\\s+(?:working|responding|available|functioning|accessible))|isn'?t\\s+(?:currently\\s+)?(?:working|responding|available|functioning|accessible)|aren'?t\\s+(?:working|responding|available)|(?:is|are)\\s+having\\s+(?:issues|problems|trouble)|failed|errored|timed\\s+out|returned\\s+(?:an?\\s+)?(?:error|errors|nothing|no\\s+results)|did(?:n'?t|\\s+not)\\s+(?:work|respond|return)|(?:is|are)\\s+not\\s+returning)";
const SUBJECT = `(?:${MAP_WORD}|campus\\s+map|tool|tools|lookup|service|system|search|request|query|api)`;
const TROUBLE =
  '(?:(?:there\\s+(?:was|is|were|seems\\s+to\\s+be)|i\\s+(?:encountered|ran\\s+into|hit|got|am\\s+having|\'m\\s+having|had|experienced)|experiencing)\\s+(?:an?\\s+|some\\s+)?(?:\\w+\\s+)?(?:error|errors|issue|issues|problem|problems|difficult(?:y|ies)|trouble|glitch|outage))';

const CANNOT_GET = new RegExp(`${SELF}${NEG}\\s+(?:[\\w-]+\\s+){0,3}?(?:${VERB}\\b)?[^.!?]{0,80}?\\b(${MAP_WORD}|${GENERIC_OBJECT})\\b`, 'i');
const SUBJECT_BROKEN = new RegExp(`\\b(${SUBJECT})\\b(?:\\s+\\w+){0,3}?\\s+${BROKEN}`, 'i');
const TROUBLE_WITH = new RegExp(`\\b${TROUBLE}\\b`, 'i');
const MAP_CONTEXT = new RegExp(`\\b${MAP_WORD}\\b`, 'i');
const STRONG_MAP_CONTEXT = new RegExp(`\\b${STRONG_MAP_WORD}\\b`, 'i');
// Other campus domains: a failure claim about these without a map word is not ours to remove.
const OTHER_DOMAIN = /\b(?:dining|menu|food|eat(?:s|ery)?|restaurants?|caf[eé]s?|courses?|class(?:es)?|schedules?|hours|guide|instructors?|professors?|prerequisites?|gen-?eds?)\b/i;
const EXTERNAL_MAP =
  /\b(?:google\s+maps|apple\s+maps|bing\s+maps|mapquest|waze|openstreetmap|citymapper|here\s+wego|maps\.google|google\.com\/maps|goo\.gl\/maps|maps\.app\.goo\.gl|maps\.apple\.com|(?:a|your|any)\s+(?:map(?:s|ping)?|navigation|gps)\s+app|(?:online|external|third[- ]party)\s+map(?:s|ping)?(?:\s+(?:service|site|website|tool))?)\b/i;

export interface FailureClaimContext {
  /** True when a non-map tool really failed this turn: generic "the tool failed" claims may be true. */
  otherToolFailed: boolean;
}

/** True when `sentence` claims a route/location/building/tool lookup failed, or points to an external map. */
export function isFailureClaim(sentence: string, ctx: FailureClaimContext = { otherToolFailed: false }): boolean {
  if (EXTERNAL_MAP.test(sentence)) return true;
  const claim = CANNOT_GET.test(sentence) || SUBJECT_BROKEN.test(sentence) || TROUBLE_WITH.test(sentence);
  if (!claim) return false;
  const otherDomain = OTHER_DOMAIN.test(sentence);
  if (STRONG_MAP_CONTEXT.test(sentence) || (MAP_CONTEXT.test(sentence) && !otherDomain)) return true;
  return !ctx.otherToolFailed && !otherDomain;
}

// How failure claims open ("I couldn't…", "Unfortunately…", "The routing tool…", "You can use Google
// Maps…", "For turn-by-turn directions, try…"): sequences of word sets, '*' for any word. A sentence
// whose opening fits none of them is released as it streams (sentence-filter.ts) instead of held whole.
const OPENERS: ReadonlyArray<ReadonlyArray<ReadonlySet<string>>> = (
  [
    [['i', "i'm", "i've", "i'd", "i'll", 'we', "we're", "we've", 'but']],
    [['unfortunately', 'sorry', 'apologies', 'however', 'sadly', 'regrettably', 'currently', 'unable', 'alternatively', 'otherwise', 'due']],
    [['there', "there's", 'it', "it's", 'google', 'apple', 'bing', 'waze', 'mapquest', 'try', 'please', 'consider', 'check', 'use']],
    [['you', "you'll", "you'd"], ['*'], ['use', 'try', 'check', 'open', 'also', 'look', 'always', 'want', 'need']],
    [['for'], ['turn-by-turn', 'live', 'real-time', 'detailed', 'step-by-step', 'exact', 'precise', 'navigation', 'directions', 'gps', 'more']],
    [['if'], ['you'], ['need', 'want', 'prefer', 'would']],
    [['at'], ['the'], ['moment']],
    [['right'], ['now']],
    [['the', 'this', 'that', 'my', 'our', 'your'], ['routing', 'route', 'map', 'maps', 'mapping', 'tool', 'tools', 'lookup', 'service', 'system', 'search', 'directions', 'navigation', 'request', 'api']],
    [['the', 'this', 'that', 'my', 'our', 'your'], ['campus', 'building', 'location'], ['map', 'maps', 'lookup', 'search', 'tool', 'data', 'service', 'routing', 'navigation', 'directions', 'information']],
  ] as string[][][]
).map((seq) => seq.map((words) => new Set(words)));

// Words that only lead into the sentence ("Also, …", "Well …"): the claim test looks past them.
const DISCOURSE = new Set(['also', 'so', 'well', 'actually', 'okay', 'ok', 'now', 'note', 'still', 'just', 'first', 'then', 'and']);

/** Whether a word (complete, or still being written) can be one of `words`. */
function fits(word: string, complete: boolean, words: ReadonlySet<string>): boolean {
  if (words.has('*') || words.has(word)) return true;
  if (complete) return false;
  for (const w of words) if (w.startsWith(word)) return true;
  return false;
}

/**
 * Whether an unfinished sentence could still turn out to be a failure claim, judged by its opening
 * words; false lets the sentence stream instead of waiting for its end.
 */
export function mayBeFailureClaim(partial: string): boolean {
  const text = partial.replace(/^[\s*_"'“‘(]+/, '').replace(/’/g, "'").toLowerCase();
  // Wait for the first word to end: "First," or "Also" may lead into a claim ("First, I couldn't…").
  const lead = /^([a-z'-]+)(,?)(?=[\s,;:.!?])\s*/.exec(text);
  if (!lead) return true;
  if (lead[2] || DISCOURSE.has(lead[1]!)) {
    const rest = text.slice(lead[0].length);
    return rest === '' || mayBeFailureClaim(rest);
  }
  const words = text.split(/\s+/).filter(Boolean).map((w) => w.replace(/[,;:.!?)*_]+$/, ''));
  const endsWord = /[\s,;:.!?]$/.test(text);
  return OPENERS.some((seq) =>
    seq.every((set, i) => i >= words.length || fits(words[i]!, i < words.length - 1 || endsWord, set)),
  );
}

/** The short lead pointing at the attached map ("Here's the route from X (SRC) to Y (DST) …"). */
export function mapPointer(map: CmuMaps): string {
  if (map.mode === 'directions') {
    return `Here's the route from ${map.src_label} (${map.src}) to ${map.dest_label} (${map.dest}) on the attached campus map.`;
  }
  return `Here's ${map.dest_label} (${map.dest}) on the attached campus map.`;
}

/** Joins the pointer and the rest of an answer. */
export function withMapPointer(map: CmuMaps, rest: string): string {
  const body = rest.trim();
  return body ? `${mapPointer(map)}\n\n${body}` : mapPointer(map);
}

/**
 * The whole-text repair: with a map attached, drops failure-claim sentences and, if any were dropped
 * (here, or `alreadyDropped` earlier while streaming), leads with the map pointer. Without a map the
 * text is returned unchanged.
 */
export function repairFailureClaims(
  text: string,
  map: CmuMaps,
  ctx: FailureClaimContext = { otherToolFailed: false },
  alreadyDropped = 0,
): { text: string; repaired: boolean } {
  if (!map.url) return { text, repaired: false };
  const dropped = dropSentences(text, (s) => isFailureClaim(s, ctx));
  if (dropped.removed + alreadyDropped === 0) return { text, repaired: false };
  return { text: withMapPointer(map, dropped.text), repaired: true };
}
