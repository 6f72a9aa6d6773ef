/**
 * Clock times in text, in either style, as minutes after midnight: "9 PM", "9pm", "9 p.m.", "7a",
 * "10:30p", "21:00", "07:30", "noon", "midnight", "8 in the morning", "7:30 at night", and ranges whose
 * first end borrows the second's half of the day ("2–3:20 PM", "11–1 PM", "7:30am–9pm"). In a text about
 * hours (it names a day, "open", "closes", "hours"), a range of bare hours is read too ("Mon–Fri 9–5",
 * "10:30–3", "noon to 4"), and a bare hour after "until", "till", "at", "from" or "by" that ends its
 * phrase ("open till 3 on weekdays"), each bare one either half of the day. Hours in words are times
 * with their half of the day or "o'clock" ("eight p.m.", "seven thirty in the morning", "five o'clock"),
 * and in a text about hours after "until", "at", "from"... ("until nine on weekdays") or joined in a
 * range ("eleven to eight"); "half past seven" and "quarter to 10" are times too. One reader serves the
 * answer and the evidence (claims.ts), so "2 PM" in an answer and "14:00" in a dining detail reach the
 * same number.
 */

/** A clock time found in text: its span and the minutes it may mean (two when the half of the day is unknown). */
export interface ClockTime {
  start: number;
  end: number;
  /** Minutes after midnight (0-1439); "9:30" with no AM/PM and nothing to borrow from may be 570 or 1290. */
  minutes: number[];
  /** Index of the range this time belongs to (times joined by "-", "to", "until"...); its own index when alone. */
  range: number;
}

interface Token {
  start: number;
  end: number;
  hour: number;
  minute: number;
  /** 'am' / 'pm' written; '24h' when the hour can only be read on a 24-hour clock; null when unknown. */
  half: 'am' | 'pm' | '24h' | null;
  /** Written as hours and minutes without a meridiem ("10:00", "23:00"): a range of these is on one clock. */
  colon: boolean;
  /** An end of a range of bare hours ("9–5"): either half of the day. */
  bare?: boolean;
}

/** The ends of ranges of bare hours ("9–5", "10:30–3", "noon to 4") that no other time took, as tokens. */
function bareRanges(text: string, tokens: Token[], free: (s: number, e: number) => boolean): void {
  const overlaps = (s: number, e: number) => !free(s, e) || tokens.some((t) => t.start < e && s < t.end);
  for (const m of text.matchAll(BARE_RANGE)) {
    const start = m.index;
    const end = start + m[0].length;
    if (!free(start, end) || PAGES_BEFORE.test(text.slice(Math.max(0, start - 12), start))) continue;
    const ends: Array<[number, string]> = [
      [start, m[1]!],
      [start + m[1]!.length + m[2]!.length, m[3]!],
    ];
    const parsed = ends.map(([at, written]) => {
      if (written.toLowerCase() === 'noon') return { start: at, end: at + 4, hour: 12, minute: 0, half: '24h' as const, colon: false };
      const [h, mm] = written.split(':');
      return { start: at, end: at + written.length, hour: Number(h), minute: Number(mm ?? 0), half: null, colon: false, bare: true };
    });
    if (parsed.some((t) => t.hour < 1 || t.hour > 12)) continue;
    // "10:30 to 2": the first end is already a time of its own ("10:30", "noon"); the second joins it.
    const first = tokens.find((t) => t.start === start && t.end === parsed[0]!.end);
    // "8-7:30": the second end is already a time of its own ("7:30", either half); the bare first joins it.
    const second = tokens.find((t) => t.start === parsed[1]!.start && t.end === end);
    if (first && first.half !== 'am' && first.half !== 'pm' && !overlaps(parsed[1]!.start, end)) tokens.push(parsed[1]!);
    else if (!first && second && second.half === null && !overlaps(start, parsed[0]!.end)) tokens.push(parsed[0]!);
    else if (!overlaps(start, end)) tokens.push(...parsed);
  }
}

// "a.m." keeps its last period; "AM." leaves the sentence's period alone.
const HALF = String.raw`(a\.\s?m\.|p\.\s?m\.|a\.?\s?m\b|p\.?\s?m\b)`;
// "9 PM", "9:30pm", "9 a.m.": a meridiem decides the half of the day.
const WITH_HALF = new RegExp(String.raw`(?<![\w$.:/,])(\d{1,2})(?::([0-5]\d))?\s?${HALF}`, 'gi');
// "21:00", "07:30", "9:30", "14:00:00": hours and minutes (and seconds) without a meridiem.
// A meridiem after one ("15:00 pm", as models write it) is read by WITH_HALF when it can be, and taken
// into the span of a 24-hour time it cannot change.
const COLON = /(?<![\w$.:/,])([01]?\d|2[0-4]):([0-5]\d)(?::[0-5]\d)?(?![\d:])/gi;
const REDUNDANT_HALF = /^\s?[ap]\.?\s?m\b/i;
// "8 in the morning", "7:30 at night", "9 o'clock in the evening": the part of the day in words decides
// the half ("12 at night" is midnight); the phrase is part of the time's span, so a mark takes it too.
const DAY_PART =
  /(?<![\w$.:/,])(\d{1,2})(?::([0-5]\d))?(?:\s+o['’]clock)?\s+(in\s+the\s+morning|in\s+the\s+afternoon|in\s+the\s+evening|at\s+night|tonight)\b/gi;
const WORDS = /\b(noon|midday|midnight)\b/gi;
// "7a", "4p", "10:30p": a meridiem of one letter, written against the number.
const COMPACT = /(?<![\w$.:/,])(\d{1,2})(?::([0-5]\d))?([ap])(?![\w'’])/gi;
// Two numbers joined, or noon joined to one: the cheap test before the others.
const MAYBE_BARE_RANGE = /(?:\d|noon)\s*(?:-|–|—|to|until|till)\s*\d/i;
// A text about hours: where a range of bare hours is a range of times.
const HOURS_CUE = /\b(?:open(?:s|ing)?|clos(?:e|es|ed|ing)|hours|daily|every\s+day|week(?:day|end)s?|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)\b/i;
// "9–5", "10:30–3", "noon to 4": two bare hours joined; not "3-4 people", "pages 9–5", "21-14".
const BARE_RANGE =
  /(?<![\w$.:/,–—-])(noon|\d{1,2}(?::[0-5]\d)?)(\s*(?:-|–|—|to|until|till)\s*)(\d{1,2}(?::[0-5]\d)?)(?![\w:/–—-]|[.,]\d|\s*(?:%|[ap]\.?\s?m\b|[ap]\b|people|persons|students|units?|minutes?|mins?|hours?|hrs?|days?|weeks?|points?|credits?))/gi;
// "open till 3 on weekdays", "opens at 11, and closes at 7:30": a bare hour after a word of hours, ending
// its phrase (read only in a text about hours; either half of the day).
const BARE_AFTER =
  /\b(?:until|till|'?til|at|from|by)\s+(1[0-2]|0?[1-9])(?::([0-5]\d))?(?=\s*(?:[.,;!?)]|$)|\s+(?:on|every|each|daily|today|tonight|tomorrow|and|or|but|then|weekdays|weekends|sharp)\b)/gi;
const PAGES_BEFORE = /\b(?:pages?|pp\.?|chapters?|ch\.?|items?|questions?|problems?|score[sd]?|won|lost|beat|rooms?|floors?|levels?|sections?|recitations?|lectures?|labs?|weeks?|steps?|groups?|seats?|tables?)\s*$/i;
// Hours in words ("nine", "seven thirty", "five o'clock"): one to twelve, maybe minutes in words.
export const HOUR_WORDS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const MINUTE_WORDS: Record<string, number> = { fifteen: 15, thirty: 30, 'forty-five': 45, 'forty five': 45 };
const WORD_HOUR = String.raw`(${HOUR_WORDS.join('|')})(?:[ -](fifteen|thirty|forty[ -]five))?`;
// An hour in words that says it is a time: its half of the day, a part of the day or "o'clock" after it.
const WORD_TIME = new RegExp(
  String.raw`(?<![\w'’-])${WORD_HOUR}(?:\s+o['’]clock)?(?:\s?${HALF}|\s+(in\s+the\s+morning|in\s+the\s+afternoon|in\s+the\s+evening|at\s+night|tonight)\b|(?<=o['’]clock)(?![\w'’]))`,
  'gi',
);
// In a text about hours: an hour in words after a word of hours that ends its phrase ("open until nine
// on weekdays"), or two joined ("eleven to eight"), not counts ("two to four people").
const WORD_AFTER = new RegExp(
  String.raw`\b(?:until|till|'?til|at|from|by)\s+${WORD_HOUR}(?=\s*(?:[.,;!?)]|$)|\s+(?:on|every|each|daily|today|tonight|tomorrow|and|or|but|then|weekdays|weekends|sharp|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)\b)`,
  'gi',
);
// A range in words only right after a word of hours ("open eleven to eight", "from nine to five",
// "Mon–Fri, nine to five"): numbers in words joined are far more often counts ("sections one to three",
// "seats two to six").
const WORD_RANGE = new RegExp(
  String.raw`(?<=\b(?:open|opens|from|hours|daily|weekdays|weekends|(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*)[,:]?\s+)${WORD_HOUR}(\s*(?:-|–|—|to|until|till)\s*)${WORD_HOUR}(?![\w'’-]|\s+(?:people|persons|students|units?|minutes?|mins?|hours?|days?|weeks?|times|credits?|points?|of)\b)`,
  'gi',
);
// "half past seven", "quarter to 10", "quarter after six p.m.": minutes told against an hour (in words or digits).
const QUARTER = new RegExp(
  String.raw`(?<![\w'’-])(half|quarter)\s+(past|after|to|till|before)\s+(${HOUR_WORDS.join('|')}|1[0-2]|[1-9])(?:\s+o['’]clock)?(?:\s?${HALF}|\s+(in\s+the\s+morning|in\s+the\s+afternoon|in\s+the\s+evening|at\s+night|tonight)\b|(?![\w'’:]))`,
  'gi',
);
/** "half past" or "quarter to" anywhere in a text: the cheap test before QUARTER. */
export const MAYBE_QUARTER = /\b(?:half|quarter)\s+(?:past|after|to|till|before)\b/i;
/** An hour in words anywhere in a text: the cheap test before the readers of hours in words (here, claims.ts, triggers.ts). */
export const MAYBE_WORD_HOUR = new RegExp(String.raw`\b(?:${HOUR_WORDS.join('|')})\b`, 'i');

/** A token for an hour in words at `start` ("seven thirty": hour and minute words as matched). */
const wordToken = (start: number, end: number, hour: string, minute: string | undefined, half: Token['half'], bare: boolean): Token => ({
  start,
  end,
  hour: HOUR_WORDS.indexOf(hour.toLowerCase()) + 1,
  minute: minute ? MINUTE_WORDS[minute.toLowerCase().replace(/\s+/, ' ')] ?? 0 : 0,
  half,
  colon: false,
  ...(bare && { bare: true }),
});

/** The half of the day a meridiem ("p.m.") or a part of the day in words ("in the morning") after an hour gives, or null. */
function halfAfter(meridiem: string | undefined, part: string | undefined, hour: number): Token['half'] {
  if (meridiem) return meridiem.toLowerCase().startsWith('a') ? 'am' : 'pm';
  if (!part) return null;
  return part.toLowerCase().endsWith('morning') || (hour === 12 && part.toLowerCase().endsWith('night')) ? 'am' : 'pm';
}

/**
 * "half past seven", "quarter to 10 p.m." (module note), as tokens, read before any other time so "7 PM"
 * of "half past 7 PM" is not read alone; their spans are marked in `taken`.
 */
function quarterTimes(text: string, tokens: Token[], taken: Uint8Array): void {
  for (const m of text.matchAll(QUARTER)) {
    const end = m.index + m[0].length;
    if (taken.subarray(m.index, end).some((x) => x !== 0)) continue;
    const named = HOUR_WORDS.indexOf(m[3]!.toLowerCase()) + 1 || Number(m[3]);
    const before = /^(?:to|till|before)$/i.test(m[2]!);
    const minute = m[1]!.toLowerCase() === 'half' ? (before ? -1 : 30) : before ? 45 : 15;
    if (minute < 0) continue; // "half to ten" is no time
    const hour = before ? ((named + 10) % 12) + 1 : named;
    const half = halfAfter(m[4], m[5], hour);
    tokens.push({ start: m.index, end, hour, minute, half, colon: false, ...(half === null && { bare: true }) });
    taken.fill(1, m.index, end);
  }
}

/** Hours in words (module note), as tokens where no other time is. */
function wordTimes(text: string, tokens: Token[], free: (s: number, e: number) => boolean): void {
  const open = (s: number, e: number) => free(s, e) && !tokens.some((t) => t.start < e && s < t.end);
  for (const m of text.matchAll(WORD_TIME)) {
    const end = m.index + m[0].length;
    if (!open(m.index, end)) continue;
    const half = halfAfter(m[3], m[4], HOUR_WORDS.indexOf(m[1]!.toLowerCase()) + 1);
    tokens.push(wordToken(m.index, end, m[1]!, m[2], half, half === null));
  }
  if (!HOURS_CUE.test(text)) return;
  for (const m of text.matchAll(WORD_RANGE)) {
    const firstEnd = m.index + m[1]!.length + (m[2] ? m[2].length + 1 : 0);
    const secondStart = firstEnd + m[3]!.length;
    const end = m.index + m[0].length;
    if (open(m.index, firstEnd)) tokens.push(wordToken(m.index, firstEnd, m[1]!, m[2], null, true));
    if (open(secondStart, end)) tokens.push(wordToken(secondStart, end, m[4]!, m[5], null, true));
  }
  for (const m of text.matchAll(WORD_AFTER)) {
    const end = m.index + m[0].length;
    const start = end - m[1]!.length - (m[2] ? m[2].length + 1 : 0);
    if (open(start, end)) tokens.push(wordToken(start, end, m[1]!, m[2], null, true));
  }
}

// What joins the two ends of a range.
const JOIN = /^\s*(?:-|–|—|to|until|till|through|and)\s*$/i;
// A bare hour ("2" of "2–3:20 PM") right before a joiner, read only when a time with a meridiem follows.
const BARE_BEFORE = /(?<![\w$.:/,])(\d{1,2})(?::([0-5]\d))?\s*(?:-|–|—|to|until|till|through)\s*$/i;

const toMinutes = (hour: number, minute: number, half: 'am' | 'pm'): number => ((hour % 12) + (half === 'pm' ? 12 : 0)) * 60 + minute;

/** Reads the clock times of `text` (spans marked in `taken` are skipped), left to right. */
export function readClockTimes(text: string, taken: Uint8Array): ClockTime[] {
  const tokens: Token[] = [];
  const free = (s: number, e: number) => {
    for (let i = s; i < e; i++) if (taken[i]) return false;
    return true;
  };
  if (MAYBE_QUARTER.test(text)) quarterTimes(text, tokens, taken);
  for (const m of text.matchAll(WITH_HALF)) {
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12 || !free(m.index, m.index + m[0].length)) continue;
    tokens.push({ start: m.index, end: m.index + m[0].length, hour, minute: Number(m[2] ?? 0), half: m[3]!.toLowerCase().startsWith('a') ? 'am' : 'pm', colon: false });
  }
  for (const m of text.matchAll(DAY_PART)) {
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12 || !free(m.index, m.index + m[0].length)) continue;
    tokens.push({ start: m.index, end: m.index + m[0].length, hour, minute: Number(m[2] ?? 0), half: halfAfter(undefined, m[3], hour), colon: false });
  }
  for (const m of text.matchAll(COLON)) {
    if (!free(m.index, m.index + m[0].length) || tokens.some((t) => t.start <= m.index && m.index < t.end)) continue;
    const hour = Number(m[1]);
    const minute = Number(m[2]);
    if (hour === 24 && minute !== 0) continue;
    // A leading zero, an hour past 12 or hour 0 is a 24-hour clock; "9:30" alone could be either half.
    const half = m[1]!.length === 2 && m[1]!.startsWith('0') ? '24h' : hour >= 13 || hour === 0 ? '24h' : null;
    let end = m.index + m[0].length;
    const redundant = hour >= 13 ? REDUNDANT_HALF.exec(text.slice(end, end + 6)) : null;
    if (redundant) end += redundant[0].length;
    else if (REDUNDANT_HALF.test(text.slice(end, end + 6))) continue; // "9:30pm" that WITH_HALF could not read ("0:30 pm")
    tokens.push({ start: m.index, end, hour: hour % 24, minute, half, colon: true });
  }
  for (const m of text.matchAll(COMPACT)) {
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12 || !free(m.index, m.index + m[0].length) || tokens.some((t) => t.start < m.index + m[0].length && m.index < t.end)) continue;
    tokens.push({ start: m.index, end: m.index + m[0].length, hour, minute: Number(m[2] ?? 0), half: m[3]!.toLowerCase() === 'a' ? 'am' : 'pm', colon: false });
  }
  for (const m of text.matchAll(WORDS)) {
    // "Midnight Diner", "Noon Grill": a capitalised clock word before a capitalised word is a name.
    if (!free(m.index, m.index + m[0].length) || (/^[A-Z]/.test(m[1]!) && /^ [A-Z]/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 2)))) continue;
    const midnight = m[1]!.toLowerCase() === 'midnight';
    tokens.push({ start: m.index, end: m.index + m[0].length, hour: midnight ? 0 : 12, minute: 0, half: '24h', colon: false });
  }
  if (MAYBE_WORD_HOUR.test(text)) wordTimes(text, tokens, free);
  tokens.sort((a, b) => a.start - b.start);

  // The bare first end of a range: "2" of "2–3:20 PM", only before a time that names its half of the day.
  for (const t of [...tokens]) {
    if (t.half !== 'am' && t.half !== 'pm') continue;
    const before = text.slice(Math.max(0, t.start - 24), t.start);
    const m = BARE_BEFORE.exec(before);
    if (!m) continue;
    const start = t.start - before.length + m.index;
    const end = start + m[1]!.length + (m[2] ? m[2].length + 1 : 0);
    const hour = Number(m[1]);
    if (hour < 1 || hour > 12 || !free(start, end) || tokens.some((o) => o.start < end && start < o.end)) continue;
    tokens.push({ start, end, hour, minute: Number(m[2] ?? 0), half: null, colon: false });
  }
  tokens.sort((a, b) => a.start - b.start);
  if (MAYBE_BARE_RANGE.test(text) && HOURS_CUE.test(text)) bareRanges(text, tokens, free);
  if (HOURS_CUE.test(text)) {
    for (const m of text.matchAll(BARE_AFTER)) {
      const start = m.index + m[0].length - m[1]!.length - (m[2] ? m[2].length + 1 : 0);
      const end = m.index + m[0].length;
      if (!free(start, end) || tokens.some((t) => t.start < end && start < t.end)) continue;
      tokens.push({ start, end, hour: Number(m[1]), minute: Number(m[2] ?? 0), half: null, colon: false, bare: true });
    }
  }
  tokens.sort((a, b) => a.start - b.start);

  // Ranges: neighbours joined by a joiner share one range; an end without a half borrows the next one's
  // (or the previous one's), taking the other half when borrowing would put it after its end ("11–1 PM").
  const out: ClockTime[] = [];
  let range = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    const between = i > 0 ? text.slice(tokens[i - 1]!.end, t.start) : '';
    // "between 2 and 4 PM" is a range; "until 2 PM and 11 AM–8 PM" two times, the first with its own half of the day.
    const joined = i > 0 && JOIN.test(between) && !(/and/i.test(between) && (tokens[i - 1]!.half === 'am' || tokens[i - 1]!.half === 'pm'));
    if (!joined) range = out.length;
    out.push({ start: t.start, end: t.end, minutes: [], range });
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.half === 'am' || t.half === 'pm') out[i]!.minutes = [toMinutes(t.hour, t.minute, t.half)];
    else if (t.half === '24h') out[i]!.minutes = [(t.hour * 60 + t.minute) % 1440];
  }
  // A range written on a 24-hour clock ("10:00 - 23:00", "11:30 - 02:00", the dining tool's per-day
  // lines): an end that could be either half is read on that clock too, not given the other end's half
  // (which read "10:00 - 23:00" as opening at 10 PM, issue 59).
  const clock24 = new Set(out.filter((o, i) => tokens[i]!.colon && tokens[i]!.half === '24h').map((o) => o.range));
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (out[i]!.minutes.length === 0 && t.colon && clock24.has(out[i]!.range)) out[i]!.minutes = [t.hour * 60 + t.minute];
  }
  for (let i = 0; i < tokens.length; i++) {
    if (out[i]!.minutes.length > 0) continue;
    const t = tokens[i]!;
    const next = out.slice(i + 1).find((o, k) => o.range === out[i]!.range && tokens[i + 1 + k]!.half !== null);
    const previous = [...out.slice(0, i)].reverse().find((o) => o.range === out[i]!.range && o.minutes.length === 1);
    if (next && next.minutes.length === 1) {
      const nextHalf = next.minutes[0]! >= 720 ? 'pm' : 'am';
      let value = toMinutes(t.hour, t.minute, nextHalf);
      if (value > next.minutes[0]!) value = toMinutes(t.hour, t.minute, nextHalf === 'pm' ? 'am' : 'pm');
      out[i]!.minutes = [value];
    } else if (previous) {
      const prevHalf = previous.minutes[0]! >= 720 ? 'pm' : 'am';
      let value = toMinutes(t.hour, t.minute, prevHalf);
      if (value < previous.minutes[0]!) value = toMinutes(t.hour, t.minute, 'pm');
      out[i]!.minutes = [value];
    } else if (t.bare || t.minute !== 0 || text.slice(t.start, t.end).includes(':')) {
      // "9:30" with nothing to borrow from: either half of the day.
      out[i]!.minutes = [toMinutes(t.hour, t.minute, 'am'), toMinutes(t.hour, t.minute, 'pm')];
    }
  }
  return out.filter((o) => o.minutes.length > 0);
}
