/**
 * In-memory store: used when DATABASE_URL is unset. Facts live as long as the process. Same behaviour
 * as the Postgres store (the shared store suite runs against both): dedupe by normalised text or
 * cosine similarity, per-user limit with eviction, newest-first pages, exact vector search, a history
 * of changes per fact that goes with the fact.
 */
import { randomUUID } from 'node:crypto';
import { cosineSimilarity } from './cosine.js';
import { isFactId, normalizeFactText, storableText } from './fact-text.js';
import {
  DUPLICATE_SIMILARITY,
  MAX_FACTS_PER_USER,
  type AddResult,
  type Fact,
  type FactChange,
  type FactKind,
  type FactPage,
  type ListOptions,
  type MemoryHealth,
  type MemoryStore,
  type ScoredFact,
  type UpdateResult,
} from './store.js';
import { evictionOrder, mergeDuplicate, pageBounds, sourceOf } from './store-rules.js';

export interface InMemoryStoreOptions {
  /** Null when semantic search is off (no EMBEDDINGS_API_KEY): reported by health. */
  embeddingModel: string | null;
  /** Defaults to MAX_FACTS_PER_USER; tests lower it to exercise eviction quickly. */
  maxFactsPerUser?: number;
  now?: () => Date;
  newId?: () => string;
}

interface Entry extends Fact {
  normalized: string;
  embedding: number[] | null;
  /** Oldest first; goes with the entry when it is removed, evicted or cleared. */
  history: FactChange[];
  /** Order of creation in this store: a later fact of the same millisecond is the newer one. */
  seq: number;
}


const copy = (e: Entry): Fact => ({
  id: e.id,
  userId: e.userId,
  kind: e.kind,
  text: e.text,
  createdAt: new Date(e.createdAt),
  updatedAt: new Date(e.updatedAt),
});

/** Newest first; of two facts of the same millisecond, the one created later (a random id would pick either). */
const newestFirst = (a: Entry, b: Entry) => b.createdAt.getTime() - a.createdAt.getTime() || b.seq - a.seq;

export function createInMemoryStore(options: InMemoryStoreOptions): MemoryStore {
  const maxFacts = options.maxFactsPerUser ?? MAX_FACTS_PER_USER;
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? randomUUID;
  const byUser = new Map<string, Entry[]>();
  let created = 0;
  let initialized = false;

  const factsOf = (userId: string): Entry[] => byUser.get(userId) ?? [];

  return {
    backend: 'in-memory',
    async init() {
      initialized = true;
    },
    async health(): Promise<MemoryHealth> {
      return {
        backend: 'in-memory',
        initialized,
        semantic_search: options.embeddingModel !== null,
        embedding_model: options.embeddingModel,
        ready: initialized,
      };
    },
    async close() {
      initialized = false;
    },

    async add(input): Promise<AddResult> {
      const text = storableText('add', input.text);
      const normalized = normalizeFactText(text);
      const embedding = input.embedding ?? null;
      const facts = factsOf(input.userId);
      const at = now();
      let duplicate = facts.find((f) => f.normalized === normalized);
      if (!duplicate && embedding) {
        let best: { entry: Entry; similarity: number } | null = null;
        for (const f of facts) {
          if (!f.embedding) continue;
          const similarity = cosineSimilarity(embedding, f.embedding);
          if (!best || similarity > best.similarity) best = { entry: f, similarity };
        }
        if (best && best.similarity >= DUPLICATE_SIMILARITY) duplicate = best.entry;
      }

      const source = sourceOf(input);
      let stored: Entry;
      let status: AddResult['status'];
      if (duplicate) {
        const merged = mergeDuplicate(duplicate, { kind: input.kind, text });
        if (!merged.changed) return { fact: copy(duplicate), status: 'unchanged', evicted: 0 };
        duplicate.kind = merged.kind;
        // A rewording found by similarity cannot clash with another fact's normalised text: an exact
        // match would have been found first.
        if (merged.takeNewText) {
          duplicate.text = text;
          duplicate.normalized = normalized;
          duplicate.embedding = embedding ?? duplicate.embedding;
        }
        duplicate.updatedAt = at;
        duplicate.history.push({ at, change: 'updated', source, text: duplicate.text });
        stored = duplicate;
        status = 'updated';
      } else {
        stored = {
          id: newId(),
          userId: input.userId,
          kind: input.kind,
          text,
          normalized,
          embedding,
          createdAt: at,
          updatedAt: at,
          history: [{ at, change: 'created', source, text }],
          seq: created++,
        };
        facts.push(stored);
        byUser.set(input.userId, facts);
        status = 'created';
      }

      let evicted = 0;
      if (facts.length > maxFacts) {
        const victims = new Set(evictionOrder(facts).slice(0, facts.length - maxFacts));
        evicted = victims.size;
        byUser.set(input.userId, facts.filter((f) => !victims.has(f)));
      }
      return { fact: copy(stored), status, evicted };
    },

    async update(userId, id, update): Promise<UpdateResult | null> {
      const entry = isFactId(id) ? factsOf(userId).find((f) => f.id === id.toLowerCase()) : undefined;
      if (!entry) return null;
      const text = storableText('update', update.text);
      const normalized = normalizeFactText(text);
      const kind = update.kind ?? entry.kind;
      if (text === entry.text && kind === entry.kind) return { status: 'unchanged', fact: copy(entry) };
      const other = factsOf(userId).find((f) => f !== entry && f.normalized === normalized);
      if (other) return { status: 'conflict', fact: copy(other) };
      const at = now();
      // Same words, new kind (a promotion): the vector still describes the text.
      const embedding = text === entry.text ? entry.embedding : (update.embedding ?? null);
      Object.assign(entry, { text, normalized, kind, embedding, updatedAt: at });
      entry.history.push({ at, change: 'updated', source: update.source, text });
      return { status: 'updated', fact: copy(entry) };
    },

    async history(userId, id, kind?: FactKind) {
      const entry = isFactId(id) ? factsOf(userId).find((f) => f.id === id.toLowerCase()) : undefined;
      if (!entry || (kind && entry.kind !== kind)) return null;
      return entry.history.map((h) => ({ ...h, at: new Date(h.at) }));
    },

    async list(userId, opts: ListOptions = {}): Promise<FactPage> {
      const { limit, offset } = pageBounds(opts);
      const needle = opts.q?.toLowerCase();
      const matching = factsOf(userId)
        .filter((f) => (!opts.kind || f.kind === opts.kind) && (!needle || f.text.toLowerCase().includes(needle)))
        .sort(newestFirst);
      return { items: matching.slice(offset, offset + limit).map(copy), total: matching.length };
    },

    async search(userId, embedding, k): Promise<ScoredFact[]> {
      return factsOf(userId)
        .filter((f) => f.embedding)
        .map((f) => ({ ...copy(f), similarity: cosineSimilarity(embedding, f.embedding!) }))
        .sort((a, b) => b.similarity - a.similarity || b.updatedAt.getTime() - a.updatedAt.getTime())
        .slice(0, Math.max(0, k));
    },

    async get(userId, id) {
      if (!isFactId(id)) return null;
      const found = factsOf(userId).find((f) => f.id === id.toLowerCase());
      return found ? copy(found) : null;
    },

    async remove(userId, ids, kind?: FactKind) {
      const wanted = new Set(ids.filter(isFactId).map((id) => id.toLowerCase()));
      const facts = factsOf(userId);
      const removed = facts.filter((f) => wanted.has(f.id) && (!kind || f.kind === kind));
      if (removed.length > 0) byUser.set(userId, facts.filter((f) => !removed.includes(f)));
      return removed.map(copy);
    },

    async clear(userId) {
      const n = factsOf(userId).length;
      byUser.delete(userId);
      return n;
    },

    async count(userId) {
      return factsOf(userId).length;
    },
  };
}
