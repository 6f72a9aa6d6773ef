/**
 * The text rules of a fact, shared by both stores and the tools: how a fact is cleaned before it is
 * stored, the normalised form duplicates meet on, and what a fact id looks like.
 */
import { removeInvisibleTags } from '../security/invisible-tags.js';
import { MAX_FACT_LENGTH } from './store.js';

/**
 * Control characters (NUL above all: Postgres text cannot hold it, error 22021) and lone surrogates
 * (not valid UTF-8) cannot be stored; they carry no meaning in a fact, so they are removed.
 */
const UNSTORABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Removes characters no store can hold (see UNSTORABLE) and invisible tag characters (security/invisible-tags.ts). */
export function removeUnstorable(text: string): string {
  return removeInvisibleTags(text).replace(UNSTORABLE, '');
}

/** Trims, removes unstorable characters, collapses whitespace and cuts to MAX_FACT_LENGTH characters (whole code points). */
export function cleanFactText(text: string): string {
  const collapsed = removeUnstorable(text).replace(/\s+/g, ' ').trim();
  const chars = Array.from(collapsed);
  return chars.length <= MAX_FACT_LENGTH ? collapsed : chars.slice(0, MAX_FACT_LENGTH).join('').trimEnd();
}

/**
 * The dedupe key: Unicode-normalised, lower-cased, punctuation removed, single-spaced. "Is vegetarian."
 * and "is  Vegetarian" are the same fact.
 */
export function normalizeFactText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Fact ids are UUIDs in both stores; anything else cannot name a fact (and must not reach SQL as uuid). */
export function isFactId(id: string): boolean {
  return UUID.test(id);
}
