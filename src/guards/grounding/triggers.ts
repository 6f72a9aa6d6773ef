/**
 * What may start a claim in streamed text (grounding-stream.ts holds a segment from there to its end):
 * a digit that starts a word, a letter-first id ("P3", "DH2315"), a dollar sign, noon and midnight, a number
 * in words before units or a floor ("twelve units", "fifth floor"); and the words that may lead into one (a
 * month, a season, a number or an ordinal in words), held while they arrive.
 */

import { HOUR_WORDS, MAYBE_WORD_HOUR } from './clock-times.js';

/** Numbers and ordinals written in words, for units ("twelve units") and floors ("fifth floor"); claims.ts reads them. */
export const NUMBER_WORDS = ['zero', ...HOUR_WORDS, 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen', 'twenty'];
export const ORDINAL_WORDS = ['ground', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh', 'twelfth'];
/** Units or a floor in words, as claims.ts reads them (one test, no capture). */
const WORDY_HINT = /unit|floor|level/i;
const WORD_CLAIM = new RegExp(
  String.raw`\b(?:(?:${NUMBER_WORDS.slice(1).join('|')})(?:\s?-\s?|\s)units?|(?:${ORDINAL_WORDS.slice(1).join('|')})[\s-]+(?:floor|level))\b`,
  'i',
);
// Noon and midnight start a claim with no digit (a cheap test first, the word-bounded one only on a hit).
const CLOCK_WORD_HINT = /no{2}n|mid(?:day|night)/i;
const CLOCK_WORD = /\b(?:noon|midday|midnight)\b/i;
/** The rest of a letter-first id from its first digit ("3", "104A"): digits, maybe a capital, then the word's end. */
const LETTER_FIRST_REST = /^\d{1,4}[A-Z]?(?![\p{L}\p{N}])/u;
/** Words that begin a claim without a digit (held at the end of what arrived), and their prefixes. */
const LEAD_INS = new Set([
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  'spring', 'summer', 'fall', 'autumn', 'winter',
  // A number or an ordinal in words waits for the word after it: units or a floor make it a claim.
  ...NUMBER_WORDS.slice(1),
  ...ORDINAL_WORDS.slice(1),
]);
/**
 * From three letters: "Su" of "Sure" or "No" leave at once (a one-chunk wait on many first words), while
 * "Sep", "Sum" or "noo" wait. Model chunks are tokens, which seldom cut a month's name in two.
 */
const MIN_PREFIX = 3;
const PREFIXES = new Set<string>();
for (const w of [...LEAD_INS, 'noon', 'midday', 'midnight']) for (let i = MIN_PREFIX; i <= w.length; i++) PREFIXES.add(w.slice(0, i));
/** Their first letters, either case: most words are ruled out by their first letter alone. */
const FIRST_LETTERS = new Set([...PREFIXES].flatMap((p) => [p.charCodeAt(0), p.toUpperCase().charCodeAt(0)]));
const LONGEST_LEAD_IN = Math.max(...[...LEAD_INS].map((w) => w.length));
/** Could the word `buf[start, end)` be a lead-in (or, `prefix`, still grow into one)? */
export const mayLeadIn = (buf: string, start: number, end: number, prefix: boolean): boolean => {
  const length = end - start;
  if (length < (prefix ? MIN_PREFIX : 3) || length > LONGEST_LEAD_IN || !FIRST_LETTERS.has(buf.charCodeAt(start))) return false;
  const word = buf.slice(start, end).toLowerCase();
  return prefix ? PREFIXES.has(word) : LEAD_INS.has(word);
};

const NUMBERS = new Set([...NUMBER_WORDS.slice(1), ...ORDINAL_WORDS.slice(1)]);
/** What may follow a number in words to make it a claim, and their prefixes ("u", "un", "fl"…). */
const AFTER_NUMBER = new Set<string>();
for (const w of ['units', 'floor', 'level']) for (let i = 1; i <= w.length; i++) AFTER_NUMBER.add(w.slice(0, i));

/** Is `word` a number or an ordinal in words that may lead into units or a floor? */
export const isNumberWord = (word: string): boolean => NUMBERS.has(word.toLowerCase());

/**
 * Is the word `buf[start, end)` still arriving a prefix of "units", "floor" or "level" right after a number
 * in words ("twelve un", "fifth-fl")? Then the start of that number, which waits with it; else -1.
 */
export function numberBefore(buf: string, start: number, end: number): number {
  if (end - start > 5 || !AFTER_NUMBER.has(buf.slice(start, end).toLowerCase())) return -1;
  let j = start;
  if (j > 0 && buf[j - 1] === '-') j--;
  while (j > 0 && isSpace(buf[j - 1]!)) j--;
  if (j === start) return -1;
  let i = j;
  while (i > 0 && isLetter(buf[i - 1]!)) i--;
  return i < j && NUMBERS.has(buf.slice(i, j).toLowerCase()) ? i : -1;
}

const isCapital = (c: number) => c >= 0x41 && c <= 0x5a;
export const isSpace = (c: string) => c === ' ' || c === '\t' || c === '\r' || c === '\u00a0';
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
/** A letter or digit (ASCII by comparison, anything else by its Unicode category). */
const isWordChar = (ch: string | undefined): boolean => {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 0x80) return isDigit(c) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return /[\p{L}\p{N}]/u.test(ch);
};
export const isLetter = (ch: string): boolean => {
  const c = ch.charCodeAt(0);
  if (c < 0x80) return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return /\p{L}/u.test(ch);
};

// An hour in words (clock-times.ts's cheap test first), and one where a time may stand: after a word of hours, or before
// minutes, a half of the day, a part of the day or "o'clock" ("until nine", "eight p.m.", "seven thirty").
const HOUR_WORD = `(?:${HOUR_WORDS.join('|')})`;
const HOUR_WORD_CLAIM = new RegExp(
  String.raw`\b(?:(?:until|till|'?til|at|from|by|to|past|after|before|opens?|closes?|daily|hours|weekdays|weekends|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)[,:]?\s+${HOUR_WORD}\b|${HOUR_WORD}[ -](?:fifteen|thirty|forty|o['’]clock|[ap]\.?\s?m\b|in\s+the\b|at\s+night|tonight))`,
  'i',
);
/** How much released text an hour in words is read with (its word of hours before it). */
const HOUR_WORD_LEAD = 12;

/**
 * Does `text` hold what may start a claim: a digit that starts a word (never one inside it: "word0",
 * "mp3") or follows capitals that do ("P3", "A104", "DH2315"), a dollar sign, noon and midnight, units
 * or a floor in words, or an hour in words where a time may stand? `before` is the character released
 * just before it; `lead`, the text released before it (only its end is read).
 */
export function hasTrigger(text: string, before: string | undefined, lead = ''): boolean {
  // Noon, midday and midnight all have an "n"; units, floors and levels have a "u", an "f" or an "l"
  // (either case): the word tests run only on text that has one.
  let n = false;
  let wordy = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x24) return true;
    if (isDigit(c)) {
      const prev = i > 0 ? text[i - 1] : before;
      if (!isWordChar(prev)) return true;
      // After one to four capitals that start a word, digits and at most one capital to the word's end:
      // a letter-first route or room, or a room glued to its building's code ("P3", "A104", "DH2315"),
      // not "H1N1".
      // (A capital released before this text may start such a word: held, to be judged.)
      let j = i - 1;
      while (j >= 0 && i - j <= 4 && isCapital(text.charCodeAt(j))) j--;
      const head = j < 0 ? before : text[j];
      const startsWord = i === 0 ? isCapital(prev!.charCodeAt(0)) : j < i - 1 && (j < 0 ? !isWordChar(head) || isCapital(head!.charCodeAt(0)) : !isCapital(head!.charCodeAt(0)) && !isWordChar(head));
      if (startsWord && LETTER_FIRST_REST.test(text.slice(i, i + 6))) return true;
    }
    if (c === 0x6e || c === 0x4e) n = true;
    else if (c === 0x75 || c === 0x66 || c === 0x6c || c === 0x55 || c === 0x46 || c === 0x4c) wordy = true;
  }
  if (n && CLOCK_WORD_HINT.test(text) && CLOCK_WORD.test(text)) return true;
  if (wordy && WORDY_HINT.test(text) && WORD_CLAIM.test(text)) return true;
  // An hour in words has three letters or more (a shorter text is a word still arriving, held as a lead-in).
  return text.length >= 3 && MAYBE_WORD_HOUR.test(text) && HOUR_WORD_CLAIM.test(lead.slice(-HOUR_WORD_LEAD) + text);
}
