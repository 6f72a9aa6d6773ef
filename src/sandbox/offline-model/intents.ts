/**
 * What the user is asking, by the words of the question: the offline model's whole "understanding".
 * Deterministic and rule-based on purpose: the sandbox must answer the same way every time, so tests
 * and demos are repeatable.
 */

export type Intent =
  | { kind: 'remember'; fact: string }
  | { kind: 'forget'; fact: string | null }
  | { kind: 'course'; courseId: string; aspects: Array<'prereqs' | 'schedule' | 'instructors'> }
  | { kind: 'where'; place: string; origin: string | null }
  | { kind: 'eats'; cuisine: string | null; at: CampusMoment | null }
  | { kind: 'hours'; place: string }
  | { kind: 'guide'; query: string }
  | { kind: 'chat'; smallTalk: 'thanks' | 'hello' | null };

/** A weekday (0 = Sunday) and time of day, as `eats_get_locations_open_at_time` takes it. */
export interface CampusMoment {
  day: number;
  hour: number;
  minute: number;
}

const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** "on Saturday at 7:30 pm", "Friday noon"; null without a weekday (today's date is not ours to guess). */
export function parseMoment(q: string): CampusMoment | null {
  const day = DAYS.findIndex((d) => new RegExp(`\\b${d}s?\\b`, 'i').test(q));
  if (day < 0) return null;
  if (/\bnoon\b/i.test(q)) return { day, hour: 12, minute: 0 };
  if (/\bmidnight\b/i.test(q)) return { day, hour: 0, minute: 0 };
  const t = /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)\b/i.exec(q) ?? /\bat (\d{1,2})(?::(\d{2}))?\b/i.exec(q);
  if (!t) return { day, hour: 12, minute: 0 };
  let hour = Number(t[1]) % 12;
  if (t[3]?.toLowerCase() === 'pm' || (!t[3] && hour > 0 && hour < 7)) hour += 12; // "at 5" means 5 pm on campus
  if (!t[3] && Number(t[1]) === 12) hour = 12;
  return { day, hour, minute: Number(t[2] ?? 0) };
}

/** Words that follow "is … open" without naming a place. */
const NOT_A_PLACE = /^(anything|anywhere|something|everything|it|there|food|dining|any\b.*|the dining halls?)$/i;

function hoursIntent(q: string): Intent | null {
  const m =
    /\b(?:is|are)\s+(.+?)\s+(?:still\s+)?open\b/i.exec(q) ??
    /\bwhen (?:does|do|is|are)\s+(.+?)\s+(?:open|close)/i.exec(q) ??
    /\bhours (?:of|for)\s+(.+?)[?.!]*$/i.exec(q);
  const place = m?.[1]?.replace(/^the\s+/i, '').trim();
  return place && !NOT_A_PLACE.test(place) ? { kind: 'hours', place } : null;
}

const CUISINES = ['pizza', 'coffee', 'vegetarian', 'vegan', 'indian', 'sushi', 'asian', 'mexican', 'bakery', 'tacos'];
const FOOD = /\b(eat|eating|food|hungry|dining|lunch|dinner|breakfast|brunch|restaurants?|caf[eé]s?|snacks?)\b/i;
const OPEN_NOW = /\bopen\b.*\b(now|right now|today|currently)\b|\b(right now|currently open)\b/i;
const GUIDE = /\b(meal plans?|dinextra|blocks|wi-?fi|eduroam|andrew (id|account)|library|libraries|printing|parking|shuttles?|escort|bus(es)?|counseling|caps|health services|guide)\b/i;

/** Trailing punctuation, "on campus" and a leading article are not part of a place name. */
function cleanPlace(text: string): string {
  return text
    .replace(/[?.!]+$/g, '')
    .replace(/\s+(on campus|located|building)$/i, '')
    .replace(/^(the)\s+/i, '')
    .trim();
}

/** First-person wording to a stored fact about the user: "I am vegetarian" → "Is vegetarian". */
export function toFact(text: string): string {
  const t = text.trim().replace(/[.!]+$/, '');
  const rules: Array<[RegExp, string]> = [
    [/^i am\s+/i, 'Is '],
    [/^i'm\s+/i, 'Is '],
    [/^i’m\s+/i, 'Is '],
    [/^i have\s+/i, 'Has '],
    [/^i like\s+/i, 'Likes '],
    [/^i prefer\s+/i, 'Prefers '],
    [/^i live\s+/i, 'Lives '],
    [/^my\s+/i, 'Their '],
  ];
  for (const [re, replacement] of rules) if (re.test(t)) return t.replace(re, replacement);
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function whereIntent(q: string): Intent | null {
  const route = /\b(?:directions|route|way|walk|get|go)\b.*?\bfrom\s+(.+?)\s+to\s+(.+)$/i.exec(q);
  if (route) return { kind: 'where', origin: cleanPlace(route[1]!), place: cleanPlace(route[2]!) };
  const to = /\b(?:how (?:do i|can i|to) get to|directions to|way to|take me to)\s+(.+)$/i.exec(q);
  if (to) return { kind: 'where', place: cleanPlace(to[1]!), origin: null };
  const where = /\bwhere(?:'s|’s|\s+is|\s+are)\s+(.+)$/i.exec(q) ?? /\b(?:find|locate|show me)\s+(.+?)\s+on the map$/i.exec(q);
  if (where) return { kind: 'where', place: cleanPlace(where[1]!), origin: null };
  return null;
}

/** Classifies a question. The order matters: an explicit "remember" wins, then a course number, food, places. */
export function detectIntent(question: string): Intent {
  const q = question.trim();
  // "remember that …" or "remember I/my …": not "do you remember what I said?".
  const remember = /\bremember\s+(?:that\s+(.+)|((?:i|i'm|i’m|my)\b.+))$/i.exec(q);
  const remembered = remember?.[1] ?? remember?.[2] ?? /\bdon'?t forget\s+(?:that\s+)?(.+)$/i.exec(q)?.[1];
  if (remembered?.trim()) return { kind: 'remember', fact: toFact(remembered) };
  if (/\bforget\s+(everything|all\b|what you know)/i.test(q)) return { kind: 'forget', fact: null };
  const forget = /\bforget\s+(?:that\s+)?(.+)$/i.exec(q)?.[1];
  if (forget?.trim()) return { kind: 'forget', fact: toFact(forget) };

  const course = /\b(\d{2})-?(\d{3})\b/.exec(q);
  if (course) {
    const aspects: Array<'prereqs' | 'schedule' | 'instructors'> = [];
    if (/\b(prereq\w*|requisites?|before taking|need to take)\b/i.test(q)) aspects.push('prereqs');
    if (/\b(when|schedule|times?|meets?|lectures?)\b/i.test(q)) aspects.push('schedule');
    if (/\b(who teaches|instructors?|professors?|taught)\b/i.test(q)) aspects.push('instructors');
    return { kind: 'course', courseId: `${course[1]}-${course[2]}`, aspects };
  }

  // Meal plans are a guide topic even though they mention food.
  if (/\b(meal plans?|dinextra)\b/i.test(q)) return { kind: 'guide', query: q.replace(/[?.!]+$/, '') };
  const cuisine = CUISINES.find((c) => new RegExp(`\\b${c}\\b`, 'i').test(q)) ?? null;
  const hours = hoursIntent(q);
  if (hours) return hours;
  if (FOOD.test(q) || OPEN_NOW.test(q) || (/\bopen\b/i.test(q) && parseMoment(q))) {
    const at = parseMoment(q);
    return { kind: 'eats', cuisine: OPEN_NOW.test(q) || at ? null : cuisine, at };
  }

  const where = whereIntent(q);
  if (where) return where;
  if (cuisine) return { kind: 'eats', cuisine, at: null };
  if (GUIDE.test(q)) return { kind: 'guide', query: q.replace(/[?.!]+$/, '') };
  if (/^\W*(thanks|thank you|thx|cheers)\b/i.test(q)) return { kind: 'chat', smallTalk: 'thanks' };
  if (/^\W*(hi|hello|hey|good (morning|afternoon|evening))\b/i.test(q)) return { kind: 'chat', smallTalk: 'hello' };
  return { kind: 'chat', smallTalk: null };
}

/** A 2-5 word title for a conversation that starts with this question (`/agent/title`). */
export function titleFor(question: string): string {
  const intent = detectIntent(question);
  switch (intent.kind) {
    case 'remember':
      return 'Saving a Preference';
    case 'forget':
      return 'Forgetting Saved Facts';
    case 'course':
      return `Course ${intent.courseId} Questions`;
    case 'where':
      return intent.origin ? 'Campus Walking Directions' : `Finding ${titleCase(intent.place.split(/\s+/).slice(0, 3).join(' '))}`;
    case 'eats':
      return intent.cuisine ? `${titleCase(intent.cuisine)} on Campus` : intent.at ? 'Dining Hours on Campus' : 'Dining Options Now';
    case 'hours':
      return `${titleCase(intent.place.split(/\s+/).slice(0, 3).join(' '))} Opening Hours`;
    case 'guide':
      return 'Student Guide Question';
    default: {
      const words = question.replace(/[^\p{L}\p{N}\s'-]+/gu, ' ').split(/\s+/).filter(Boolean).slice(0, 4);
      return words.length >= 2 ? titleCase(words.join(' ')) : 'Campus Chat';
    }
  }
}

function titleCase(s: string): string {
  return s.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}
