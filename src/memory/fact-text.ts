/**
 * The text rules of a fact: how admission cleans it (once, fact-guard.ts), what a store accepts as it
 * is, the normalised form duplicates meet on, and what a fact id looks like.
 */
import { removeInvisibleTags } from '../security/invisible-tags.js';
import { MemoryStoreError } from './store-error.js';
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

/** Removes characters no store can hold and invisible tags, collapses whitespace and trims (admitFact, fact-guard.ts, is its one caller). */
export function cleanFactText(text: string): string {
  return removeUnstorable(text).replace(/\s+/g, ' ').trim();
}

/** Cuts to MAX_FACT_LENGTH characters (whole code points). */
export function fitFactLength(text: string): string {
  const chars = Array.from(text);
  return chars.length <= MAX_FACT_LENGTH ? text : chars.slice(0, MAX_FACT_LENGTH).join('').trimEnd();
}

const HAS_UNSTORABLE = new RegExp(UNSTORABLE.source);

/**
 * A store writes a fact's text as it is given: admission (admitFact) cleaned it once. A text no store
 * can hold (a NUL, which Postgres refuses with 22021, another control character, a lone surrogate), an
 * empty one or one over MAX_FACT_LENGTH did not pass admission (no writer in src/ does that) and is
 * refused here, before the database sees it. Anything else a row may hold (a row written before the
 * rules, by hand) is stored as it is; what it shows is redacted on the way out (fact-guard.ts).
 */
export function storableText(op: string, text: string): string {
  if (!text || HAS_UNSTORABLE.test(text) || (text.length > MAX_FACT_LENGTH && Array.from(text).length > MAX_FACT_LENGTH)) {
    throw new MemoryStoreError(op, 'unadmitted_text');
  }
  return text;
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
