/**
 * How the offline model reads the tool results it got back (the production formats of CAMPUS_TOOLS.md
 * and the service's own map tool), shared by the planner (which next call needs which code) and the
 * answer writers. A failed or unreadable result reads as "nothing", never as a guess.
 */
import { readDiningList, type DiningEntry } from '../campus/dining-format.js';
import { readMapAttached } from '../../campus/show-map-tool.js';
import { isToolFailureGuidance } from '../../tools/untrusted-result.js';
import { isErrorResult } from '../campus/tool-results.js';
import type { Conversation, ToolOutcomeSeen } from './conversation.js';

/** Pipeline guidance for a failed call, or the tool server's own error result. */
export function failed(result: string): boolean {
  return isErrorResult(result) || isToolFailureGuidance(result);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The outcome of the call with this name (and these arguments, when given), if it ran. */
export function outcome(conv: Pick<Conversation, 'done'>, name: string, args?: Record<string, unknown>): ToolOutcomeSeen | undefined {
  const key = args && JSON.stringify(args);
  return conv.done.find((d) => d.name === name && (!key || JSON.stringify(d.arguments) === key));
}

export interface PlaceHit {
  nameWithSpace?: string;
  fullNameWithSpace?: string;
  type?: string;
  floor?: { buildingCode?: string; level?: string };
  /** Extras some map data has (the sandbox's does): what a building holds, its nearest neighbours. */
  description?: string;
  nearby?: Array<{ code: string; name: string; metres: number }>;
}

/**
 * The first place a `maps_search_buildings` call for this text found: undefined when it has not run,
 * null when it found none. (The search itself forgives typos and knows nicknames.)
 */
export function searchHit(conv: Pick<Conversation, 'done'>, query: string): PlaceHit | null | undefined {
  const search = outcome(conv, 'maps_search_buildings', { query });
  if (!search) return undefined;
  if (failed(search.result)) return null;
  const parsed = parseJson(search.result) as { results?: PlaceHit[] } | undefined;
  return parsed?.results?.[0] ?? null;
}

/** The building code of that first hit: undefined (not run), null (nothing found) or the code. */
export function buildingCode(conv: Pick<Conversation, 'done'>, query: string): string | null | undefined {
  const hit = searchHit(conv, query);
  return hit === undefined ? undefined : (hit?.floor?.buildingCode ?? null);
}

/** The map the service attached (its `maps_show_map` tool says which): building labels and codes. */
export function mapShown(conv: Pick<Conversation, 'done'>): ReturnType<typeof readMapAttached> {
  for (const d of conv.done) if (d.name === 'maps_show_map' && readMapAttached(d.result)) return readMapAttached(d.result);
  return null;
}

export interface GuideHit {
  chunk_id: string;
  heading_path?: string[];
  snippet?: string;
}

/** `guide_search_guide` hits for this query: undefined when it has not run. */
export function guideHits(conv: Pick<Conversation, 'done'>, query: string): GuideHit[] | undefined {
  const search = outcome(conv, 'guide_search_guide', { query, limit: 3 });
  if (!search) return undefined;
  const hits = failed(search.result) ? undefined : parseJson(search.result);
  return Array.isArray(hits) ? (hits as GuideHit[]) : [];
}

/** The diet the user's saved facts name ("Is vegetarian"), as the dining search knows it. */
export function dietOf(conv: Pick<Conversation, 'facts'>): string | null {
  for (const fact of conv.facts) {
    const m = /\b(vegan|vegetarian|pescatarian|halal|kosher|gluten[- ]free)\b/i.exec(fact);
    if (m && !/\bnot\b/i.test(fact)) return m[1]!.toLowerCase();
  }
  return null;
}

/** The dining entries of the first successful call of this name (and arguments), or undefined. */
export function diningList(conv: Pick<Conversation, 'done'>, name: string, args?: Record<string, unknown>): DiningEntry[] | undefined {
  const found = outcome(conv, name, args);
  return found && !failed(found.result) ? readDiningList(found.result) : undefined;
}

/**
 * The walk in metres between two building codes, as `maps_distance_between` answered it: undefined
 * when it has not run, null when it failed or the tool did not know a place (-1).
 */
export function walkMetres(conv: Pick<Conversation, 'done'>, fromCode: string, toCode: string): number | null | undefined {
  const found = outcome(conv, 'maps_distance_between', { start_id: fromCode, end_id: toCode });
  if (!found) return undefined;
  const metres = Number(found.result);
  return !failed(found.result) && Number.isFinite(metres) && metres >= 0 ? metres : null;
}

/** The building a dining location's `Location` names: the part before the comma ("Posner Hall, ground floor"). */
export const diningBuilding = (location: string): string => location.split(',')[0]!.trim();

export interface ScheduleJson {
  year?: number;
  semester?: string;
  lectures?: Array<{ times?: Array<{ days: string[]; begin: string; end: string; building: string; room: string }> }>;
}

/** The semesters `courses_fetch_course_schedules` listed, or undefined when it did not run or failed. */
export function schedulesOf(conv: Pick<Conversation, 'done'>): ScheduleJson[] | undefined {
  const sched = outcome(conv, 'courses_fetch_course_schedules');
  const terms = sched && !failed(sched.result) ? parseJson(sched.result) : undefined;
  return Array.isArray(terms) ? (terms as ScheduleJson[]) : undefined;
}

/** The lecture of the semester asked for (else the first listed): its term, days, times and room. */
export function lectureOf(conv: Pick<Conversation, 'done'>, term: string | null) {
  const terms = schedulesOf(conv);
  const chosen = (term ? terms?.find((t) => t.semester === term) : undefined) ?? terms?.[0];
  const time = chosen?.lectures?.[0]?.times?.[0];
  return chosen && time ? { semester: chosen.semester, year: chosen.year, ...time } : undefined;
}

/** The first place found for this text, or null (not searched, or nothing found). */
export const placeHit = (conv: Pick<Conversation, 'done'>, query: string): PlaceHit | null => searchHit(conv, query) ?? null;
