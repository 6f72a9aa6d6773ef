/**
 * What the student reads where a detail could not be confirmed (issue 45): the detail itself is
 * replaced in place by a short mark naming its kind ("10 PM" → "(time not confirmed)", a range as one
 * mark), the rest of the sentence, list or table stays, and the answer ends with one plain note saying
 * so and where to check. Both are the service's own words, written once here.
 */
import type { ClaimClass } from './claims.js';
import { DAY_WORDS } from './days.js';

const WHAT: Record<ClaimClass, string> = {
  time: 'time',
  course: 'course number',
  units: 'units',
  room: 'room',
  floor: 'floor',
  phone: 'phone number',
  price: 'price',
  date: 'date',
  term: 'term',
  year: 'year',
  route: 'route',
  wait: 'wait time',
};

/** Where a student checks each kind of detail. */
const WHERE: Record<ClaimClass, string> = {
  time: 'the posted hours',
  course: 'the course catalog',
  units: 'the course catalog',
  room: 'the Schedule of Classes',
  floor: 'the campus map',
  phone: "the office's official page",
  price: 'the official price list',
  date: 'the academic calendar',
  term: 'the academic calendar',
  year: 'the academic calendar',
  route: 'the live bus arrivals',
  wait: 'the live bus arrivals',
};

/**
 * What replaces an unconfirmed detail (a range of times is "hours"); with `day`, the day it was said for
 * ("(Friday's hours not confirmed)"); with `place`, the place a sentence that did not name it was about,
 * as the answer wrote it ("It closes at 5 PM on Fridays." → "(Tazza D'Oro's Friday time not confirmed)").
 */
export function unconfirmedMark(cls: ClaimClass, range: boolean, day: number | null = null, place: string | null = null): string {
  const what = range && cls === 'time' ? 'hours' : WHAT[cls];
  const dayWord = day === null ? '' : place === null ? `${DAY_WORDS[day]}'s ` : `${DAY_WORDS[day]} `;
  return `(${place === null ? '' : `${place}'s `}${dayWord}${what} not confirmed)`;
}

/** The one note at the end of an answer that lost details; null when none was lost. */
export function groundingNote(classes: ReadonlySet<ClaimClass>): string | null {
  if (classes.size === 0) return null;
  const where = [...new Set([...classes].map((c) => WHERE[c]))];
  const list = where.length === 1 ? where[0]! : `${where.slice(0, -1).join(', ')} or ${where.at(-1)}`;
  return `_Some details above could not be confirmed from the campus data, so they are marked "not confirmed". Please check ${list} before relying on them._`;
}

/** The longest note there is (every kind of detail lost): what the answer cap keeps room for. */
export const LONGEST_GROUNDING_NOTE = groundingNote(new Set(Object.keys(WHAT) as ClaimClass[]))!.length;
