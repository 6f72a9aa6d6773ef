/**
 * Planning hints: which tool groups a message asks about, from hint words per group, and whether a
 * message is conversational ("thanks!", "reply in one sentence") or a follow-up ("what about Wean?").
 * Deterministic on purpose: no model call before the answer starts.
 */
import type { ToolGroup } from './tool-groups.js';

/**
 * A hint pattern matching `alternatives` as whole words. JavaScript's `\b` knows only ASCII word
 * characters (with or without the `u` flag), so `café\b` could never match: the boundaries here are
 * "no letter, digit or underscore of any script" on either side.
 */
const words = (alternatives: string): RegExp => new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives})(?![\\p{L}\\p{N}_])`, 'iu');

const HINTS: ReadonlyArray<[ToolGroup, RegExp]> = [
  [
    'eats',
    words(String.raw`food|eat|eats|eating|dining|dine|lunch|dinner|breakfast|brunch|coffee|cafe|café|restaurants?|pizza|sushi|hungry|snacks?|menu|cuisine|vegetarian|vegan|halal|kosher|drinks?|tea|boba|bagels?|sandwich(es)?|salad|burgers?|open now`),
  ],
  [
    'courses',
    words(String.raw`courses?|class(es)?|prereq(uisite)?s?|co-?req(uisite)?s?|professors?|instructors?|lectures?|units|syllabus|gen-?eds?|semester|taught|teaches|department|\d{2}-?\d{3}`),
  ],
  [
    'maps',
    words(String.raw`where|directions?|buildings?|near|nearby|nearest|closest|close to|next to|how (do|can) i get|get to|route|walk(ing)?|map|located|location|distance|far|room`),
  ],
  [
    'guide',
    words(String.raw`housing|dorms?|residence|room selection|roommates?|first-?years?|meal ?plans?|dinextra|polic(y|ies)|registration|register|shuttles?|escort|bus(es)?|parking|tuition|financial aid|orientation|wi-?fi|eduroam|internet|andrew (id|account)|(student )?id cards?|student id|lost (my )?(id|card)|academic calendar|calendar|deadlines?|drop(ping)? (a |my )?(class|course)|withdraw(al|ing)?|finals|final exams?|spring break|laundry|mail|mailroom|packages?|move-?in|move out|librar(y|ies)|print(ing|er)?|study spaces?|health|counsel(or|ors|ing|ling)|caps|mental health|emergenc(y|ies)|guide`),
  ],
];

const SMALL_TALK =
  /^(thanks|thank you|thx|ty|ok(ay)?|cool|great|nice|awesome|perfect|got it|sounds good|hi|hello|hey|bye|good ?bye|good (morning|night|evening)|you'?re (great|awesome|the best)|lol|haha)\b[\s!.,:)]*(so much|a lot|again|!)*[\s!.,:)]*$/i;
const FORMAT_REQUEST =
  /\b(reply|answer|respond|say (it|that)|explain (it|that)|make it|rewrite|rephrase|summari[sz]e|shorter|longer|simpler|in one sentence|in (a )?bullet|translate|in (english|spanish|french|german|chinese))\b/i;
const FOLLOW_UP = /^\s*(and|also|what about|how about|and what about|what of|same for|same question for|or)\b/i;

/** Known groups whose hint words appear in the text, in a fixed order. */
export function hintedGroups(text: string): ToolGroup[] {
  return HINTS.filter(([, re]) => re.test(text)).map(([g]) => g);
}

/** Small talk or a request about the form of the previous answer: no data tools needed. */
export function isConversational(text: string): boolean {
  const t = text.trim();
  return SMALL_TALK.test(t) || (FORMAT_REQUEST.test(t) && hintedGroups(t).length === 0);
}

/** A message that leans on the conversation so far ("what about Wean Hall?"). */
export function isFollowUp(text: string): boolean {
  return FOLLOW_UP.test(text);
}
