/**
 * Retrieval for a question no intent claims ("I need a quiet place to read", "someone to talk to about
 * stress"), or one that names its source (a guide topic, a course topic or instructor): the searches a
 * model would run, over every source at once (the guide, the course catalog, the campus map) or the one
 * named, then the best source by how much of the question its top hit covers (at least half of its
 * terms). Ties go to the guide, then courses, then places; no such hit is "not covered".
 */
import { STOP_WORDS, terms } from '../campus/text-search.js';
import type { Conversation } from './conversation.js';
import { guideHits, outcome, parseJson, searchHit } from './tool-readings.js';

/** Words that ask rather than describe, besides those no index keeps: what is left is what to search for. */
const ASKING = new Set([
  ...STOP_WORDS,
  ...'campus cmu university department have has by professor prof instructor lecturer offered im i\'m we you was be anything something somewhere someone could should would will please need want looking find got here this that good place spot teach teaches taught work works connect pick up use tell know'.split(' '),
]);

/** The question's describing words, for the search tools. */
export function searchWords(question: string): string {
  return (question.toLowerCase().match(/[\p{L}\p{N}'-]+/gu) ?? []).filter((w) => !ASKING.has(w)).join(' ');
}

export type Source = 'guide' | 'courses' | 'place';

/** The searches over every source (or only one), in the order ties are broken. */
export const searchCalls = (query: string, only?: Source) =>
  (
    [
      ['guide', { name: 'guide_search_guide', arguments: { query, limit: 3 } }],
      ['courses', { name: 'courses_search_courses_by_query', arguments: { query } }],
      ['place', { name: 'maps_search_buildings', arguments: { query } }],
    ] as const
  ).flatMap(([source, search]) => (!only || only === source ? [search] : []));

export type Best = { source: 'guide'; chunkId: string } | { source: 'courses' } | { source: 'place'; code: string };

/** The share of the query's terms that a hit's text carries, both analysed as the search tools analyse them. */
export function coverage(query: string, text: string): number {
  const want = [...new Set(terms(query))];
  const have = [...new Set(terms(text))];
  return want.length === 0 ? 0 : want.filter((w) => have.some((h) => h === w || (w.length >= 4 && h.startsWith(w)))).length / want.length;
}

/** The best course the catalog search for this query found, if it ran and found one. */
export function topCourse(query: string, conv: Pick<Conversation, 'done'>): { courseID: string; name?: string; department?: string; desc?: string } | undefined {
  const courses = parseJson(outcome(conv, 'courses_search_courses_by_query', { query })?.result ?? '');
  return Array.isArray(courses) ? courses[0] : undefined;
}

/** The source to answer from, once the searches ran; null when none found anything. */
export function bestSource(query: string, conv: Pick<Conversation, 'done'>): Best | null {
  const candidates: Array<{ best: Best; text: string }> = [];
  const guide = guideHits(conv, query)?.[0];
  if (guide) candidates.push({ best: { source: 'guide', chunkId: guide.chunk_id }, text: `${(guide.heading_path ?? []).join(' ')} ${guide.snippet ?? ''}` });
  const course = topCourse(query, conv);
  if (course) candidates.push({ best: { source: 'courses' }, text: `${course.name} ${course.department} ${course.desc}` });
  const place = searchHit(conv, query);
  if (place?.floor?.buildingCode) candidates.push({ best: { source: 'place', code: place.floor.buildingCode }, text: `${place.fullNameWithSpace} ${place.description ?? ''}` });
  // At least half the question's words, or it is a stray match ("sing" is one letter from "Wing").
  const scored = candidates.map((c) => ({ ...c, covers: coverage(query, c.text) })).filter((c) => c.covers >= 0.5);
  // Stable sort: equal coverage keeps the order above.
  return scored.sort((a, b) => b.covers - a.covers)[0]?.best ?? null;
}
