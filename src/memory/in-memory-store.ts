/**
 * In-memory store: used when DATABASE_URL is unset. Facts live as long as the process.
 */
import type { MemoryHealth, MemoryStore } from './store.js';

export interface InMemoryStoreOptions {
  embeddingModel: string | null;
}

export function createInMemoryStore(options: InMemoryStoreOptions): MemoryStore {
  let initialized = false;
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
  };
}
