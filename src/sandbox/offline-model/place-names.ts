/**
 * Place names as students say them: a place cut out of a longer sentence ("the library right now" is
 * the library), and the user's own place ("where I live", "my dorm") when no saved fact names it yet.
 * Nicknames ("the UC", "the gym") are the map search's business: it knows what buildings hold.
 */

/** Words after a place that say when, not where: "the library right now", "gates tonight", "wean at 9 pm". */
const WHEN_TAIL =
  /\s+(?:(?:that (?:is|are|'s) )?(?:open|opened)\b|right now|now|rn|currently|today|tonight|tomorrow|this (?:morning|afternoon|evening|week(?:end)?)|(?:at|around|after|before|by) (?:\d|noon|midnight)|on (?:sun|mon|tue|wed|thu|fri|sat)\w*|(?:sun|mon|tue|wed|thu|fri|sat)\w*day)\b.*$/i;

/** Trailing punctuation and time words, "on campus", filler words and a leading article are not part of a place name. */
export function cleanPlace(text: string): string {
  return text
    .replace(/[?.!,]+/g, ' ')
    .replace(WHEN_TAIL, '')
    .replace(/\s+(on campus|located|building|please|pls|plz|again|then|exactly|on the map|from here|to eat|for food|to grab)\b.*$/i, '')
    .replace(/^\s*(the|a|an)\s+/i, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The user's own place, however they say it: "where I live", "my dorm", "home", "me". */
export const HOME = '@home';
export const HOME_PHRASE = String.raw`where i (?:live|stay|sleep)|my (?:dorm|house|hall|residence|room|place|apartment|building)|home`;
const HOME_WORDS = new RegExp(`^(?:${HOME_PHRASE}|me|here|my location)$`, 'i');
export const isHome = (place: string): boolean => HOME_WORDS.test(place.trim());
