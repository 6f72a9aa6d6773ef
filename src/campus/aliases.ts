/**
 * The alias index of a building catalog: every phrase that names one building, as a normalised key.
 * Sources, in the order the issue lists them: normalised full names; codes of 3+ characters; names
 * without trailing generic words ("Scott Hall" → "scott"); distinctive single words found in exactly
 * one building's name; curated nicknames. A key that points at two different buildings is dropped
 * ("greek quad" names six), whatever its sources: guessing would put the wrong building on the map.
 */
import type { CatalogEntry } from './builtin-catalog.js';
import { phraseKey, words } from './words.js';

/** Words that describe a kind of building, stripped from the end of a name ("Wean Hall" → "wean"). */
const GENERIC_TRAILING = new Set([
  'hall', 'halls', 'house', 'building', 'buildings', 'center', 'centers', 'centre', 'centres',
  'apartments', 'apartment', 'gardens', 'garden', 'terrace', 'institute', 'library', 'tower', 'wing',
  'quad', 'complex', 'annex', 'housing', 'pavilion', 'auditorium',
]);

/**
 * Words too common in ordinary prose to name a building on their own, even when only one name
 * contains them ("Carnegie Mellon" is the university, not Mellon Institute; "hunt", "spirit", "boss",
 * "west" are everyday words).
 */
const COMMON_WORDS = new Set([
  ...GENERIC_TRAILING,
  'the', 'of', 'and', 'for', 'on', 'at', 'in', 'to', 'a', 'an', 'university', 'campus', 'carnegie', 'mellon',
  'college', 'school', 'fine', 'arts', 'art', 'services', 'service', 'management', 'facilities', 'innovation',
  'collaborative', 'residence', 'spirit', 'west', 'east', 'north', 'south', 'boss', 'hunt', 'greek', 'police',
  'ave', 'avenue', 'street', 'road', 'craig', 'henry', 'fifth', 'forbes', 'engineering', 'science', 'sciences',
  'main', 'new', 'old', 'alumni', 'student', 'students', 'union', 'hub', 'office', 'offices', 'green',
]);

/** Where a key came from: a code key only matches capitalised words in prose (see catalog.ts). */
export interface AliasTarget {
  code: string;
  /** True when the key is also a name-derived phrase, so it matches in any case. */
  fromName: boolean;
  /** True when the key is the building's code. */
  fromCode: boolean;
}

export interface AliasIndex {
  /** Normalised key → the one building it names. */
  keys: ReadonlyMap<string, AliasTarget>;
  /** The longest key in words, bounding the prose scanner's window. */
  maxWords: number;
}

function strippedName(name: string): string | null {
  const ws = phraseKey(name).split(' ');
  let end = ws.length;
  while (end > 0 && GENERIC_TRAILING.has(ws[end - 1]!)) end--;
  if (end === 0 || end === ws.length) return null;
  return ws.slice(0, end).join(' ');
}

/** A single word may name a building only if it is long enough and not an everyday word. */
function distinctiveWord(w: string): boolean {
  return w.length >= 3 && !/^\d+$/.test(w) && !COMMON_WORDS.has(w);
}

/** A key is usable if it has several words, or is one distinctive word (never a bare 2-letter word). */
function usableKey(key: string): boolean {
  if (!key) return false;
  return key.includes(' ') ? key.length >= 3 : distinctiveWord(key);
}

/** Builds the alias index of `entries`, whose `aliases` hold curated nicknames and file-given aliases. */
export function buildAliasIndex(entries: readonly CatalogEntry[]): AliasIndex {
  const found = new Map<string, { codes: Set<string>; fromName: boolean; fromCode: boolean }>();
  const add = (key: string, code: string, how: 'name' | 'code') => {
    if (!usableKey(key)) return;
    const slot = found.get(key) ?? { codes: new Set<string>(), fromName: false, fromCode: false };
    slot.codes.add(code);
    if (how === 'name') slot.fromName = true;
    else slot.fromCode = true;
    found.set(key, slot);
  };

  // Which buildings each name word appears in, to find the words unique to one building.
  const wordOwners = new Map<string, Set<string>>();
  for (const e of entries) {
    for (const w of words(e.name)) {
      const owners = wordOwners.get(w.norm) ?? new Set<string>();
      owners.add(e.code);
      wordOwners.set(w.norm, owners);
    }
  }

  for (const e of entries) {
    add(phraseKey(e.name), e.code, 'name');
    if (e.code.length >= 3) add(e.code.toLowerCase(), e.code, 'code');
    const stripped = strippedName(e.name);
    if (stripped) add(stripped, e.code, 'name');
    for (const w of words(e.name)) {
      if (wordOwners.get(w.norm)?.size === 1 && distinctiveWord(w.norm)) add(w.norm, e.code, 'name');
    }
    for (const nickname of e.aliases) add(phraseKey(nickname), e.code, 'name');
  }

  const keys = new Map<string, AliasTarget>();
  let maxWords = 1;
  for (const [key, slot] of found) {
    if (slot.codes.size !== 1) continue; // ambiguous: names two buildings
    const [code] = slot.codes;
    keys.set(key, { code: code!, fromName: slot.fromName, fromCode: slot.fromCode });
    maxWords = Math.max(maxWords, key.split(' ').length);
  }
  return { keys, maxWords };
}
