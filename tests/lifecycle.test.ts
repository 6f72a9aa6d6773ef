/**
 * Graceful shutdown of the real entry point: SIGTERM while a slow streamed answer is in flight lets that
 * answer finish (the `done` frame arrives), then the process exits 0. The same run checks the logs of a
 * request that carried the shared secret and a user message: neither appears in them. The budget's
 * refunds still waiting in their window (BUDGET_REFUND_WINDOW_MS) are written before the exit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { utcDay } from '../src/admission/budget-store.js';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import { readSseEvents } from '../src/sandbox/chat/sse-reader.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';

const SECRET = 'lifecycle-shared-secret-0123456789abcdef';
const GATEWAY_KEY = 'sk-lifecycle-gateway-key-0123456789';
const USER_TEXT = 'I live in Morewood Gardens and my allergy is sesame';

let service: ServiceProcess | null = null;
let gateway: FakeGateway | null = null;
afterEach(async () => {
  await service?.stop('SIGKILL');
  await gateway?.close();
  service = null;
  gateway = null;
});

describe('graceful shutdown', () => {
  it('lets an in-flight streamed answer finish after SIGTERM, then exits 0; logs hold no secret or user text', async () => {
    gateway = await startFakeGateway({
      // Five chunks 300 ms apart: the answer is still streaming when SIGTERM arrives.
      handler: () => ({ text: ['The ', 'answer ', 'arrives ', 'slowly ', 'but whole.'], chunkDelayMs: 300 }),
    });
    service = await spawnService({
      entry: 'source',
      env: {
        AGENT_SHARED_SECRET: SECRET,
        LLM_GATEWAY_API_KEY: GATEWAY_KEY,
        LLM_GATEWAY_BASE_URL: gateway.baseUrl,
      },
    });

    const res = await fetch(`${service.url}/agent/respond/stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${SECRET}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: USER_TEXT, user_id: 'lifecycle-user' }),
    });
    expect(res.status).toBe(200);

    const events: string[] = [];
    let deltas = '';
    let doneText: string | null = null;
    let stopped: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | null = null;
    const running = service;
    for await (const { type, data } of readSseEvents(res.body!)) {
      events.push(type);
      if (type === 'delta') {
        deltas += (data as { text: string }).text;
        // First text is out and the model is still streaming: stop the service now.
        stopped ??= running.stop('SIGTERM');
      }
      if (type === 'done') doneText = (data as { response_text: string }).response_text;
    }

    expect(stopped).not.toBeNull();
    expect(events.at(-1)).toBe('done');
    expect(doneText).toBe('The answer arrives slowly but whole.');
    expect(deltas).toBe(doneText);
    expect(await stopped!).toEqual({ code: 0, signal: null });
    const messages = service.logs.map((l) => l.msg);
    expect(messages.indexOf('shutting down')).toBeGreaterThan(-1);
    expect(messages.indexOf('stopped')).toBeGreaterThan(messages.indexOf('shutting down'));

    const output = service.stdout + service.stderr;
    expect(output).toContain('"path":"/agent/respond/stream"');
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain(GATEWAY_KEY);
    expect(output).not.toContain('Morewood');
    expect(output).not.toContain('sesame');
  });

  it('ends a stream the drain deadline cuts with the error event, then exits 0', async () => {
    // The model sends one chunk and then stalls: the turn cannot finish within SHUTDOWN_TIMEOUT_MS.
    gateway = await startFakeGateway({ handler: () => ({ text: ['Checking the '], hang: true }) });
    service = await spawnService({
      entry: 'source',
      env: { LLM_GATEWAY_API_KEY: GATEWAY_KEY, LLM_GATEWAY_BASE_URL: gateway.baseUrl, SHUTDOWN_TIMEOUT_MS: '2000' },
    });
    const res = await fetch(`${service.url}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: 'Is Schatz open?' }),
    });
    expect(res.status).toBe(200);
    const events: Array<{ type: string; data: unknown }> = [];
    let stopped: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | null = null;
    const running = service;
    for await (const e of readSseEvents(res.body!)) {
      // What the event says (its `id:` is the run's cursor, checked in runs-resume.test.ts).
      events.push({ type: e.type, data: e.data });
      if (e.type === 'delta') stopped ??= running.stop('SIGTERM');
    }
    expect(events.at(-1)).toEqual({ type: 'error', data: { error: 'service restarting', detail: expect.any(String) } });
    expect(events.filter((e) => e.type === 'done')).toHaveLength(0);
    expect(await stopped!).toEqual({ code: 0, signal: null });
    expect(service.logs.map((l) => l.msg)).toContain('shutdown deadline near: ending the turns still running');
  });

  it('writes the budget refunds still waiting in their window before it exits', async () => {
    gateway = await startFakeGateway({ handler: () => ({ text: 'Hunt Library is on Frew Street.', usage: { prompt_tokens: 300, completion_tokens: 25 } }) });
    const dir = mkdtempSync(join(tmpdir(), 'lifecycle-refunds-'));
    const path = join(dir, 'usage.sqlite');
    try {
      service = await spawnService({
        entry: 'source',
        env: { LLM_GATEWAY_API_KEY: GATEWAY_KEY, LLM_GATEWAY_BASE_URL: gateway.baseUrl, TOKEN_USAGE_DB: path, BUDGET_REFUND_WINDOW_MS: '10000' },
      });
      // Signed out: no memory extraction, so the turn's passes are every call charged.
      const res = await fetch(`${service.url}/agent/respond`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: 'where is the library' }) });
      expect(res.status).toBe(200);
      const used = 325 * gateway.chatRequests().length;
      const day = utcDay(new Date());
      const reader = createSqliteBudgetStore({ path });
      try {
        // The turn is over and its refund waits in the window: the day still counts its hold.
        expect(await reader.used('anonymous', day)).toBeGreaterThan(used);
        expect(await service.stop('SIGTERM')).toEqual({ code: 0, signal: null });
        expect(await reader.used('anonymous', day)).toBe(used);
      } finally {
        await reader.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
