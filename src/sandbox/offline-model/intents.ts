/**
 * What the user is asking, by the words of the question and, for a follow-up ("what about Wean?",
 * "and on Sunday?"), by the question before it: the offline model's whole "understanding".
 * Deterministic and rule-based on purpose: the sandbox must answer the same way every time, so tests
 * and demos are repeatable. docs/design/sandbox.md lists what it understands.
 */
import { toThirdPerson } from '../../memory/fact-wording.js';
import { HOME, cleanPlace, isHome } from './place-names.js';
import { mentions } from './dialogue.js';
import { searchWords, type Source } from './retrieve.js';
import { DAY_WORD, parseDay, parseWhen, type CampusMoment } from './when.js';
import { busFollowUp, busIntent, type BusIntent } from './bus-intents.js';
import { prereqCheckOf, type PrereqCheck } from './prereq-check.js';
import { forgetKindOf, selfQuestionOf, type SelfTopic } from './self-questions.js';
import { courseAspects, courseTitleOf, termAsked, type CourseAspect, type Semester } from './course-intents.js';

export type { CourseAspect, Semester } from './course-intents.js';

export type { CampusMoment } from './when.js';

/** A question outside the campus data, or outside what an assistant should do, that deserves its own honest answer. */
export type OffTopic = 'weather' | 'creative' | 'news' | 'general-knowledge' | 'homework';

export type Intent =
  | { kind: 'remember'; fact: string }
  | { kind: 'forget'; fact: string | null }
  | { kind: 'about-me'; topic: SelfTopic }
  | { kind: 'course'; courseId: string; aspects: CourseAspect[]; term: Semester | null; prereqCheck?: PrereqCheck }
  /** A course named by its title, a shortening or a nickname ("the intro databases course"): `query` searches the catalog's titles. */
  | { kind: 'course-title'; title: string; query: string; aspects: CourseAspect[]; term: Semester | null }
  | { kind: 'geneds'; school: string | null; department: string | null }
  | { kind: 'where'; place: string }
  | { kind: 'route'; origin: string; destination: string; focus: 'directions' | 'distance' }
  | EatsIntent
  | { kind: 'dining-in'; place: string }
  | { kind: 'hours'; place: string; day: number | null }
  /** Search every source (retrieve.ts), or one when the question names it; `offTopic` answers when nothing is found. */
  | { kind: 'search'; query: string; only?: Source; who?: boolean; offTopic: OffTopic | null }
  | { kind: 'chat'; smallTalk: 'thanks' | 'hello' | null; offTopic: OffTopic | null }
  | BusIntent;


/**
 * A food question: what (a cuisine, or the saved diet), when (now, a moment, or a whole day) and where
 * from (a place, or `HOME` for where the user lives: the answer ranks by walking distance from it).
 * `only` narrows a list to what also matches a second food word ("of those, which are vegan").
 */
export interface EatsIntent {
  kind: 'eats';
  cuisine: string | null;
  only: string | null;
  at: CampusMoment | null;
  /** How the question bounded the moment ("before 8:00 AM"), said in the answer. */
  asked?: string;
  day: number | null;
  /** Only what is open now ("coffee near the library right now"); a list without a time is of now anyway. */
  now: boolean;
  diet: boolean;
  near: string | null;
}

/** Cuisine words a student uses, and what the dining search knows them as. */
const CUISINES: Array<[RegExp, string]> = [
  [/\bpizzas?\b/i, 'pizza'],
  [/\b(coffee|espresso|latte|cappuccino)\b/i, 'coffee'],
  [/\bvegetarian\b|\bveggie\b/i, 'vegetarian'],
  [/\bvegan\b/i, 'vegan'],
  [/\b(indian|curry|curries)\b/i, 'indian'],
  [/\b(sushi|poke)\b/i, 'sushi'],
  [/\b(asian|japanese|chinese|noodles?)\b/i, 'asian'],
  [/\b(mexican|burritos?|tacos?)\b/i, 'mexican'],
  [/\b(bakery|pastry|pastries|croissants?|cookies?|cakes?)\b/i, 'bakery'],
  [/\b(groceries|grocery|convenience|snacks?)\b/i, 'convenience'],
  [/\b(sandwich(?:es)?|soups?)\b/i, 'sandwiches'],
  [/\b(allergen|allergy|allergies|gluten)\b/i, 'allergen'],
  [/\bsmoothies?\b/i, 'smoothies'],
];
export const cuisineOf = (q: string): string | null => CUISINES.find(([re]) => re.test(q))?.[1] ?? null;

const FOOD = /\b(eat|eating|food|hungry|starving|dining|dinning|lunch|dinner|breakfast|brunch|restaurants?|resturants?|caf[eé]s?|cafeterias?|meals?|grab a bite|bite to eat)\b/i;
const OPEN_NOW = /\bopen\b.*\b(now|right now|currently|rn)\b|\b(right now|currently open)\b|\bopen\s*\?*$/i;
const DIET = /\b(my diet|fits? (?:my|me)|for me|my (?:dietary|food) (?:needs|restrictions)|i can eat)\b/i;

/** School codes, by how students name the schools. */
const SCHOOLS: Array<[RegExp, string]> = [
  [/\b(dietrich|dc|h&ss|hss|humanities)\b/i, 'DC'],
  [/\b(scs|school of computer science|computer science school)\b/i, 'SCS'],
  [/\b(mcs|mellon college of science|science college)\b/i, 'MCS'],
  [/\b(cit|engineering|college of engineering)\b/i, 'CIT'],
  [/\b(tepper|business school)\b/i, 'TSB'],
  [/\b(cfa|fine arts)\b/i, 'CFA'],
];

/** Department names students use for gen-ed questions ("history gen eds"). */
const DEPARTMENTS = ['history', 'psychology', 'economics', 'english', 'statistics', 'art', 'philosophy', 'modern languages', 'music', 'design', 'architecture', 'university wide studies'];

/** What follows "eat in/at/near" without being a building. */
const NOT_A_BUILDING = /^(noon|midnight|night|the moment|moment|campus|cmu|pittsburgh|evening|morning|afternoon|this\b|my\b|a\b|budget|once|all|late|home|(?:right )?now|today|tonight|tomorrow|lunch ?time|dinner ?time)\b/i;

/** First-person wording to a stored fact about the user: "I am vegetarian" → "Is vegetarian". */
export const toFact = (text: string): string => toThirdPerson(text.trim().replace(/[.!]+$/, ''));

const COURSE_ID = /\b(\d{2})\s?-?\s?(\d{3})\b/;


const NOT_A_PLACE = /^(anything|anywhere|something|everything|it|there|food|dining|any\b.*|the dining halls?|dining halls?|what|places?|restaurants?|they|you|those|them|these|which\b.*)$/i;

function hoursIntent(q: string, today: number | null): Intent | null {
  const m =
    /\b(?:is|are)\s+(.+?)\s+(?:still\s+)?(?:open|closed)\b/i.exec(q) ??
    /\bwhen (?:does|do|is|are)\s+(.+?)\s+(?:open|close)/i.exec(q) ??
    /\bwhat time (?:does|do|is|are)\s+(.+?)\s+(?:open|close)/i.exec(q) ??
    /\bhours (?:of|for|at)\s+(.+?)(?:\s+on\s+\w+)?[?.!]*$/i.exec(q) ??
    /^(.+?)(?:'s|’s)?\s+(?:opening\s+)?hours\b/i.exec(q);
  const place = m?.[1] ? cleanPlace(m[1]).replace(/^(what|when|is|are)\s+/i, '') : '';
  if (!place || NOT_A_PLACE.test(place) || /\b(of|among) (those|them|these)\b/i.test(q)) return null;
  // "is pizza open" asks about food; "is Sushi Sama open" about a place that happens to name one.
  const dining = mentions(place).find((m) => m.entity.kind === 'dining')?.entity.name;
  if ((FOOD.test(place) || cuisineOf(place)) && !dining) return null;
  return { kind: 'hours', place: dining ?? place, day: parseDay(q, today) };
}

/**
 * The place a food question ranks from: "near the library", "closest dining to Tepper", "nearest
 * dining to where I live" (`HOME`), "nearest coffee" (`HOME`: from where the user lives, if saved).
 */
export function nearOf(q: string): string | null {
  const m =
    /\b(?:closest|nearest|near|close)\b.*?\b(?:to|from)\s+(?!eat\b|grab\b|get\b)(.+)$/i.exec(q) ??
    /\b(?:near|next to|close to|around|walking distance (?:of|from))\s+(?!\d)(.+)$/i.exec(q);
  if (m) {
    const place = cleanPlace(m[1]!);
    if (place && !NOT_A_BUILDING.test(place)) return isHome(place) ? HOME : place;
    if (isHome(place)) return HOME;
  }
  return /\b(nearest|closest|nearby|near me|close by|closest to me)\b/i.test(q) ? HOME : null;
}

/** Food words of a question, and when and where from. */
function eatsParts(q: string, today: number | null): Omit<EatsIntent, 'kind' | 'only'> {
  const when = parseWhen(q, today);
  return {
    cuisine: cuisineOf(q),
    at: when?.kind === 'moment' ? when.at : null,
    ...(when?.kind === 'moment' && when.asked ? { asked: when.asked } : {}),
    day: when?.kind === 'day' ? when.day : null,
    now: OPEN_NOW.test(q),
    diet: DIET.test(q),
    near: nearOf(q),
  };
}

/** A place as the question names it; the user's own ("my dorm") is `HOME` when no saved fact named it. */
const placeOf = (text: string): string => (isHome(cleanPlace(text)) ? HOME : cleanPlace(text));

function routeIntent(q: string): Intent | null {
  const far =
    /\bhow (?:far|long)(?: away| of a walk)? is (?:it )?(?:from )?(.+?)\s+(?:from|to)\s+(.+?)$/i.exec(q) ??
    /\b(?:distance|how far) (?:between|from)\s+(.+?)\s+(?:and|to)\s+(.+?)$/i.exec(q) ??
    /\bhow long (?:does it take|would it take|to walk)(?: to walk)? from\s+(.+?)\s+to\s+(.+?)$/i.exec(q) ??
    /\bhow many (?:meters|metres|m|feet|ft|miles|minutes|mins|steps|blocks)\b.*?\bfrom\s+(.+?)\s+to\s+(.+?)[?.!\s]*$/i.exec(q) ??
    /\b(?:is|are)\s+(.+?)\s+(?:far|close|near|a long walk)\s+(?:from|to)\s+(.+?)[?.!\s]*$/i.exec(q);
  if (far) {
    // "How far is A from B": the walk starts at B. "between A and B" / "from A to B": it starts at A.
    const fromFirst = /\b(between|from)\b/i.test(q.slice(0, far.index + far[0].indexOf(far[1]!)));
    const [origin, destination] = fromFirst ? [far[1]!, far[2]!] : [far[2]!, far[1]!];
    return { kind: 'route', origin: placeOf(origin), destination: placeOf(destination), focus: 'distance' };
  }
  // "I'm at Wean right now, how do I walk to Hunt Library?": where the student is, and where to.
  const at = /\b(?:i'?m|i am|we'?re|currently) (?:at|in|outside|near|by) (.+?)(?:\s+(?:right now|now|atm|currently))?\s*[,;.!?-]+\s*(?:so\s+)?(?:how|what|which|can|could|directions?|show)\b.*?\b(?:to|towards?)\s+(.+?)[?.!\s]*$/i.exec(q);
  if (at && !/\bfrom\b/i.test(q)) return { kind: 'route', origin: placeOf(at[1]!), destination: placeOf(at[2]!), focus: 'directions' };
  const verb = String.raw`\b(?:directions?|route|way|walk|walking|get|go|head|path)\b.*?`;
  const fromTo = new RegExp(`${verb}\\bfrom\\s+(.+?)\\s+to\\s+(.+)$`, 'i').exec(q);
  if (fromTo) return { kind: 'route', origin: placeOf(fromTo[1]!), destination: placeOf(fromTo[2]!), focus: 'directions' };
  const toFrom = new RegExp(`${verb}\\bto\\s+(.+?)\\s+from\\s+(.+)$`, 'i').exec(q);
  if (toFrom) return { kind: 'route', origin: placeOf(toFrom[2]!), destination: placeOf(toFrom[1]!), focus: 'directions' };
  return null;
}

function whereIntent(q: string): Intent | null {
  const to = /\b(?:how (?:do i|can i|to|would i|should i) (?:get|go|walk) to|directions? to|way to|take me to|route to|navigate to)\s+(.+)$/i.exec(q);
  if (to) return { kind: 'where', place: cleanPlace(to[1]!) };
  // The place first: "weh 5300 where is that", "gates, where?", "hunt library - where is it".
  const first = /^(.+?)[\s,:-]+(?:where|wher|whre)(?:'s|’s|\s+is)?(?:\s+(?:that|it|this))?(?:\s+at)?\s*[?.!]*$/i.exec(q);
  const where =
    first ??
    /\b(?:where|wher|were|whre)(?:'s|’s|s|\s+is|\s+are|\s+s|\s+the)?\s+(?!(?:can|do|should|could|would|will|did|does)\s)(.+)$/i.exec(q) ??
    /\b(?:find|locate|show me)\s+(.+?)(?:\s+on the map)?$/i.exec(q) ??
    /\bwhat building is\s+(.+)$/i.exec(q);
  if (where) {
    const place = placeOf(where[1]!.replace(/^(?:is|are)\s+/i, ''));
    if (place && !/^(i|you|we|it|that)\b/i.test(place)) return { kind: 'where', place };
  }
  return null;
}

/** Questions the campus data cannot answer, by kind: each gets an honest answer of its own. */
const OFF_TOPIC: Array<[RegExp, OffTopic]> = [
  [/\b(weather|forecast|rain(?:ing|y)?|snow(?:ing|y)?|temperature|umbrella|(?:cold|hot|warm) (?:outside|today|out))\b/i, 'weather'],
  [/\b(jokes?|poems?|stor(?:y|ies)|riddles?|songs?|haiku|limerick|essay|funny)\b/i, 'creative'],
  [/\b(news|scores?|who won|game last night|stocks?|elections?|steelers|penguins|pirates|nfl|nba)\b/i, 'news'],
  [/^\W*(explain|define|what is an?|what are|who (?:is|was)|why (?:is|do|does)|how does)\b/i, 'general-knowledge'],
];

function genedsIntent(q: string): Intent | null {
  if (!/\b(gen[- ]?eds?|general[- ]education|gened requirements?|distribution requirements?)\b/i.test(q)) return null;
  const school = SCHOOLS.find(([re]) => re.test(q))?.[1] ?? null;
  const department = DEPARTMENTS.find((d) => new RegExp(`\\b${d}\\b`, 'i').test(q)) ?? null;
  return { kind: 'geneds', school, department };
}

/** A question about courses or who teaches them, without a course number: the course catalog's search. */
const COURSE_WORDS = /\b(courses?|classes|class|cources?|clases?|taught|teach(?:es|ing)?|professor|prof|instructor|lecturer)\b/i;

/** Classifies one question on its own. The order matters: explicit memory wins, then courses, food, places. */
export function detectIntent(question: string, today: number | null = null): Intent {
  const q = question.trim().replace(/\s+/g, ' ');
  // Questions about the student ("where am I living?", "do you remember my diet?") before anything that
  // would save or search: they are answered from the saved facts.
  const self = selfQuestionOf(q);
  if (self) return { kind: 'about-me', topic: self };
  // "remember that …" or "remember I/my …": not "do you remember what I said?".
  const remember = /\bremember\s+(?:that\s+(.+)|((?:i|i'm|i’m|im|ive|my)\b.+))$/i.exec(q);
  const remembered = remember?.[1] ?? remember?.[2] ?? /\bdon'?t forget\s+(?:that\s+)?(.+)$/i.exec(q)?.[1];
  if (remembered?.trim()) return { kind: 'remember', fact: toFact(remembered) };
  if (/\bforget\s+(everything|all\b|what you know)/i.test(q)) return { kind: 'forget', fact: null };
  const forget = /\bforget\s+(?:that\s+)?(.+)$/i.exec(q)?.[1];
  if (forget?.trim()) return { kind: 'forget', fact: forgetKindOf(forget) ?? toFact(forget) };
  if (HOMEWORK.test(q)) return { kind: 'chat', smallTalk: null, offTopic: 'homework' };
  const query = searchWords(q);

  const geneds = genedsIntent(q);
  if (geneds) return geneds;
  const check = prereqCheckOf(q);
  if (check) return { kind: 'course', courseId: check.courseId, aspects: ['prereqs'], term: null, prereqCheck: check.check };
  const course = COURSE_ID.exec(q);
  if (course) return { kind: 'course', courseId: `${course[1]}-${course[2]}`, aspects: courseAspects(q), term: termAsked(q) };
  const titled = courseTitleOf(q);
  if (titled) return { kind: 'course-title', ...titled };
  const bus = busIntent(q);
  if (bus) return bus;

  // Housing, meal plans, ID cards and the calendar are searched for even when they mention food, a building or a class.
  if (GUIDE_FIRST.test(q)) return { kind: 'search', query, only: 'guide', offTopic: null };

  const route = routeIntent(q);
  if (route) return route;
  const hours = hoursIntent(q, today);
  if (hours) return hours;
  const eats = eatsParts(q, today);
  const food = FOOD.test(q) || eats.now || !!eats.cuisine || (/\bopen\b/i.test(q) && (eats.at !== null || eats.day !== null));
  if (food && eats.near) return eatsIntent(eats, null);
  const diningIn = /\b(?:eat|food|dining|lunch|dinner|breakfast|coffee|snacks?)\b.*?\b(?:in|at|inside)\s+(?:the\s+)?([^?.!]+?)[?.!]*$/i.exec(q);
  if (diningIn && !NOT_A_BUILDING.test(diningIn[1]!) && !DAY_WORD.test(diningIn[1]!) && !/\d/.test(diningIn[1]!)) {
    const place = cleanPlace(diningIn[1]!);
    if (place) return { kind: 'dining-in', place };
  }
  if (food) return eatsIntent(eats, null);

  const where = whereIntent(q);
  if (where) return where;
  // "who teaches machine learning": the best course's instructors too.
  if (COURSE_WORDS.test(q) && query) return { kind: 'search', query, only: 'courses', who: /\bwho\b/i.test(q), offTopic: null };
  if (/^\W*(thanks|thank you|thx|ty|cheers|great,? thanks)\b/i.test(q)) return { kind: 'chat', smallTalk: 'thanks', offTopic: null };
  if (/^\W*(hi|hello|hey|good (morning|afternoon|evening)|yo)\W*$/i.test(q)) return { kind: 'chat', smallTalk: 'hello', offTopic: null };
  const offTopic = OFF_TOPIC.find(([re]) => re.test(q))?.[1] ?? null;
  // General knowledge may still be campus knowledge ("who is Andy Pavlo"): searched first.
  if (query && (offTopic === null || offTopic === 'general-knowledge')) return { kind: 'search', query, offTopic };
  return { kind: 'chat', smallTalk: null, offTopic };
}

/** Doing a student's graded work: "do my homework", "solve my problem set", "write my essay for 76-101". */
const HOMEWORK =
  /\b(?:do|solve|finish|write|complete|answer)\b.{0,30}\b(?:my|our|this)\b.{0,20}\b(?:homework|hw|assignments?|problem sets?|psets?|labs?|essays?|papers?|exams?|quiz(?:zes)?)\b|\b(?:homework|hw|assignments?|problem sets?|psets?|essays?|papers?)\b.{0,20}\bfor me\b|\b(?:answers|solutions) (?:to|for) (?:my|the|this)\b.{0,20}\b(?:homework|hw|assignment|problem set|pset|exam|quiz)\b/i;

/** An eats intent from a question's parts ("now" yields to a named time). */
function eatsIntent(parts: Omit<EatsIntent, 'kind' | 'only'>, only: string | null): EatsIntent {
  return { kind: 'eats', ...parts, only, now: parts.now && parts.at === null && parts.day === null };
}

/** The student guide's topics that win over food, places and courses ("deadline to drop a class", "lost my ID card"). */
const GUIDE_FIRST =
  /\bwhere (?:will|would|should|can|do) (?:i|we|first[- ]years?|freshm[ae]n) (?:live|stay)\b|\bwhere (?:can|could|do|should) (?:i|we) (?:go )?(?:study|read|do (?:my )?homework)\b|\bsomewhere (?:quiet )?to study\b|\b(meal plans?|dinextra|housing|room selection|first[- ]years? (?:live|housing|dorms?)|id cards?|student id|academic calendar|(?:add|drop|withdraw)(?:ping|ing)? (?:from )?(?:a |my )?(?:class|course)|(?:drop|add|withdrawal?) deadlines?|deadlines? to (?:drop|add|withdraw))\b/i;

/** "what about Wean Hall?", "and on Sunday?", "how about 15-122", "same for pizza": the new subject. */
const FOLLOW_UP = /^\s*(?:(?:and|ok|okay|so)\s*,?\s*)?(?:(?:what|how)\s+about|and(?:\s+(?:for|on|at|in|to))?|same\s+(?:for|on)|also|then)\s+(.+?)[?.!\s]*$/i;

/** "which of those are vegan?", "any of them open on Saturday?", "of those, which is closest to Gates?". */
const OF_THOSE = /\b(?:of|among|from)\s+(?:those|them|these|that list)\b|\bwhich (?:ones?|one)\b|\bwhich (?:is|are) (?:closest|nearest)\b/i;

/** A question narrowing the previous food list: its food word, time or place replace or narrow the old ones. */
function narrowEats(previous: EatsIntent, q: string, today: number | null): EatsIntent {
  const parts = eatsParts(q, today);
  const timed = parts.at !== null || parts.day !== null;
  const cuisine = previous.cuisine ?? parts.cuisine;
  const only = previous.cuisine && parts.cuisine && parts.cuisine !== previous.cuisine ? parts.cuisine : previous.only;
  return {
    kind: 'eats',
    cuisine,
    only,
    at: timed ? parts.at : parts.now ? null : previous.at,
    day: timed ? parts.day : parts.now ? null : previous.day,
    // The list was of what is open now unless it named a cuisine or a time: its narrowing still is.
    now: parts.now || (!timed && previous.now) || (!timed && !previous.cuisine && previous.at === null && previous.day === null),
    diet: previous.diet || parts.diet,
    near: parts.near ?? previous.near,
  };
}

/**
 * The intent of a question in its conversation: a follow-up takes the previous question's intent with
 * the new subject (a place, a day, a course, a cuisine), a narrowing ("which of those …") keeps the
 * previous food list and narrows it; anything else stands on its own.
 * `earlier` holds the user's earlier questions, oldest first.
 */
export function resolveIntent(question: string, earlier: readonly string[], today: number | null = null): Intent {
  const own = detectIntent(question, today);
  if (earlier.length === 0) return own;
  const previous = resolveIntent(earlier.at(-1)!, earlier.slice(0, -1), today);
  if (previous.kind === 'eats' && OF_THOSE.test(question)) return narrowEats(previous, question, today);
  const follow = FOLLOW_UP.exec(question);
  if (!follow) return own;
  const rest = follow[1]!;
  const day = parseDay(rest, today);
  const when = parseWhen(rest, today);
  const courseId = COURSE_ID.exec(rest);
  const cuisine = cuisineOf(rest);
  const place = cleanPlace(rest.replace(/^(?:for|on|at|in|to)\s+/i, ''));
  // A course number or a food word is a new question in its own right.
  if (courseId && previous.kind !== 'course') return own;
  switch (previous.kind) {
    case 'eats': {
      if (when?.kind === 'moment') return { ...previous, at: when.at, asked: when.asked, day: null, now: false };
      if (day !== null) return previous.at ? { ...previous, at: { ...previous.at, day }, now: false } : { ...previous, day, now: false };
      if (cuisine) return { ...previous, cuisine };
      const near = nearOf(rest);
      if (near) return { ...previous, near };
      return { kind: 'hours', place, day: null };
    }
    case 'hours':
      if (day !== null) return { ...previous, day };
      return cuisine ? own : { kind: 'hours', place, day: previous.day };
    case 'where':
      return cuisine ? own : { kind: 'where', place };
    case 'route':
      return cuisine ? own : { ...previous, destination: place };
    case 'dining-in':
      return cuisine ? own : { kind: 'dining-in', place };
    case 'course':
      // "and its prerequisites?" asks its own aspect; "what about 15-122?" the previous one's.
      if (own.kind === 'course' && own.aspects.length > 0) return own;
      if (courseId) return { kind: 'course', courseId: `${courseId[1]}-${courseId[2]}`, aspects: previous.aspects, term: previous.term };
      return own;
    case 'geneds': {
      const school = SCHOOLS.find(([re]) => re.test(rest))?.[1] ?? null;
      const department = DEPARTMENTS.find((d) => new RegExp(`\\b${d}\\b`, 'i').test(rest)) ?? null;
      return school || department ? { kind: 'geneds', school: school ?? (department ? previous.school : null), department } : own;
    }
    case 'search':
      return own.kind === 'search' || own.kind === 'where' ? { ...previous, query: searchWords(rest) } : own;
    case 'bus':
      return busFollowUp(previous, rest) ?? own;
    default:
      return own;
  }
}
