/**
 * Decisions both stores make the same way, kept in one place: how a duplicate's kind and wording are
 * merged, which facts are evicted first, and the bounds of a page.
 */
import type { Fact, FactInput, FactKind, FactSource, ListOptions } from './store.js';

/** CONTRACT.md "Memory page": limit 1-200, default 200; offset ≥ 0, default 0. */
export const MAX_PAGE_LIMIT = 200;

/** The history source of an added fact: as given, else what its kind implies (the user asked, or extraction). */
export const sourceOf = (input: Pick<FactInput, 'kind' | 'source'>): FactSource =>
  input.source ?? (input.kind === 'remembered' ? 'remember' : 'extraction');

/**
 * A duplicate keeps the stronger kind: an explicit remember promotes a learned fact; a learned
 * re-discovery never demotes a remembered one. An explicit remember also takes the user's new wording.
 * `changed` is false when the duplicate already reads this way with this kind: nothing is written.
 */
export function mergeDuplicate(
  existing: Pick<Fact, 'kind' | 'text'>,
  incoming: Pick<Fact, 'kind' | 'text'>,
): { kind: FactKind; text: string; takeNewText: boolean; changed: boolean } {
  const kind: FactKind = existing.kind === 'remembered' || incoming.kind === 'remembered' ? 'remembered' : 'learned';
  const takeNewText = incoming.kind === 'remembered' && incoming.text !== existing.text;
  const text = takeNewText ? incoming.text : existing.text;
  return { kind, text, takeNewText, changed: takeNewText || kind !== existing.kind };
}

/**
 * Eviction order: learned facts before remembered ones (the user asked to keep those), then the least
 * recently updated (a fact re-learned lately is still true), then the oldest created.
 */
export function evictionOrder<T extends Pick<Fact, 'kind' | 'updatedAt' | 'createdAt'>>(facts: readonly T[]): T[] {
  return [...facts].sort(
    (a, b) =>
      Number(a.kind === 'remembered') - Number(b.kind === 'remembered') ||
      a.updatedAt.getTime() - b.updatedAt.getTime() ||
      a.createdAt.getTime() - b.createdAt.getTime(),
  );
}

/** Limit and offset clamped to the contract's bounds (routes validate first; stores stay safe anyway). */
export function pageBounds(options: Pick<ListOptions, 'limit' | 'offset'>): { limit: number; offset: number } {
  const limit = Math.min(MAX_PAGE_LIMIT, Math.max(1, Math.floor(options.limit ?? MAX_PAGE_LIMIT)));
  const offset = Math.max(0, Math.floor(options.offset ?? 0));
  return { limit, offset };
}
