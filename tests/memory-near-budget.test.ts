/**
 * Issue 37, item 5: memory extraction in process (no DATABASE_URL) near the daily limit. The extraction
 * job reserves its call from the user's budget; it used to be scheduled while the turn still held its
 * own reservation (a first pass and an answer pass), so a user close to the limit lost the fact
 * ("background task failed ... CallNotAdmittedError") though the day had room once the turn settled.
 * The real entry point, DAILY_TOKEN_LIMIT=15000, one turn "I am a geology student. hi": the fact is stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';
import { until } from './support/until.js';

let gw: FakeGateway;
let service: ServiceProcess;

beforeAll(async () => {
  gw = await startFakeGateway();
  gw.handler = (body: any) =>
    body?.response_format?.type === 'json_object'
      ? { text: JSON.stringify({ operations: [{ op: 'add', text: 'Studies geology' }] }) }
      : { text: 'Hi! Geology is a great field.' };
  service = await spawnService({
    entry: 'source',
    env: { AGENT_ENV: 'test', DAILY_TOKEN_LIMIT: '15000', LLM_GATEWAY_API_KEY: 'sk-near-budget', LLM_GATEWAY_BASE_URL: gw.baseUrl },
  });
}, 60_000);

afterAll(async () => {
  await service?.stop();
  await gw?.close();
});

describe('in-process extraction near the daily limit', () => {
  it('stores the fact once the turn has given its hold back', async () => {
    const res = await fetch(`${service.url}/agent/respond`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'I am a geology student. hi', user_id: 'near-limit-student' }),
    });
    expect(res.status).toBe(200);
    await res.json();
    const facts = await until('the extracted fact', async () => {
      const page = await (await fetch(`${service.url}/memory/near-limit-student`)).json();
      return page.items?.length ? page.items : undefined;
    }, 15_000);
    expect(facts.map((f: { text: string }) => f.text)).toEqual(['Studies geology']);
    expect(service.logs.filter((l) => l.msg === 'background task failed')).toEqual([]);
  });
});
