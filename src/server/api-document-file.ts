/**
 * The OpenAPI document as `npm run openapi` writes it to `openapi.json` at the repository root, and as
 * the drift test compares it with the committed file (issue 49): the app built by the one composition
 * root over inert parts (no model, no tools, an in-memory store, nothing opened), whose routes are the
 * same in every configuration, so the document does not depend on where it is made.
 */
import { createApp } from '../app.js';
import { parseConfig } from '../config.js';
import { createInMemoryStore } from '../memory/in-memory-store.js';
import { silentLogger } from '../logger.js';
import { apiDocument } from '../routes/api-docs.js';
import { leakPolicyFromConfig } from '../security/leak-policy.js';
import { buildDeps, INERT_PARTS } from './build-deps.js';

/** The document, as the text of `openapi.json` (two-space JSON and a final newline). */
export async function renderApiDocument(): Promise<string> {
  const config = parseConfig({ AGENT_ENV: 'test' });
  const { deps, close } = await buildDeps({
    config,
    logger: silentLogger,
    leaks: leakPolicyFromConfig(config),
    jobs: 'in-process',
    overrides: { ...INERT_PARTS, memory: createInMemoryStore({ embeddingModel: null }) },
  });
  try {
    return `${JSON.stringify(await apiDocument(createApp(deps)), null, 2)}\n`;
  } finally {
    await close(1_000);
  }
}
