/**
 * The sandbox's `bus` group: live-looking predictions for the two Forbes Ave & Morewood Ave stops in the
 * shapes of the production `bus_*` tools (CAMPUS_TOOLS.md, "bus"), computed from the campus clock over
 * the sample timetable (data/bus.ts): arrivals count down and roll over as time passes, and nothing is
 * predicted late at night. Bad stops, routes and directions are `input_error` results, as in production.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { BUS_COVERAGE_NOTE, BUS_PLACES, BUS_ROUTES, BUS_STOPS, PRT_RIDER_GUIDE, type BusRoute, type BusStop } from './data/bus.js';
import { CAMPUS_TIME_ZONE, DAY_NAMES, campusTime, clock12 } from './dining-hours.js';
import { inputError, jsonResult } from './tool-results.js';

/** How far ahead predictions reach, and how many arrivals a route lists. */
const HORIZON_S = 60 * 60;
const ARRIVALS_PER_ROUTE = 3;
const CAPACITIES = ['EMPTY', 'HALF_EMPTY', 'FULL'] as const;

export interface Arrival {
  bus_id: string;
  seconds: number;
  minutes: number;
  capacity: (typeof CAPACITIES)[number];
}

export interface PredictionGroup {
  route: string;
  destination: string;
  arrivals: Arrival[];
}

/** "61 d", "61-D" and "61d" are route `61D`. */
export const normalizeRoute = (route: string): string => route.replace(/[\s-]+/g, '').toUpperCase();

const stopInfo = (s: BusStop) => ({ name: s.name, direction: s.direction, landmarks: s.landmarks, typical_destinations: s.typical_destinations });
const stopOf = (id: string) => BUS_STOPS.find((s) => s.stop_id === id);
const allRoutes = () => new Set([...BUS_ROUTES.values()].flatMap((routes) => routes.map((r) => r.route)));

/** The arrivals of one route within the horizon, `nowS` seconds after the campus day's midnight. */
function arrivalsOf(route: BusRoute, routeIndex: number, nowS: number): Arrival[] {
  const out: Arrival[] = [];
  for (let k = 0, t = route.first; t <= route.last; k++, t += route.headway) {
    // Today's service, and yesterday's buses that run past midnight (a day earlier on this clock).
    for (const minute of [t, t - 24 * 60]) {
      const seconds = minute * 60 - nowS;
      if (seconds <= 0 || seconds > HORIZON_S) continue;
      out.push({ bus_id: String(3100 + ((routeIndex * 37 + k * 11) % 800)), seconds, minutes: Math.ceil(seconds / 60), capacity: CAPACITIES[k % 3]! });
    }
  }
  return out.sort((a, b) => a.seconds - b.seconds).slice(0, ARRIVALS_PER_ROUTE);
}

/** What one stop predicts now: a group per route with a bus within the horizon. */
export function stopPredictions(stopId: string, now: Date): PredictionGroup[] {
  const { minute } = campusTime(now);
  const nowS = minute * 60 + now.getUTCSeconds();
  return (BUS_ROUTES.get(stopId) ?? [])
    .map((r, i) => ({ route: r.route, destination: r.destination, arrivals: arrivalsOf(r, i, nowS) }))
    .filter((g) => g.arrivals.length > 0);
}

const localClock = new Intl.DateTimeFormat('en-CA', {
  timeZone: CAMPUS_TIME_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function retrievedAt(now: Date) {
  const p = Object.fromEntries(localClock.formatToParts(now).map((x) => [x.type, x.value]));
  const { day, minute } = campusTime(now);
  return {
    utc: now.toISOString(),
    local: `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}`,
    local_display: `${DAY_NAMES[day]} ${clock12(minute)}`,
    timezone: CAMPUS_TIME_ZONE,
    meaning: 'when these predictions were read: seconds and minutes count from here',
  };
}

/**
 * Why nothing is predicted late at night, and what runs next (issue 78): each route the stops (or the
 * filters) have, with its first trip by the timetable, said as scheduled, not predicted. "No buses are
 * predicted at these stops right now. By the timetable (scheduled times, not live predictions): 61C to
 * McKeesport via Squirrel Hill, first bus 5:10 AM (outbound, near CUC); …"
 */
function nothingRunning(stops: readonly BusStop[], at: Date, keep: (r: BusRoute) => boolean = () => true): string {
  const { minute } = campusTime(at);
  const firsts = stops.flatMap((stop) =>
    (BUS_ROUTES.get(stop.stop_id) ?? [])
      .filter(keep)
      .map((r) => ({ r, stop, when: `${clock12(r.first)}${minute > r.first ? ' tomorrow' : ''}` })),
  ).sort((a, b) => a.r.first - b.r.first);
  if (firsts.length === 0) return 'No buses are predicted at these stops right now.';
  const places = (r: BusRoute) => r.via.filter((v) => v !== r.destination.toLowerCase()).slice(0, 2);
  const via = (r: BusRoute) => (places(r).length > 0 ? ` via ${places(r).map((v) => v.replace(/\b\p{L}/gu, (c) => c.toUpperCase())).join(' and ')}` : '');
  const near = (s: BusStop) => `${s.direction}, ${s.name.replace(/^.*\((.+)\)$/, '$1')}`;
  return (
    'No buses are predicted at these stops right now. By the timetable (scheduled times, not live predictions), service resumes with: ' +
    firsts.map(({ r, stop, when }) => `${r.route} to ${r.destination}${via(r)}, first bus ${when} (${near(stop)})`).join('; ') +
    '.'
  );
}

/** `ok` when a bus is predicted, else `empty` with why and what runs next. */
const predicted = (any: boolean, stops: readonly BusStop[], at: Date) => (any ? { status: 'ok' } : { status: 'empty', message: nothingRunning(stops, at) });

/** Every stop's predictions at one moment, read once per call. */
const allPredictions = (at: Date) => new Map(BUS_STOPS.map((s) => [s.stop_id, stopPredictions(s.stop_id, at)]));

/** Registers the five bus tools on a server; `now` is read on every call. */
export function registerBusTools(server: McpServer, now: () => Date): void {
  const common = (at: Date) => ({ retrieved_at: retrievedAt(at), coverage_note: BUS_COVERAGE_NOTE });
  const validStops = BUS_STOPS.map((s) => s.stop_id);

  server.registerTool(
    'bus_get_bus_predictions',
    { description: 'Live bus predictions for both Forbes Ave & Morewood Ave stops (4407 inbound, 7117 outbound).', inputSchema: {} },
    async () => {
      const at = now();
      const predictions = Object.fromEntries(allPredictions(at));
      return jsonResult({
        ...predicted(Object.values(predictions).some((g) => g.length > 0), BUS_STOPS, at),
        predictions,
        stops: Object.fromEntries(BUS_STOPS.map((s) => [s.stop_id, stopInfo(s)])),
        ...common(at),
      });
    },
  );

  server.registerTool(
    'bus_get_stop_predictions',
    {
      description: 'Live bus predictions for one stop.\n\nArgs:\n    stop_id: "4407" (inbound, near Tepper Quad) or "7117" (outbound, near CUC).',
      inputSchema: { stop_id: z.string() },
    },
    async ({ stop_id }) => {
      const stop = stopOf(stop_id.trim());
      if (!stop) return inputError('unknown_stop', `Unknown stop ${JSON.stringify(stop_id.slice(0, 20))}.`, { valid_stop_ids: validStops });
      const at = now();
      const predictions = stopPredictions(stop.stop_id, at);
      return jsonResult({
        ...predicted(predictions.length > 0, [stop], at),
        stop: { stop_id: stop.stop_id, ...stopInfo(stop) },
        predictions,
        ...common(at),
      });
    },
  );

  server.registerTool(
    'bus_get_next_bus',
    {
      description:
        'The next bus, by stop, route, place or direction (all optional).\n\nArgs:\n    stop_id: "4407" or "7117".\n    route: A route such as "61C" or "28X".\n' +
        '    place: Where the rider is going, e.g. "Squirrel Hill", "Downtown", "the airport".\n    direction: "inbound" or "outbound".',
      inputSchema: { stop_id: z.string().nullish(), route: z.string().nullish(), place: z.string().nullish(), direction: z.string().nullish() },
    },
    async (args) => {
      const route = args.route?.trim() ? normalizeRoute(args.route) : null;
      if (route && !allRoutes().has(route)) {
        return inputError('invalid_route', `No route ${JSON.stringify(route.slice(0, 12))} serves these stops.`, { valid_routes: [...allRoutes()] });
      }
      const direction = args.direction?.trim().toLowerCase() || null;
      if (direction && direction !== 'inbound' && direction !== 'outbound') {
        return inputError('invalid_direction', 'direction must be "inbound" or "outbound".');
      }
      const stopId = args.stop_id?.trim() || null;
      const explicit = stopId ? stopOf(stopId) : null;
      if (stopId && !explicit) return inputError('unknown_stop', `Unknown stop ${JSON.stringify(stopId.slice(0, 20))}.`, { valid_stop_ids: validStops });
      const placeQuery = args.place?.trim() || null;
      const placeKey = placeQuery?.toLowerCase().replace(/^(?:to\s+)?(?:the\s+)?/, '') ?? null;
      const placeStop = placeKey ? (BUS_PLACES.get(placeKey) ?? null) : null;
      const byDirection = direction ? BUS_STOPS.find((s) => s.direction === direction)!.stop_id : null;
      const chosen = [explicit?.stop_id, placeStop, byDirection].filter((s): s is string => !!s);
      if (new Set(chosen).size > 1) return inputError('conflicting_filters', 'The stop, place and direction given point at different stops.');
      const stops = chosen.length > 0 ? [stopOf(chosen[0]!)!] : [...BUS_STOPS];
      const at = now();
      const byStop = allPredictions(at);
      // Late at night, the timetable's first trips of the routes these filters name.
      const keep = (r: BusRoute) => (!route || r.route === route) && (!placeStop || r.via.includes(placeKey!) || r.destination.toLowerCase() === placeKey);
      const results = stops.map((stop) => {
        const groups = byStop.get(stop.stop_id)!;
        // Toward a place: the routes that go there, when the stop has any.
        const serving = placeStop ? new Set((BUS_ROUTES.get(stop.stop_id) ?? []).filter((r) => r.via.includes(placeKey!)).map((r) => r.route)) : null;
        const candidates = groups
          .filter((g) => (!route || g.route === route) && (!serving?.size || serving.has(g.route)))
          .flatMap((g) => g.arrivals.slice(0, 1).map((a) => ({ route: g.route, destination: g.destination, ...a })))
          .sort((a, b) => a.seconds - b.seconds);
        const where = { stop_id: stop.stop_id, name: stop.name, direction: stop.direction };
        if (candidates[0]) return { status: 'ok', stop: where, match: candidates[0] };
        return {
          status: 'no_match',
          stop: where,
          match: null,
          message: groups.length === 0 ? nothingRunning([stop], at, keep) : `No ${route ?? 'bus'} is predicted at this stop in the next hour.`,
          available: groups.map((g) => ({ route: g.route, destination: g.destination, minutes: g.arrivals[0]!.minutes })),
        };
      });
      const running = results.some((r) => r.status === 'ok');
      const anyBus = [...byStop.values()].some((g) => g.length > 0);
      return jsonResult({
        status: running ? 'ok' : anyBus ? 'no_match' : 'empty',
        ...(!running && { message: anyBus ? 'No bus matches these filters in the next hour.' : nothingRunning(stops, at, keep) }),
        selection: explicit || byDirection ? 'single_direction' : placeStop ? 'per_destination_area' : 'per_direction',
        filters: { stop_id: stopId, route, place: placeQuery, direction },
        resolution: { place: placeQuery ? { query: placeQuery, stop_id: placeStop } : null },
        results,
        ...common(at),
      });
    },
  );

  server.registerTool(
    'bus_search_bus_predictions',
    {
      description: 'Search live predictions by route, destination or stop words, soonest first.\n\nArgs:\n    query: e.g. "61C", "Squirrel Hill", "airport".',
      inputSchema: { query: z.string() },
    },
    async ({ query }) => {
      const q = query.trim().toLowerCase();
      if (!q) return inputError('empty_query', 'query must not be empty.');
      const at = now();
      const words = q.split(/\s+/);
      const matches = BUS_STOPS.flatMap((stop) =>
        stopPredictions(stop.stop_id, at)
          .filter((g) => {
            const text = `${g.route} ${g.destination} ${stop.name} ${stop.direction}`.toLowerCase();
            return normalizeRoute(q) === g.route || words.every((w) => text.includes(w));
          })
          .flatMap((g) => g.arrivals.map((a) => ({ stop_id: stop.stop_id, stop_name: stop.name, direction: stop.direction, route: g.route, destination: g.destination, ...a }))),
      ).sort((a, b) => a.seconds - b.seconds);
      return jsonResult({
        status: matches.length > 0 ? 'ok' : 'no_match',
        ...(matches.length === 0 && { message: `No predicted bus matches ${JSON.stringify(query.trim().slice(0, 40))}.` }),
        query: query.trim(),
        matches,
        ...common(at),
      });
    },
  );

  server.registerTool(
    'bus_get_cmu_prt_rider_guide',
    { description: 'How CMU students, faculty and staff ride Pittsburgh Regional Transit (PRT) with their CMU ID.', inputSchema: {} },
    async () => jsonResult(PRT_RIDER_GUIDE),
  );
}
