/**
 * The building catalog: loaded once at startup (from `CAMPUS_BUILDINGS_FILE`, else the built-in
 * Carnegie Mellon catalog), then asked to resolve what the model passes to `maps_show_map` and to find
 * buildings mentioned in prose. Matching rules (issue 4): longest alias wins; a room number after a
 * building ("GHC 4301", "Wean 5310") resolves to the building; in prose a code only counts when written
 * in capitals (or containing a digit), so "ham", "mud" or "Don" are not buildings, and a bare two-letter
 * word never is ("PH", "SC", "HH" are ordinary words; "PH 100" with a room number is Porter Hall).
 */
import { buildAliasIndex, type AliasIndex } from './aliases.js';
import { builtinCatalogEntries, type CatalogEntry } from './builtin-catalog.js';
import { readCatalogFile } from './catalog-file.js';
import { isRoomNumber, phraseKey, words, type Word } from './words.js';

export { CatalogError } from './catalog-file.js';

/** One building of the catalog. */
export interface Building {
  code: string;
  name: string;
}

/** A building named in a piece of text, with the span that names it (room number included). */
export interface BuildingMention {
  building: Building;
  start: number;
  end: number;
  /** The room number written after the building, if any ("4301"). */
  room: string | null;
}

/** The campus buildings: lookup by code, resolution of names and nicknames, mentions in prose. */
export interface Catalog {
  /** The building with this code (case-insensitive), or null. */
  get(code: string): Building | null;
  /**
   * Resolves a code, alias, name, nickname or room ("GHC 4301") to one building; a longer phrase
   * resolves to the building it mentions (longest mention first). Null when nothing or only ambiguous
   * names match.
   */
  resolve(text: string): Building | null;
  /** Buildings mentioned in prose, left to right, non-overlapping, longest match at each place. */
  mentions(prose: string): BuildingMention[];
  /** Every building, in catalog order. */
  list(): readonly Building[];
}

// A code glued to its room number in one word: "GHC4401", "WEH5310".
const GLUED_ROOM = /^([a-z]{2,4})(\d{3,4}[a-z]?)$/i;

const isCapitalised = (raw: string) => raw === raw.toUpperCase();

/** Builds a catalog from entries; curated built-in nicknames join entries with the same code and name. */
export function createCatalog(entries: readonly CatalogEntry[]): Catalog {
  const nicknames = new Map(builtinCatalogEntries().map((e) => [`${e.code}\u0000${phraseKey(e.name)}`, e.aliases]));
  const enriched = entries.map((e) => {
    const extra = nicknames.get(`${e.code}\u0000${phraseKey(e.name)}`) ?? [];
    return { ...e, aliases: [...new Set([...e.aliases, ...extra])] };
  });
  const buildings: Building[] = enriched.map((e) => Object.freeze({ code: e.code, name: e.name }));
  const byCode = new Map(buildings.map((b) => [b.code.toUpperCase(), b]));
  const index: AliasIndex = buildAliasIndex(enriched);

  const get = (code: string) => byCode.get(code.trim().toUpperCase()) ?? null;

  /** Longest alias starting at word i; `anyCase` lets codes match in lower case (tool arguments). */
  function matchAt(ws: Word[], i: number, anyCase: boolean): BuildingMention | null {
    const first = ws[i]!;
    const limit = Math.min(index.maxWords, ws.length - i);
    for (let n = limit; n >= 1; n--) {
      const key = ws
        .slice(i, i + n)
        .map((w) => w.norm)
        .join(' ');
      const target = index.keys.get(key);
      if (!target) continue;
      if (!target.fromName && n === 1 && !anyCase && !isCapitalised(first.raw) && !/\d/.test(first.raw)) continue;
      return withRoom(ws, i, n, get(target.code)!);
    }
    // Two-letter codes only with a room number after them, and in capitals unless told otherwise.
    const next = ws[i + 1];
    const short = get(first.norm);
    if (short && first.norm.length <= 2 && next && isRoomNumber(next.raw) && (anyCase || isCapitalised(first.raw))) {
      return withRoom(ws, i, 1, short);
    }
    const glued = GLUED_ROOM.exec(first.raw);
    const gluedBuilding = glued ? get(glued[1]!) : null;
    if (glued && gluedBuilding && (anyCase || isCapitalised(glued[1]!))) {
      return { building: gluedBuilding, start: first.start, end: first.end, room: glued[2]! };
    }
    return null;
  }

  function withRoom(ws: Word[], i: number, n: number, building: Building): BuildingMention {
    const last = ws[i + n - 1]!;
    const next = ws[i + n];
    if (next && isRoomNumber(next.raw)) return { building, start: ws[i]!.start, end: next.end, room: next.raw };
    return { building, start: ws[i]!.start, end: last.end, room: null };
  }

  function scan(text: string, anyCase: boolean): BuildingMention[] {
    const ws = words(text);
    const out: BuildingMention[] = [];
    for (let i = 0; i < ws.length; ) {
      const m = matchAt(ws, i, anyCase);
      if (!m) {
        i++;
        continue;
      }
      out.push(m);
      while (i < ws.length && ws[i]!.start < m.end) i++;
    }
    return out;
  }

  function resolve(text: string): Building | null {
    const trimmed = text.trim();
    if (!trimmed) return null;
    const exact = get(trimmed);
    if (exact) return exact;
    const key = phraseKey(trimmed);
    const aliased = index.keys.get(key) ?? index.keys.get(`the ${key}`) ?? index.keys.get(key.replace(/^the /, ''));
    if (aliased) return get(aliased.code);
    const found = scan(trimmed, true);
    if (found.length === 0) return null;
    const span = (m: BuildingMention) => m.end - m.start;
    return found.reduce((best, m) => (span(m) > span(best) ? m : best)).building;
  }

  return {
    get,
    resolve,
    mentions: (prose) => scan(prose, false),
    list: () => buildings,
  };
}

/**
 * Loads the catalog once at startup: `file` null → the built-in Carnegie Mellon catalog; otherwise the
 * file, synchronously. Throws `CatalogError` (naming the file and the problem) for a malformed file.
 */
export function loadCatalog(file: string | null): Catalog {
  return createCatalog(file === null ? builtinCatalogEntries() : readCatalogFile(file));
}
