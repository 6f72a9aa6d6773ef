/**
 * Issue 29: one schema per local tool. What the model is offered for `maps_show_map`, `memory_remember`
 * and `memory_forget` (read from the request the fake gateway received in a real turn) is the JSON Schema
 * derived from the zod schema the tool validates with, and each bound it states is the bound zod holds:
 * a string at its `maxLength` is accepted, one character longer refused, a required field missing refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApp } from '../src/app.js';
import { showMapArgs } from '../src/campus/show-map-tool.js';
import { createBackgroundTasks } from '../src/lifecycle/background-tasks.js';
import { silentLogger } from '../src/logger.js';
import { createTurnMemory } from '../src/memory/create-turn-memory.js';
import { forgetArgs } from '../src/memory/forget-tool.js';
import { createInMemoryStore } from '../src/memory/in-memory-store.js';
import { rememberArgs } from '../src/memory/remember-tool.js';
import { toolParameters } from '../src/tools/local-tool.js';
import { createTestDeps } from './support/deps.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';

let gw: FakeGateway;
let offered: Map<string, { properties: Record<string, { maxLength?: number; type?: string }>; required?: string[] }>;

beforeAll(async () => {
  gw = await startFakeGateway();
  const gateway = gatewayClient(gw, { apiKey: 'sk-chat-key' });
  const store = createInMemoryStore({ embeddingModel: null });
  const background = createBackgroundTasks(silentLogger);
  const deps = await createTestDeps({
    gateway,
    memory: store,
    background,
    turnMemory: ({ leaks }) => createTurnMemory({ store, embedder: null, gateway, background, logger: silentLogger, extractionModel: 'x/y', leaks }),
  });
  gw.handler = (body) => (body.model === 'x/y' ? { text: '{"operations": []}' } : { text: 'Noted.' });
  const res = await createApp(deps).request('/agent/respond', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'Please remember that I am vegetarian, and where is Gates?', user_id: 'schema-user' }),
  });
  expect(res.status).toBe(200);
  const tools = gw.chatRequests()[0].tools as Array<{ function: { name: string; parameters: any } }>;
  offered = new Map(tools.map((t) => [t.function.name, t.function.parameters]));
});

afterAll(() => gw?.close());

const TOOLS: Array<[string, z.ZodObject]> = [
  ['maps_show_map', showMapArgs],
  ['memory_remember', rememberArgs],
  ['memory_forget', forgetArgs],
];

describe('local tools offer the schema they validate with', () => {
  it.each(TOOLS)('%s: the offered parameters are derived from its zod schema', (name, schema) => {
    expect(offered.get(name)).toEqual(toolParameters(schema));
  });

  it.each(TOOLS)('%s: every maxLength offered is the bound zod holds, and required fields are required', (name, schema) => {
    const params = offered.get(name)!;
    const valid = Object.fromEntries((params.required ?? []).map((k) => [k, 'x']));
    for (const [key, prop] of Object.entries(params.properties)) {
      const max = prop.maxLength ?? (prop as { anyOf?: Array<{ maxLength?: number }> }).anyOf?.find((a) => a.maxLength)?.maxLength;
      if (max === undefined) continue;
      expect(schema.safeParse({ ...valid, [key]: 'a'.repeat(max) }).success, `${name}.${key} at ${max}`).toBe(true);
      expect(schema.safeParse({ ...valid, [key]: 'a'.repeat(max + 1) }).success, `${name}.${key} at ${max + 1}`).toBe(false);
    }
    for (const key of params.required ?? []) {
      const { [key]: _dropped, ...without } = valid;
      expect(schema.safeParse(without).success, `${name} without ${key}`).toBe(false);
    }
  });

  it('the bounds the issue found drifted are stated to the model: remember and show-map lengths', () => {
    expect(offered.get('memory_remember')!.properties.fact!.maxLength).toBeGreaterThan(0);
    expect(offered.get('maps_show_map')!.properties.destination!.maxLength).toBe(200);
  });
});
