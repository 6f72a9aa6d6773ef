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
    words(String.raw`food|eat|eats|eating|dining|dine|lunch|dinner|breakfast|brunch|coffee|cafe|café|restaurants?|pizza|sushi|hungry|snacks?|menu|cuisine|vegetarian|vegan|halal|kosher|drinks?|tea|boba|bagels?|sandwich(es)?|salad|burgers?|smoothies?|juice|bakery|tacos?|burritos?|mexican|indian|curr(y|ies)|asian|chinese|japanese|thai|noodles?|ramen|poke|espresso|latte|cookies?|groceries|grocery|pastr(y|ies)|desserts?|ice cream|open now|(?:what'?s|what is|anything|everything|something|places?) open|open (?:late|tonight|before|after|until|till)|late night|meal (plans?|blocks?|swipes?)|dining dollars|flex dollars`),
  ],
  [
    'courses',
    words(String.raw`courses?|class(es)?|prereq(uisite)?s?|co-?req(uisite)?s?|professors?|instructors?|lectures?|units|syllabus|gen[- ]?eds?|general education|semester|taught|teaches|department|\d{2}-?\d{3}`),
  ],
  [
    'maps',
    words(String.raw`where|directions?|buildings?|(?<!dining |residence )halls?|near|nearby|nearest|closest|close to|next to|how (do|can) i (get|find)|get to|route|walk(ing)?|map|located|location|distance|far|room|how many (meters|metres|feet|ft|miles|minutes|mins|steps|blocks)`),
  ],
  [
    'bus',
    // Buses and the PRT pass; a route id (61C, 28X, 67; "61 c"); a place the two Forbes & Morewood stops serve.
    words(String.raw`bus(es)?|shuttles?|prt|port authority|transit|next (one|ride)|ride (the|a) (bus|prt)|bus pass|(61|71) ?[a-d]|28 ?x|(the|next|route|bus) 6[79]|6[79] (bus|route)|squirrel hill|downtown|(the )?airport|waterfront|mckeesport|braddock( hills)?|shadyside|homestead`),
  ],
  [
    'guide',
    words(String.raw`housing|dorms?|where (will|would|should|do) (i|we|first[- ]years?|freshm[ae]n) (live|stay)|incoming|freshm[ae]n|residence|room selection|roommates?|first[- ]?years?|meal ?plans?|dinextra|polic(y|ies)|registration|register|shuttles?|escort|parking|tuition|financial aid|orientation|wi-?fi|eduroam|internet|andrew (id|account)|(student )?id cards?|student id|lost (my )?(id|card)|academic calendar|calendar|deadlines?|drop(ping)? (a |my )?(class|course)|withdraw(al|ing)?|finals|final exams?|spring break|laundry|mail|mailroom|packages?|move-?in|move out|meal (blocks?|swipes?)|dining dollars|librar(y|ies)|print(ing|er)?|study spaces?|study(ing)? (late|at night|quietly|spots?|rooms?)|quiet(ly)?|(place|spot|room|somewhere) to (study|read|work)|where (can|could|do|should) (i|we) (go )?(study|read|do (my )?homework)|study(ing)? (right )?now|new students?|just arrived|arriv(e|ed|ing)|first week|health|healthy?care|doctors?|nurses?|clinic|medical|medicine|pharmacy|prescriptions?|sick|ill|fever|flu|injur(y|ed)|hurt|vaccin\w*|counsel(or|ors|ing|ling)|caps|therap(y|ist)|mental health|stress(ed)?|anxi(ety|ous)|depress(ed|ion)|overwhelmed|lonely|someone to talk to|emergenc(y|ies)|safety|police|accessib(le|ility)|disabilit(y|ies)|jobs?|career|internships?|clubs?|guide`),
  ],
];

const SMALL_TALK =
  /^(thanks|thank you|thx|ty|ok(ay)?|cool|great|nice|awesome|perfect|got it|sounds good|hi|hello|hey|bye|good ?bye|good (morning|night|evening)|you'?re (great|awesome|the best)|lol|haha)\b[\s!.,:)]*(so much|a lot|again|!)*[\s!.,:)]*$/i;
/**
 * Courtesy of any length ("Thanks, that's really helpful!", "ok great, thank you so much :)"): what is
 * left once these phrases, fillers and punctuation are taken out is nothing.
 */
const COURTESY_PHRASES =
  /\b(thanks?( you)?|thx|ty|cheers|much appreciated|appreciate (it|that|this|the help)|(that|this|it)('?s| is| was)|that|this|it|you('?re| are)|very|really|so much|much|so|super|such|a lot|again|indeed|totally|ok(ay)?|alright|cool|great|nice|awesome|perfect|amazing|wonderful|excellent|fantastic|brilliant|helpful|useful|clear|good|got it|makes sense|sounds good|will do|noted|that helps|helps|the best|a (big )?help|lifesaver|have a (good|great|nice) (day|one|night|evening|weekend)|you too|bye|good ?bye|see (you|ya)|later|hi|hello|hey|lol|haha|wow|yes|yep|yeah|no problem|np|and|for|the|help|info|information|answer)\b/gi;

const FORMAT_REQUEST =
  /\b(reply|answer|respond|say (it|that)|explain (it|that)|make it|rewrite|rephrase|summari[sz]e|shorter|longer|simpler|in one sentence|in (a )?bullet|translate|in (english|spanish|french|german|chinese))\b/i;
const FOLLOW_UP = /^\s*(and|also|what about|how about|and what about|what of|same for|same question for|or)\b/i;
/** A word that points back at the conversation ("which of those", "its lecture", "how do I get there"). */
const BACK_REFERENCE = /\b(those|these|them|that one|this one|the one|its|it|there|that place|that course|that class)\b/i;

/**
 * General-education requirements: the gen-ed tools (two of the course group's eight, about 100 prompt
 * tokens a pass) are bound only when a message asks about them.
 */
const GEN_EDS = words(String.raw`gen[- ]?eds?|general education|requirements?|core (courses|requirements?)|distribution`);
export function asksAboutGenEds(text: string): boolean {
  return GEN_EDS.test(text);
}

/** Known groups whose hint words appear in the text, in a fixed order. */
export function hintedGroups(text: string): ToolGroup[] {
  return HINTS.filter(([, re]) => re.test(text)).map(([g]) => g);
}

/** Small talk, courtesy of any length, or a request about the form of the previous answer: no data tools needed. */
export function isConversational(text: string): boolean {
  const t = text.trim();
  if (SMALL_TALK.test(t) || (FORMAT_REQUEST.test(t) && hintedGroups(t).length === 0)) return true;
  // Courtesy only: nothing but courtesy phrases, punctuation and emoji once those are taken out.
  return t.length <= 200 && !t.includes('?') && t.replace(COURTESY_PHRASES, ' ').replace(/[\s\p{P}\p{S}]+/gu, '') === '';
}

/**
 * A request to remember or forget something, and nothing else ("Remember that I'm vegetarian"): its
 * words describe the fact, not a question for the campus tools, so it binds the memory tools only.
 */
const MEMORY_COMMAND = /^\s*(please\s+|can you\s+|could you\s+)?(remember|memori[sz]e|keep in mind|note (that|down)|don'?t forget|save (this|that)|forget|delete|erase)\b/i;
export function isMemoryCommand(text: string): boolean {
  return MEMORY_COMMAND.test(text) && !text.includes('?');
}

/** A message that leans on the conversation so far ("what about Wean Hall?", "which of those is closest?"). */
export function isFollowUp(text: string): boolean {
  return FOLLOW_UP.test(text) || BACK_REFERENCE.test(text);
}
