/**
 * A fact of the grounding check, typed (issue 73): one normalised value of one class ("2 PM", "14:00"
 * and "2:00pm" are all the time 840), optionally bound to a weekday a tool's line gave it for, or to the
 * moment the student asked about. Claims (claims.ts) are read into facts and evidence is read into facts;
 * a claim holds where the evidence has one of its facts.
 *
 * A fact is kept as a short string (`Fact`, opaque outside this module) because the evidence holds
 * thousands in sets, and a set of strings is the cheapest lookup JavaScript has; but only this module
 * builds one or reads one apart. Everything else asks it: `fact.time(840)`, `onDay(f, 3)`, `classOf(f)`,
 * `roomOf(f)`.
 */
declare const FACT: unique symbol;

/** A normalised value of one class (module note). Only this module makes one. */
export type Fact = string & { readonly [FACT]: true };

/**
 * What a fact is a value of. `phone7` is a number's last seven digits (a campus extension, or a number
 * written without its area code); `wait-min` and `wait-sec` a bus wait in its unit; `day` says a tool
 * gave the hours (or "Closed") of that weekday, so a time bound to it needs that day's facts.
 */
export type FactClass = 'time' | 'course' | 'units' | 'room' | 'floor' | 'phone' | 'phone7' | 'price' | 'date' | 'term' | 'year' | 'route' | 'wait-min' | 'wait-sec' | 'day';

/** A bus wait's unit. */
export type WaitUnit = 'wait-min' | 'wait-sec';

/** The building code of a room that may be in any building ("room 5403" with no building). */
export const ANY_BUILDING = '*';

const make = (cls: FactClass, value: string | number): Fact => `${cls}:${value}` as Fact;

/** The facts, one builder a class; each takes the value already normalised as its parameter says. */
export const fact = {
  /** Minutes after midnight (0-1439). */
  time: (minutes: number) => make('time', minutes),
  /** A course number's five digits ("15213"). */
  course: (digits: string) => make('course', digits),
  units: (n: number) => make('units', n),
  /** A room by its building's code (upper case, or ANY_BUILDING) and its number (upper case). */
  room: (code: string, number: string) => make('room', `${code}:${number}`),
  floor: (n: number | string) => make('floor', Number(n)),
  /** Ten digits. */
  phone: (digits: string) => make('phone', digits),
  /** The last seven digits. */
  phone7: (digits: string) => make('phone7', digits),
  price: (cents: number) => make('price', cents),
  /** A date with its year, or its month and day alone (the year unsaid). */
  date: (month: number, day: number, year: number | null = null) => make('date', year === null ? `${month}-${day}` : `${year}-${month}-${day}`),
  /** A term by its season (`season` in claims.ts: spring, summer, fall, winter) and its year. */
  term: (season: string, year: number | string) => make('term', `${season}:${year}`),
  year: (year: number | string) => make('year', Number(year)),
  /** A route's id, upper case, no spaces or dashes ("61D"). */
  route: (id: string) => make('route', id),
  wait: (unit: WaitUnit, n: number) => make(unit, n),
  /** A tool gave the hours (or "Closed") of this weekday (0 Sunday). */
  day: (weekday: number) => make('day', weekday),
} as const;

/** `f` bound to a weekday (0 Sunday) a tool gave it for, or to the moment the student asked about. */
export const onDay = (f: Fact, day: number | 'asked'): Fact => `${f}@${day}` as Fact;

/** Is `f` bound to a day or to the moment asked (`onDay`)? */
export const isBound = (f: Fact): boolean => f.includes('@');

/** The class `f` is a value of. */
export const classOf = (f: Fact): FactClass => f.slice(0, f.indexOf(':')) as FactClass;

/** The number a time, wait, floor, units, price or year fact holds (NaN for other classes). */
export const numberOf = (f: Fact): number => Number(f.slice(f.indexOf(':') + 1));

/** A room fact's building code (upper case, or ANY_BUILDING) and number, or null for any other fact. */
export function roomOf(f: Fact): { code: string; number: string } | null {
  if (classOf(f) !== 'room' || isBound(f)) return null;
  const [, code, number] = f.split(':');
  return code !== undefined && number !== undefined ? { code, number } : null;
}

/** A term fact's year, or null for any other fact. */
export function termYear(f: Fact): string | null {
  return classOf(f) === 'term' && !isBound(f) ? f.slice(f.lastIndexOf(':') + 1) : null;
}

/** A course fact's digits or a route fact's id: the subject it names (subjects.ts), or null. */
export function valueOf(f: Fact): string {
  return f.slice(f.indexOf(':') + 1);
}

/**
 * The calendar from `isoDate` (YYYY-MM-DD) to `days` days after it: each date, with and without its
 * year, by its weekday (0 Sunday), and the years it spans ("in 2027" holds in the last days of December).
 */
export function calendarDates(isoDate: string, days: number): { dates: Map<Fact, number>; years: Set<string> } {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  const dates = new Map<Fact, number>();
  const years = new Set<string>();
  for (let i = 0; i <= days; i++) {
    const at = new Date(Date.UTC(y, m - 1, d + i));
    const [yy, mm, dd] = [at.getUTCFullYear(), at.getUTCMonth() + 1, at.getUTCDate()];
    dates.set(fact.date(mm, dd, yy), at.getUTCDay()).set(fact.date(mm, dd), at.getUTCDay());
    years.add(String(yy));
  }
  return { dates, years };
}
