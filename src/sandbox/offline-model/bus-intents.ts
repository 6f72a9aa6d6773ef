/**
 * Bus questions, as students ask them: the next bus, a route ("when's the next 61C?"), toward a place
 * ("how do I get to Squirrel Hill?"), riding PRT with a CMU ID, and follow-ups of a bus conversation
 * ("and the one after that?", "what about toward downtown?").
 */

export interface BusIntent {
  kind: 'bus';
  /** A route id as the tools write it ("61C"), or null. */
  route: string | null;
  /** Where the rider is going, as asked ("Squirrel Hill"), or null. */
  place: string | null;
  /** How to ride with a CMU ID (the PRT rider guide), rather than a prediction. */
  pass: boolean;
  /** Which bus: 1 the next, 2 the one after it. */
  nth: number;
}

// Not "shuttle": the campus shuttle and escort are the student guide's.
const BUS_WORD = /\b(bus(es)?|prt|public transit|transit|port authority)\b/i;
const ROUTE = /\b(61|71)\s?-?([a-d])\b|\b(28)\s?-?(x)\b|\b(6[79])\b(?!\s*(?:am|pm|minutes?|mins?|units?|%))/i;
const PLACES = /\b(squirrel hill|downtown|(?:the )?airport|oakland|(?:the )?waterfront|mckeesport|braddock hills|swissvale|monroeville)\b/i;
// "get to Squirrel Hill", and "get downtown" (an adverb: no "to").
const TRAVEL = /\b(get|go|going|head(?:ing)?|ride|travel|take me)\s+(?:to|toward|towards|into|downtown)\b/i;
// Riding with a CMU ID, whichever comes first in the sentence: paying, the card, free fares.
const PASS =
  /\b(free|pay|fare|cost|pass|ride|riding)\b.*\b(id|card|cmu|student)\b|\b(id|card)\b.*\b(prt|bus)\b|\b(prt|bus)\b.*\b(id|card)\b|\b(free|pay|paying|fares?|costs?|charge|money|tickets?|cash)\b.*\b(prt|bus|transit)\b|\b(prt|bus|transit)\b.*\b(free|pay|fares?|costs?|money|tickets?|cash)\b|\brider guide\b/i;

function routeOf(q: string): string | null {
  const m = ROUTE.exec(q);
  if (!m) return null;
  return m[1] ? `${m[1]}${m[2]!.toUpperCase()}` : m[3] ? '28X' : m[5]!;
}

const placeOf = (q: string): string | null => {
  const m = PLACES.exec(q)?.[1];
  return m ? m.replace(/^the /i, '').replace(/\b\p{L}/gu, (c) => c.toUpperCase()) : null;
};

/** A bus question on its own, or null. */
export function busIntent(q: string): BusIntent | null {
  const route = routeOf(q);
  const place = placeOf(q);
  const busWord = BUS_WORD.test(q);
  // A bare number ("69") is a route only beside a bus word or "the": "room 69" is no bus.
  const numeric = route !== null && /^\d+$/.test(route) && !busWord && !new RegExp(`\\b(?:the|next) ${route}\\b`, 'i').test(q);
  if (numeric || (!busWord && !route && !(place && TRAVEL.test(q)))) return null;
  const pass = !route && PASS.test(q) && (busWord || /\bride\b/i.test(q));
  return { kind: 'bus', route, place, pass, nth: 1 };
}

/** A follow-up of a bus question: the bus after it, or the same question toward another place or route. */
export function busFollowUp(previous: BusIntent, rest: string): BusIntent | null {
  if (/\b(one|bus)\s+after\b|\bafter (?:that|it)\b|\bnext one\b|\blater one\b/i.test(rest)) return { ...previous, pass: false, nth: previous.nth + 1 };
  const route = routeOf(rest);
  const place = placeOf(rest);
  if (route || place) return { ...previous, pass: false, nth: 1, route: route ?? (place ? null : previous.route), place: place ?? (route ? null : previous.place) };
  return null;
}
