/**
 * Full-text search over the sandbox data, one configuration for every search tool (courses, guide,
 * buildings, dining): MiniSearch (small, no dependencies, kept up; BM25 ranking, per-field boosts,
 * fuzzy and prefix matching) with a light English stemmer, stop words and a few campus abbreviations.
 * A query must match all its words; when nothing does, the best partial matches count, kept only
 * when they score near the top one, so a question's stray word cannot pull in an unrelated record.
 */
import MiniSearch, { type SearchResult } from 'minisearch';

/** Words no index keeps (the offline model's question words build on them: retrieve.ts). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and any are about can class classes course courses do does for from get how i in is it me my near of on or some the there to what where which who with'.split(' '),
);

/** Abbreviations students write, as the data spells them out. */
const EXPAND: Record<string, string[]> = {
  ai: ['artificial', 'intelligence'],
  ml: ['machine', 'learning'],
  stats: ['statistics'],
  econ: ['economics'],
  psych: ['psychology'],
  cs: ['computer', 'science'],
  wifi: ['wi', 'fi'],
  dorm: ['housing'],
  doctor: ['health'],
  sick: ['health'],
  ill: ['health'],
  fever: ['health'],
  nurse: ['health'],
};

/** "studies" → "study", "libraries" → "library", "printing" → "print", "courses" → "course". */
function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  if (word.endsWith('e') && !word.endsWith('ee')) return word.slice(0, -1); // "move" and "moving" alike
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.endsWith('ing') && word.length > 6) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 5) return word.slice(0, -2);
  if (word.endsWith('es') && /(ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

const indexTerm = (term: string): string | null => {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) || t.length < 2 ? null : stem(t);
};

const queryTerm = (term: string): string | string[] | null => {
  const t = term.toLowerCase();
  // Own keys only: a query word such as `constructor` or `__proto__` is a word, not a key of every object.
  if (Object.hasOwn(EXPAND, t)) return EXPAND[t]!.map(stem);
  return indexTerm(t);
};

/** A text's search terms, analysed as the indexes analyse it (for a reader comparing a question with a hit). */
export function terms(text: string): string[] {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).flatMap((word) => queryTerm(word) ?? []);
}

export interface TextIndex<T> {
  /** The best matches, best first, with their relevance scores. */
  search(query: string, limit?: number): Array<{ item: T; score: number }>;
}

/**
 * An index over `docs`: `fields` maps a field name to its text and boost. Results are the documents,
 * best first; partial (any-word) matches only when no document has every word.
 */
export function textIndex<T>(docs: readonly T[], fields: Record<string, { text: (d: T) => string; boost?: number }>): TextIndex<T> {
  const names = Object.keys(fields);
  const mini = new MiniSearch<Record<string, unknown>>({
    fields: names,
    processTerm: indexTerm,
    searchOptions: {
      processTerm: queryTerm,
      boost: Object.fromEntries(names.map((n) => [n, fields[n]!.boost ?? 1])),
      // One typo at most: two would make "department" an "apartment".
      fuzzy: (term) => (term.length >= 4 && !/\d/.test(term) ? 1 : false),
      prefix: (term) => term.length >= 4,
    },
  });
  mini.addAll(docs.map((d, id) => ({ id, ...Object.fromEntries(names.map((n) => [n, fields[n]!.text(d)])) })));
  const pick = (hits: SearchResult[], limit: number) => hits.slice(0, limit).map((h) => ({ item: docs[h.id as number]!, score: Math.round(h.score * 1000) / 1000 }));
  return {
    search(query, limit = 10) {
      const all = mini.search(query, { combineWith: 'AND' });
      if (all.length > 0) return pick(all, limit);
      const some = mini.search(query, { combineWith: 'OR' });
      const best = some[0]?.score ?? 0;
      return pick(some.filter((h) => h.score >= best * 0.6), limit);
    },
  };
}
