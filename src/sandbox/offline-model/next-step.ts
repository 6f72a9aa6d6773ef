/**
 * One pass of the offline model: from the request, decide the next step of the turn. Either the tool
 * calls its rules call for that have not run yet (only tools actually offered: disabled groups stay
 * disabled), or, when there is nothing left to call, the answer written from the results. A plan can
 * take several passes, each using what the last returned: search both buildings, then the path, the
 * distance and the map between the codes found; search the guide, then read the best section.
 */
import { toolsOff, writeAnswer } from './answers.js';
import { toolGroupOf } from '../../tools/tool-groups.js';
import { busCalls } from './bus-answers.js';
import { readConversation, type Conversation } from './conversation.js';
import { readDiningDetail } from '../campus/dining-format.js';
import { understand } from './dialogue.js';
import { HOME } from './place-names.js';
import { bestSource, searchCalls, topCourse } from './retrieve.js';
import { call, eatsListCall, nearPlace, type PlannedCall } from './eats-lists.js';
import { resolveIntent, type CourseAspect, type EatsIntent, type Intent, type Semester } from './intents.js';
import { buildingCode, diningBuilding, lectureOf, diningList, guideHits, failed, mapShown, outcome, parseJson, walkMetres } from './tool-readings.js';

export type { PlannedCall } from './eats-lists.js';

export type NextStep = { kind: 'tool_calls'; calls: PlannedCall[] } | { kind: 'text'; text: string };

/**
 * The building code a place resolves to through the searches already run: a code, null when every
 * search came back empty, or the next search to run.
 */
function resolvePlace(place: string, conv: Conversation): { code: string | null } | { search: PlannedCall } {
  if (place === HOME) return { code: null };
  if (!conv.offered.has('maps_search_buildings')) return { code: null };
  const code = buildingCode(conv, place);
  return code === undefined ? { search: call('maps_search_buildings', { query: place }) } : { code };
}

function routeCalls(intent: Extract<Intent, { kind: 'route' }>, conv: Conversation): PlannedCall[] {
  if (intent.origin === HOME || intent.destination === HOME) return [];
  const from = resolvePlace(intent.origin, conv);
  const to = resolvePlace(intent.destination, conv);
  const searches = [from, to].flatMap((r) => ('search' in r ? [r.search] : []));
  if (searches.length > 0) return searches;
  const fromCode = 'code' in from ? from.code : null;
  const toCode = 'code' in to ? to.code : null;
  const map = call('maps_show_map', { destination: toCode ?? intent.destination, origin: fromCode ?? intent.origin });
  // The map tool's catalog knows nicknames the search does not: its answer names the codes it used.
  const shown = mapShown(conv)?.codes;
  const codes = fromCode && toCode ? { origin: fromCode, destination: toCode } : shown?.origin ? shown : null;
  const between = codes ? { start_id: codes.origin!, end_id: codes.destination } : null;
  return [map, ...(between ? [call('maps_get_path', between), call('maps_distance_between', between)] : [])];
}

/**
 * "Nearest to X": find X, then each building the listed places are in, then the walking distance from X
 * to each; the answer ranks by it, and the map shows the walk to the nearest. One step per pass, each
 * using what the last returned.
 */
function nearCalls(intent: EatsIntent, list: PlannedCall, conv: Conversation): PlannedCall[] {
  const from = nearPlace(intent, conv);
  if (!from) return [];
  const origin = resolvePlace(from, conv);
  if ('search' in origin) return [origin.search];
  // Nothing open now: the walk to every place, to name the nearest that opens next (issue 78).
  const listed = diningList(conv, list.name, list.arguments);
  const entries = list.name === 'eats_get_locations_open_now' && listed?.length === 0 ? diningList(conv, 'eats_get_all_dining_locations') : listed;
  if (!origin.code || !entries) return [];
  const buildings = [...new Set(entries.map((e) => diningBuilding(e.location)))].map((b) => resolvePlace(b, conv));
  const searches = buildings.flatMap((b) => ('search' in b ? [b.search] : []));
  if (searches.length > 0) return searches;
  const codes = [...new Set(buildings.flatMap((b) => ('code' in b && b.code ? [b.code] : [])))];
  const distances = codes.map((code) => call('maps_distance_between', { start_id: origin.code, end_id: code }));
  const walks = codes.map((code) => ({ code, metres: walkMetres(conv, origin.code!, code) }));
  if (walks.some((w) => w.metres === undefined)) return distances;
  const nearest = walks.filter((w) => w.metres != null).sort((a, b) => a.metres! - b.metres!)[0]?.code;
  if (!nearest) return distances;
  const map = nearest === origin.code ? { destination: nearest } : { destination: nearest, origin: origin.code };
  return [...distances, call('maps_show_map', map)];
}

/** A course's details and what the question asks of it (prerequisites, schedule, instructors, where it meets). */
function courseCalls(courseId: string, asking: { aspects: readonly CourseAspect[]; term: Semester | null }, conv: Conversation): PlannedCall[] {
  const id = { course_id: courseId };
  const aspect = { prereqs: 'courses_fetch_course_requisites', schedule: 'courses_fetch_course_schedules', instructors: 'courses_fetch_course_instructors' } as const;
  const asked = asking.aspects.flatMap((a) => (a === 'place' ? [] : [call(aspect[a], id)]));
  // Where it meets: the lecture's building on the map, once the schedule said which.
  const building = asking.aspects.includes('place') ? lectureOf(conv, asking.term)?.building : undefined;
  return [call('courses_fetch_course_by_id', id), ...asked, ...(building ? [call('maps_show_map', { destination: building })] : [])];
}

/** Calls the rules want for this intent, given what already ran; in order. */
function wantedCalls(intent: Intent, conv: Conversation): PlannedCall[] {
  switch (intent.kind) {
    case 'remember':
      return [call('memory_remember', { fact: intent.fact })];
    case 'forget':
      // "Forget everything" is explicit, so it is confirmed in the same call.
      return [call('memory_forget', intent.fact === null ? { all: true, confirm: true } : { query: intent.fact })];
    case 'course':
      return courseCalls(intent.courseId, intent, conv);
    case 'course-title': {
      // The catalog's titles searched first; then the best match's details, as for its number.
      const top = topCourse(intent.query, conv);
      return [call('courses_search_courses_by_query', { query: intent.query }), ...(top ? courseCalls(top.courseID, intent, conv) : [])];
    }
    case 'geneds':
      return intent.department
        ? [call('courses_fetch_geneds_for_department_tool', { department: intent.department, ...(intent.school && { school: intent.school }) })]
        : [call('courses_fetch_geneds_tool', intent.school ? { school: intent.school } : {})];
    case 'eats': {
      const list = eatsListCall(intent, conv);
      // A cuisine at a moment: both lists, and the answer keeps what is in both.
      const moment = list.name === 'eats_get_locations_by_cuisine' && intent.at ? [call('eats_get_locations_open_at_time', { ...intent.at })] : [];
      // Nothing open now: every place's week, to say what opens next (issue 78).
      const closed = list.name === 'eats_get_locations_open_now' && diningList(conv, list.name, list.arguments)?.length === 0;
      return [list, ...moment, ...(closed ? [call('eats_get_all_dining_locations')] : []), ...(intent.near ? nearCalls(intent, list, conv) : [])];
    }
    case 'dining-in': {
      const place = resolvePlace(intent.place, conv);
      return [call('eats_get_all_dining_locations'), ...('search' in place ? [place.search] : [])];
    }
    case 'hours': {
      // A dining location's hours; a building ("the UC", "the gym") is not one: its dining places instead.
      const lookup = call('eats_get_location_hours', { location_name: intent.place });
      const found = outcome(conv, lookup.name, lookup.arguments);
      const notDining = found && !failed(found.result) && !readDiningDetail(found.result);
      if (!notDining) return [lookup];
      const building = resolvePlace(intent.place, conv);
      return [...(found ? [lookup] : []), call('eats_get_all_dining_locations'), ...('search' in building ? [building.search] : [])];
    }
    case 'where': {
      const place = resolvePlace(intent.place, conv);
      if ('search' in place) return [place.search];
      return [call('maps_show_map', { destination: place.code ?? intent.place })];
    }
    case 'route':
      return routeCalls(intent, conv);
    case 'bus':
      return busCalls(intent, conv);
    case 'search': {
      // Every source at once; then the best one's detail: the guide section, or the place on the map.
      const best = bestSource(intent.query, conv);
      const detail = best?.source === 'guide' ? [call('guide_get_section', { chunk_id: best.chunkId })] : best?.source === 'place' ? [call('maps_show_map', { destination: best.code })] : [];
      const top = intent.who ? topCourse(intent.query, conv) : undefined;
      return [...searchCalls(intent.query, intent.only), ...detail, ...(top ? [call('courses_fetch_course_instructors', { course_id: top.courseID })] : [])];
    }
    default:
      return [];
  }
}

const sameCall = (a: PlannedCall, b: { name: string; arguments: Record<string, unknown> }) =>
  a.name === b.name && JSON.stringify(a.arguments) === JSON.stringify(b.arguments);

/** Decides the reply to one chat-completions request body. */
export function nextStep(body: { messages?: unknown; tools?: unknown }): NextStep {
  const conv = readConversation(body);
  const { question, earlier } = understand(conv);
  const intent = resolveIntent(question, earlier, conv.today);
  const wanted = wantedCalls(intent, conv);
  const offered = wanted.filter((c) => conv.offered.has(c.name));
  const pending = offered.filter((c) => !conv.done.some((d) => sameCall(c, d)));
  if (pending.length > 0) return { kind: 'tool_calls', calls: pending };
  const memoryIntent = intent.kind === 'remember' || intent.kind === 'forget';
  if (wanted.length > 0 && offered.length === 0 && conv.done.length === 0 && !memoryIntent) {
    // "Turned off" only when the user turned off a group the question needs (the system prompt says so).
    const off = [...new Set(wanted.map((c) => toolGroupOf(c.name)))].filter((g) => g !== null && conv.switchedOff.has(g));
    if (off.length > 0) return { kind: 'text', text: toolsOff(off.filter((g) => g !== null)) };
    // Otherwise the answer says plainly that it could not look it up, and what works (answer-parts.ts).
  }
  return { kind: 'text', text: writeAnswer(intent, conv) };
}
