/**
 * Memory under the leak policy (security/leak-policy.ts), in both directions. In: a fact that carries a
 * secret (a key, the shared secret, a password, in any form the policy reads) or repeats the service's
 * instructions is refused before it is
 * embedded or stored, whoever wrote it (the remember tool, background extraction). Out: every fact a
 * store hands back is redacted before it reaches a listing, a `memory` event, the recall block or the
 * extraction prompt, so a fact stored before this rule (or by hand) cannot carry a secret out either.
 */
import type { LeakPolicy } from '../security/leak-policy.js';
import { cleanFactText, fitFactLength } from './fact-text.js';
import { toThirdPerson } from './fact-wording.js';
import type { Fact, MemoryStore } from './store.js';

export type AdmittedFact = { ok: true; text: string } | { ok: false; reason: 'empty' | 'secret' | 'prompt' };

/**
 * The one way a fact's text reaches a store, from an extraction or the remember tool: cleaned once
 * (characters no store holds, invisible tags, spacing: fact-text.ts), worded in third person
 * (fact-wording.ts), cut to MAX_FACT_LENGTH, then refused when empty, when it carries a secret, or when
 * it repeats the service's instructions (a fact is listed back and shown to later turns: it must not
 * become a way to carry the prompt out). The guard reads the text exactly as it will be stored.
 */
export function admitFact(raw: string, leaks: LeakPolicy): AdmittedFact {
  const text = fitFactLength(toThirdPerson(cleanFactText(raw)));
  if (!text) return { ok: false, reason: 'empty' };
  if (leaks.scan(text).redacted) return { ok: false, reason: 'secret' };
  if (leaks.carriesPrompt(raw) || leaks.carriesPrompt(text)) return { ok: false, reason: 'prompt' };
  return { ok: true, text };
}

/** The store with every fact it returns redacted; writes pass through unchanged. */
export function redactingStore(store: MemoryStore, leaks: LeakPolicy): MemoryStore {
  const clean = <F extends Fact>(f: F): F => {
    const r = leaks.scan(f.text);
    return r.redacted ? { ...f, text: r.text } : f;
  };
  return {
    get backend() {
      return store.backend;
    },
    init: () => store.init(),
    health: () => store.health(),
    close: () => store.close(),
    add: async (input) => {
      const result = await store.add(input);
      return { ...result, fact: clean(result.fact) };
    },
    list: async (userId, options) => {
      const page = await store.list(userId, options);
      return { ...page, items: page.items.map(clean) };
    },
    update: async (userId, id, update) => {
      const result = await store.update(userId, id, update);
      return result && { ...result, fact: clean(result.fact) };
    },
    history: async (userId, id, kind) =>
      (await store.history(userId, id, kind))?.map((h) => (h.text === null ? h : { ...h, text: leaks.redact(h.text) })) ?? null,
    search: async (userId, embedding, k) => (await store.search(userId, embedding, k)).map(clean),
    get: async (userId, id) => {
      const f = await store.get(userId, id);
      return f && clean(f);
    },
    remove: async (userId, ids, kind) => (await store.remove(userId, ids, kind)).map(clean),
    clear: (userId) => store.clear(userId),
    count: (userId) => store.count(userId),
  };
}
