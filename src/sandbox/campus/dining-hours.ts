/**
 * Dining hours: the local time on campus (America/New_York, whatever the server's own zone), whether a
 * place is open at a given weekday and minute, and the two text renderings of a week of hours (compact
 * 12-hour ranges for lists, 24-hour bullets for the detail view).
 */
import type { DiningLocation, Opening } from './data/dining.js';

export const CAMPUS_TIME_ZONE = 'America/New_York';
export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;
const MINUTES_PER_DAY = 24 * 60;

/** Built once: Intl formatters are costly to create and this one never changes. */
const campusClock = new Intl.DateTimeFormat('en-US', {
  timeZone: CAMPUS_TIME_ZONE,
  weekday: 'short',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Weekday (0 = Sunday) and minute of the day on campus at `date`. */
export function campusTime(date: Date): { day: number; minute: number } {
  const parts = Object.fromEntries(campusClock.formatToParts(date).map((p) => [p.type, p.value]));
  return { day: SHORT_DAYS.indexOf(parts.weekday ?? 'Sun'), minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** Open at this weekday and minute, counting last night's opening that runs past midnight. */
export function isOpenAt(place: DiningLocation, day: number, minute: number): boolean {
  const today = place.hours[day];
  if (today && minute >= today[0] && minute < today[1]) return true;
  const yesterday = place.hours[(day + 6) % 7];
  return !!yesterday && yesterday[1] > MINUTES_PER_DAY && minute < yesterday[1] - MINUTES_PER_DAY;
}

/** Minutes after midnight as the campus writes a time: "7:30 AM", "12:00 PM" (past midnight wraps). */
export function clock12(minutes: number): string {
  const m = minutes % MINUTES_PER_DAY;
  const h = Math.floor(m / 60);
  const suffix = h < 12 ? 'AM' : 'PM';
  return `${h % 12 === 0 ? 12 : h % 12}:${String(m % 60).padStart(2, '0')} ${suffix}`;
}

function clock24(minutes: number): string {
  const m = minutes % MINUTES_PER_DAY;
  return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** A 24-hour "19:00" (as `detailedHours` and the course schedules write it) in the campus's 12-hour form; other text as it is. */
export function clock12Of(hhmm: string): string {
  const m = /^(\d{1,2}):(\d{2})$/.exec(hhmm.trim());
  return m ? clock12(Number(m[1]) * 60 + Number(m[2])) : hhmm;
}

const sameOpening = (a: Opening | null | undefined, b: Opening | null | undefined) =>
  a === b || (!!a && !!b && a[0] === b[0] && a[1] === b[1]);

/** `Monday - Friday: 7:30 AM - 2:00 PM | Saturday - Sunday: 11:00 AM - 8:00 PM` (closed days left out). */
export function compactHours(place: DiningLocation): string {
  const order = [1, 2, 3, 4, 5, 6, 0];
  const runs: string[] = [];
  for (let i = 0; i < order.length; ) {
    const opening = place.hours[order[i]!];
    let j = i;
    while (j + 1 < order.length && sameOpening(place.hours[order[j + 1]!], opening)) j++;
    if (opening) {
      const days = i === j ? DAY_NAMES[order[i]!] : `${DAY_NAMES[order[i]!]} - ${DAY_NAMES[order[j]!]}`;
      runs.push(`${days}: ${clock12(opening[0])} - ${clock12(opening[1])}`);
    }
    i = j + 1;
  }
  return runs.length ? runs.join(' | ') : 'Closed';
}

/** One weekday's opening in a week `compactHours` wrote ("11:00 AM - 8:00 PM"); null when closed that day. */
export function hoursOnDay(week: string, day: number): string | null {
  const order = [1, 2, 3, 4, 5, 6, 0];
  const position = (name: string | undefined) => order.indexOf(DAY_NAMES.indexOf(name as (typeof DAY_NAMES)[number]));
  for (const run of week.split(' | ')) {
    const m = /^(\w+day)(?: - (\w+day))?: (.+)$/.exec(run.trim());
    if (m && position(m[1]) <= order.indexOf(day) && order.indexOf(day) <= position(m[2] ?? m[1])) return m[3]!;
  }
  return null;
}

/** `- Monday: 08:00 - 14:00` bullets, Monday first, `Closed` days included. */
export function detailedHours(place: DiningLocation): string[] {
  return [1, 2, 3, 4, 5, 6, 0].map((d) => {
    const o = place.hours[d];
    return `- ${DAY_NAMES[d]}: ${o ? `${clock24(o[0])} - ${clock24(o[1])}` : 'Closed'}`;
  });
}
