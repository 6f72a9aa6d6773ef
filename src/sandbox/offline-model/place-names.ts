/**
 * Place names as students say them, and as the map data names them: nicknames ("the UC", "the CS
 * building", "the gym"), a place cut out of a longer sentence ("the library right now" is the library),
 * and where the user lives, from a saved fact ("Lives in Stever House").
 */

interface Nickname {
  said: RegExp;
  /** The building, as the map search knows it. */
  building: string;
  /** For a place inside a building or a description of one: how the answer names it. */
  what?: string;
}

const NICKNAMES: Nickname[] = [
  { said: /^(?:the\s+)?(?:uc|cuc|university cent(?:er|re)|student cent(?:er|re)|student union)$/i, building: 'University Center' },
  { said: /^(?:the\s+)?(?:library|main library|libary|librar)$/i, building: 'Hunt Library' },
  { said: /^(?:the\s+)?(?:gates|gates center|gates hillman|gates-hillman|ghc)$/i, building: 'Gates' },
  {
    said: /^(?:the\s+)?(?:cs|scs|comp ?sci|computer science|school of computer science)(?:\s+(?:building|dept|department|school))?$/i,
    building: 'Gates',
    what: 'The computer science building is',
  },
  { said: /^(?:the\s+)?(?:gym|gymnasium|fitness cent(?:er|re)|weight room|pool|swimming pool)$/i, building: 'University Center', what: 'The gym (fitness center and pool) is in' },
  { said: /^(?:the\s+)?(?:business school|tepper school|tepper)$/i, building: 'Tepper' },
  { said: /^(?:the\s+)?(?:police|campus police|university police)$/i, building: 'Police' },
];

const nicknameOf = (place: string): Nickname | undefined => NICKNAMES.find((n) => n.said.test(place.trim()));

/** The place as the map data would name it: "the UC" → "University Center", "the gym" → "University Center". */
export function placeQuery(place: string): string {
  return nicknameOf(place)?.building ?? place;
}

/** How an answer introduces a nickname that names something in or about a building ("The gym is in"). */
export function nicknameLead(place: string): string | null {
  return nicknameOf(place)?.what ?? null;
}

/** Is this a name students use for a building (so not a dining location)? */
export const isBuildingNickname = (place: string): boolean => nicknameOf(place) !== undefined;

/** Words after a place that say when, not where: "the library right now", "gates tonight", "wean at 9 pm". */
const WHEN_TAIL =
  /\s+(?:(?:that (?:is|are|'s) )?(?:open|opened)\b|right now|now|rn|currently|today|tonight|tomorrow|this (?:morning|afternoon|evening|week(?:end)?)|(?:at|around|after|before|by) (?:\d|noon|midnight)|on (?:sun|mon|tue|wed|thu|fri|sat)\w*|(?:sun|mon|tue|wed|thu|fri|sat)\w*day)\b.*$/i;

/** Trailing punctuation and time words, "on campus", filler words and a leading article are not part of a place name. */
export function cleanPlace(text: string): string {
  return text
    .replace(/[?.!,]+/g, ' ')
    .replace(WHEN_TAIL, '')
    .replace(/\s+(on campus|located|building|please|pls|plz|again|then|exactly|on the map|from here)\b.*$/i, '')
    .replace(/^\s*(the|a|an)\s+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The user's own place, however they say it: "where I live", "my dorm", "home", "me". */
export const HOME = '@home';
const HOME_WORDS = /^(?:where i (?:live|stay|sleep)|my (?:dorm|house|hall|residence|room|place|apartment)|home|me|here|my location)$/i;
export const isHome = (place: string): boolean => HOME_WORDS.test(place.trim());
