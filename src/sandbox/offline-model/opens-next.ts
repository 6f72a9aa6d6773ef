/**
 * What opens next (issue 78, item 1): when nothing a student asked for is open now, the places that
 * open soonest by the campus clock, today or tomorrow, from the weekly hours the dining tools list.
 */
import type { DiningEntry } from '../campus/dining-format.js';
import { DAY_NAMES, clock12, hoursOnDay } from '../campus/dining-hours.js';

/** The opening minute of a day's hours as the dining tools write them ("7:30 AM - 2:00 PM"), or null. */
function opensAt(hours: string | null): number | null {
  const m = hours ? /^(\d{1,2}):(\d{2}) (AM|PM)/.exec(hours) : null;
  if (!m) return null;
  return ((Number(m[1]) % 12) + (m[3] === 'PM' ? 12 : 0)) * 60 + Number(m[2]);
}

export interface NextOpening {
  entry: DiningEntry;
  /** Minutes after midnight of the day it opens. */
  minute: number;
  /** 'today' or 'tomorrow', by the campus clock. */
  when: 'today' | 'tomorrow';
  day: number;
}

/** The places of `entries` that open next after `minute` on weekday `today` (0 Sunday), soonest first. */
export function nextOpenings(entries: readonly DiningEntry[], today: number, minute: number): NextOpening[] {
  const tomorrow = (today + 1) % 7;
  return entries
    .flatMap((entry): NextOpening[] => {
      const later = opensAt(hoursOnDay(entry.hours, today));
      if (later !== null && later > minute) return [{ entry, minute: later, when: 'today', day: today }];
      const next = opensAt(hoursOnDay(entry.hours, tomorrow));
      return next === null ? [] : [{ entry, minute: next, when: 'tomorrow', day: tomorrow }];
    })
    .sort((a, b) => (a.when === b.when ? a.minute - b.minute : a.when === 'today' ? -1 : 1));
}

/**
 * The nearest place that opens today or tomorrow, by the walk `metres` gives (null: not known), said as
 * "Nearest to Gates Hillman Center: **Wean Coffee Bar** (a 4-minute walk), at 7:00 AM today (Monday)."; null when
 * no walk is known.
 */
export function nearestOpensLine(entries: readonly DiningEntry[], today: number | null, minute: number | null, from: string, metres: (e: DiningEntry) => number | null, perMinute: number): string | null {
  if (today === null || minute === null) return null;
  const walked = nextOpenings(entries, today, minute)
    .map((n) => ({ n, m: metres(n.entry) }))
    .filter((x): x is { n: NextOpening; m: number } => x.m !== null)
    .sort((a, b) => a.m - b.m)[0];
  if (!walked) return null;
  const walk = Math.max(1, Math.round(walked.m / perMinute));
  return `Nearest to ${from}: **${walked.n.entry.name}** (a ${walk}-minute walk), at ${clock12(walked.n.minute)} ${walked.n.when} (${DAY_NAMES[walked.n.day]}).`;
}

/** "Next to open: **Tazza D'Oro** at 7:30 AM today (Sunday), in Gates Hillman Center; …", the first three; null when none opens today or tomorrow. */
export function opensNextLine(entries: readonly DiningEntry[], today: number | null, minute: number | null): string | null {
  if (today === null || minute === null) return null;
  const next = nextOpenings(entries, today, minute).slice(0, 3);
  if (next.length === 0) return null;
  const one = (n: NextOpening) => `**${n.entry.name}** at ${clock12(n.minute)} ${n.when} (${DAY_NAMES[n.day]})${n.entry.location ? `, in ${n.entry.location}` : ''}`;
  return `Next to open: ${next.map(one).join('; ')}.`;
}
