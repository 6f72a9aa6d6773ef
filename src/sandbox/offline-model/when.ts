/**
 * When a food question is about: a weekday with a time ("Saturday at 7:30 pm", "tonight at 9", "at 1 AM",
 * "after midnight"), or a weekday alone ("on Saturday"). Times without a weekday are today's, and the
 * small hours (before 5 AM) of a question asked without a weekday, or "tonight", belong to the night
 * after today: asked on a Wednesday, "at 1 AM" and "after midnight" mean Thursday 1:00 and 0:30.
 * "before 8am" and "after 9pm" are half an hour either side (7:30, 9:30).
 */
import { clock12 } from '../campus/dining-hours.js';

/** A weekday (0 = Sunday) and time of day, as `eats_get_locations_open_at_time` takes it. */
export interface CampusMoment {
  day: number;
  hour: number;
  minute: number;
}

/** `asked`: how the question bounded the time ("before 8:00 AM"), when it asked about a moment near it. */
export type When = { kind: 'moment'; at: CampusMoment; asked?: string } | { kind: 'day'; day: number };

export const DAY_WORD = /\b(sun|mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?)(?:day)?s?\b/i;
const DAY_PREFIX: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };

/** Hours before this, asked of "tonight" or of no day at all, are the coming night's. */
const SMALL_HOURS_END = 5;

/** The weekday a question names ("sunday", "Sat", "tomorrow", "tonight"), given today's weekday. */
export function parseDay(q: string, today: number | null): number | null {
  const named = DAY_WORD.exec(q);
  if (named) return DAY_PREFIX[named[1]!.slice(0, 3).toLowerCase()] ?? null;
  if (today === null) return null;
  if (/\btomorrow\b/i.test(q)) return (today + 1) % 7;
  if (/\b(today|tonight|this (morning|afternoon|evening))\b/i.test(q)) return today;
  return null;
}

/** The clock time a question names, in minutes after midnight; null without one. */
function parseClock(q: string): number | null {
  if (/\bnoon\b/i.test(q)) return 12 * 60;
  if (/\bafter midnight\b/i.test(q)) return 30;
  if (/\bmidnight\b/i.test(q)) return 0;
  const t =
    /\b(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)/i.exec(q) ??
    /\b(?:at|around|by|before|after|until|till)\s+(\d{1,2})(?::(\d{2}))?\b(?!\s*-)(?!\d)/i.exec(q);
  if (!t) return null;
  const meridiem = t[3]?.toLowerCase().replace(/\./g, '');
  const written = Number(t[1]);
  if (written > 23) return null;
  let hour = written % 12;
  const evening = /\b(tonight|evening|night)\b/i.test(q);
  if (meridiem === 'pm') hour += 12;
  else if (!meridiem && written >= 13) hour = written; // "at 19"
  else if (!meridiem && evening && hour >= SMALL_HOURS_END) hour += 12; // "tonight at 9"; "tonight at 2" stays the small hours
  else if (!meridiem && !evening && hour > 0 && hour < 7) hour += 12; // "at 5" means 5 pm on campus
  else if (!meridiem && written === 12) hour = 12;
  return hour * 60 + Math.min(59, Number(t[2] ?? 0));
}

/** Meal and part-of-day words, as a time to ask the dining tools about. */
function partOfDay(q: string): number | null {
  if (/\b(breakfast|morning)\b/i.test(q)) return 9 * 60;
  if (/\b(late night|late)\b/i.test(q)) return 22 * 60;
  if (/\btonight\b/i.test(q)) return 21 * 60;
  if (/\b(dinner|evening|supper)\b/i.test(q)) return 18 * 60;
  if (/\b(lunch|afternoon)\b/i.test(q)) return 12 * 60 + 30;
  return null;
}

/**
 * The moment or the day a question names. `today` (0 = Sunday) comes from the system prompt's date;
 * without it a question needs a weekday to mean a time.
 */
export function parseWhen(q: string, today: number | null): When | null {
  const named = parseDay(q, today);
  const clock = parseClock(q);
  // "before 8am" asks about a moment just before it (7:30), "after 9pm" one just after (9:30).
  const edge = clock !== null && !/\bafter midnight\b/i.test(q) ? /\b(before|after)\s+(?=\d|noon|midnight)/i.exec(q)?.[1]?.toLowerCase() : undefined;
  const part = (edge ? (clock! + (edge === 'after' ? 30 : -30) + 1440) % 1440 : clock) ?? (named !== null ? partOfDay(q) : /\btonight\b|\blate night\b/i.test(q) ? partOfDay(q) : null);
  if (part === null) return named === null ? null : { kind: 'day', day: named };
  let day = named ?? today;
  if (day === null) return null;
  // The coming night: "at 1 AM", "after midnight", "Friday night at 1 AM".
  const explicitWeekday = DAY_WORD.test(q) || /\btomorrow\b/i.test(q);
  if (part < SMALL_HOURS_END * 60 && (!explicitWeekday || /\bnight\b/i.test(q))) day = (day + 1) % 7;
  return { kind: 'moment', at: { day, hour: Math.floor(part / 60), minute: part % 60 }, ...(edge ? { asked: `${edge} ${clock12(clock!)}` } : {}) };
}
