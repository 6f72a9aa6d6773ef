/**
 * A real listening service for the document's examples (tests/openapi-examples.test.ts and
 * tests/openapi-conformance.test.ts): the fake gateway, an in-memory store holding one fact of the
 * example user, and one finished run of theirs, so the path ids of the examples can be swapped for ones
 * that exist (`exampleValue`). Not a test file.
 */
import { createApp } from '../../src/app.js';
import { createInMemoryStore } from '../../src/memory/in-memory-store.js';
import { EXAMPLE_FACT_ID, EXAMPLE_RUN_ID, EXAMPLE_USER_ID } from '../../src/routes/examples.js';
import { createTestDeps, testConfig } from './deps.js';
import { gatewayClient, startFakeGateway } from './fake-gateway.js';
import { listen } from './listen.js';

export interface ExampleService {
  base: string;
  /** A parameter's example value, with the example fact and run ids swapped for the ones that exist. */
  exampleValue(example: unknown): string;
  close(): Promise<void>;
}

export async function startExampleService(env: Record<string, string> = {}, secret: string | null = null): Promise<ExampleService> {
  const gw = await startFakeGateway({ handler: () => ({ text: 'Gates Hillman Center is on the main campus.' }) });
  const memory = createInMemoryStore({ embeddingModel: null });
  const deps = await createTestDeps({ config: testConfig({ ...env, ...(secret && { AGENT_SHARED_SECRET: secret }) }), gateway: gatewayClient(gw), memory });
  const server = await listen(createApp(deps).fetch);
  const factId = (await memory.add({ userId: EXAMPLE_USER_ID, kind: 'remembered', text: 'Is vegetarian' })).fact.id;
  const stream = await fetch(`${server.base}/agent/respond/stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(secret && { authorization: `Bearer ${secret}` }) },
    body: JSON.stringify({ query: 'Where is Gates?', user_id: EXAMPLE_USER_ID }),
  });
  const runId = stream.headers.get('x-run-id')!;
  await stream.text();
  return {
    base: server.base,
    exampleValue(example) {
      const v = String(example ?? '');
      return v === EXAMPLE_FACT_ID ? factId : v === EXAMPLE_RUN_ID ? runId : v;
    },
    async close() {
      await server.close();
      await gw.close();
    },
  };
}
