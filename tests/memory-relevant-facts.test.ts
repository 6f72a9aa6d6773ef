/**
 * relevantFacts (src/memory/relevant-facts.ts), the one selection behind recall, extraction and the
 * remember tool, on the in-memory store with a fake embedder whose scale we choose: every similarity is
 * tiny, and the nearest facts must still be found; ties go to remembered facts, then to recent ones.
 */
import { describe, expect, it } from 'vitest';
import { EMBEDDING_DIMENSIONS } from '../src/db/embedding-dimensions.js';
import { createLogger } from '../src/logger.js';
import type { Embedder } from '../src/memory/embeddings.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { relevantFacts } from '../src/memory/relevant-facts.js';

const logger = createLogger({ sink: () => undefined });

/** Fact `i` lies on axis i+1 with a small component on axis 0; the query is axis 0. */
function tilted(axis: number, cosine: number): number[] {
  const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
  v[0] = cosine;
  v[axis] = Math.sqrt(1 - cosine * cosine);
  return v;
}
const query = tilted(1000, 1);

function setup() {
  let t = Date.parse('2026-11-01T00:00:00Z');
  const store = createInMemoryStore({ embeddingModel: 'fake', now: () => new Date((t += 1000)) });
  const calls: string[][] = [];
  const embedder: Embedder = {
    model: 'fake',
    async embed(texts) {
      calls.push([...texts]);
      return texts.map(() => query);
    },
  };
  return { store, embedder, calls };
}

describe('relevantFacts', () => {
  it('finds the nearest k when every similarity is below 0.05', async () => {
    const { store, embedder } = setup();
    const cosines = [0.01, 0.04, 0.02, 0.03, 0.005];
    for (const [i, c] of cosines.entries()) await store.add({ userId: 'u', kind: 'learned', text: `fact ${i}`, embedding: tilted(i + 1, c) });
    const found = await relevantFacts({ store, embedder, logger }, 'u', 'anything', { k: 3 });
    expect(found.map((f) => f.text)).toEqual(['fact 1', 'fact 3', 'fact 2']);
  });

  it('cuts a tie at the boundary in favour of the remembered fact, then the more recently updated', async () => {
    const { store, embedder } = setup();
    await store.add({ userId: 'u', kind: 'learned', text: 'best', embedding: tilted(1, 0.2) });
    await store.add({ userId: 'u', kind: 'remembered', text: 'remembered, older', embedding: tilted(2, 0.1) });
    await store.add({ userId: 'u', kind: 'learned', text: 'learned, newer', embedding: tilted(3, 0.1) });
    expect((await relevantFacts({ store, embedder, logger }, 'u', 'q', { k: 2 })).map((f) => f.text)).toEqual(['best', 'remembered, older']);

    const { store: s2, embedder: e2 } = setup();
    await s2.add({ userId: 'u', kind: 'learned', text: 'best', embedding: tilted(1, 0.2) });
    await s2.add({ userId: 'u', kind: 'learned', text: 'older', embedding: tilted(2, 0.1) });
    await s2.add({ userId: 'u', kind: 'learned', text: 'newer', embedding: tilted(3, 0.1) });
    expect((await relevantFacts({ store: s2, embedder: e2, logger }, 'u', 'q', { k: 2 })).map((f) => f.text)).toEqual(['best', 'newer']);
  });

  it('returns every fact of a user with at most k without embedding, and fills from facts without vectors', async () => {
    const { store, embedder, calls } = setup();
    await store.add({ userId: 'u', kind: 'learned', text: 'no vector' });
    await store.add({ userId: 'u', kind: 'learned', text: 'with vector', embedding: tilted(1, 0.01) });
    expect((await relevantFacts({ store, embedder, logger }, 'u', 'q', { k: 2 })).map((f) => f.text).sort()).toEqual(['no vector', 'with vector']);
    expect(calls).toEqual([]);
    await store.add({ userId: 'u', kind: 'learned', text: 'second no vector' });
    const found = await relevantFacts({ store, embedder, logger }, 'u', 'q', { k: 2 });
    expect(found.map((f) => f.text)).toEqual(['with vector', 'second no vector']);
    expect(calls).toEqual([['q']]);
  });

  it('takes the newest without an embedder, when asked, and when the embedder fails', async () => {
    const { store, embedder: working } = setup();
    // The oldest is the nearest: only a newest-first pick leaves it out.
    for (const [i, text] of ['a', 'b', 'c'].entries()) await store.add({ userId: 'u', kind: 'learned', text, embedding: tilted(i + 1, 0.5 - i / 10) });
    expect((await relevantFacts({ store, embedder: working, logger }, 'u', 'q', { k: 2 })).map((f) => f.text)).toEqual(['a', 'b']);
    expect((await relevantFacts({ store, embedder: working, logger }, 'u', 'q', { k: 2, newest: true })).map((f) => f.text)).toEqual(['c', 'b']);
    const failing: Embedder = {
      model: 'fake',
      embed: async () => {
        throw new Error('embeddings down');
      },
    };
    for (const embedder of [null, failing]) {
      expect((await relevantFacts({ store, embedder, logger }, 'u', 'q', { k: 2 })).map((f) => f.text)).toEqual(['c', 'b']);
    }
  });
});
