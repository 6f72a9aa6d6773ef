/**
 * Issue 22, answer size: a gateway whose answer never ends (it ignores max_tokens) is read up to
 * MAX_ANSWER_CHARS, then the upstream call is aborted and the answer ends with the cut note, on both
 * routes. In a real service process (the compiled entry the image runs, built first when stale, with
 * the image's heap flags), three concurrent 12 MB answers each end with the note, three sent as one SSE
 * line each end at the response byte limit, and the process's peak RSS stays under 200 MB.
 */
import { spawnSync } from 'node:child_process';
import { imageNodeOptions } from './support/image-flags.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CUT_NOTE, TAIL_ROOM } from '../src/guards/answer-stream.js';
import { procStatusKb } from '../bench/support/proc.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { startFakeGateway, type FakeGateway } from './support/fake-gateway.js';
import { REPO_ROOT, spawnService, type ServiceProcess } from './support/spawn-service.js';
import { collectSseEvents } from './support/sse.js';
import { closeAfterEach } from './support/cleanup.js';

const defer = closeAfterEach();

/** An endless answer: `total` characters in `size`-character deltas, whatever max_tokens says. */
const endless = (total: number, size: number) => ({
  text: Array.from({ length: Math.ceil(total / size) }, (_, i) => `${String(i % 10).repeat(size - 1)} `),
  ignoreMaxTokens: true,
});

describe('the answer cap', () => {
  let h: AdmissionApp;

  it('stops reading at MAX_ANSWER_CHARS on the JSON route: the answer ends with the note, the upstream call is aborted', async () => {
    h = await startAdmissionApp({ env: { MAX_ANSWER_CHARS: '3000' } });
    defer(() => h.close());
    h.gw.enqueue({ ...endless(100_000, 50), hang: true });
    const res = await h.post('/agent/respond', { query: 'tell me everything' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.response_text.endsWith(ANSWER_CUT_NOTE.trim())).toBe(true);
    // The cap holds the whole answer, the note included (issue 61); the text stops TAIL_ROOM short of it.
    expect(body.response_text.length).toBeLessThanOrEqual(3_000);
    expect(body.response_text.length).toBeGreaterThan(3_000 - TAIL_ROOM - 100);
    await h.gw.waitForAbort();
  });

  it('does the same on the stream route: deltas end with the note, then done', async () => {
    h = await startAdmissionApp({ env: { MAX_ANSWER_CHARS: '3000' } });
    defer(() => h.close());
    h.gw.enqueue({ ...endless(100_000, 50), hang: true });
    const base = await h.listen();
    const res = await fetch(`${base}/agent/respond/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'tell me everything' }),
    });
    const events = await collectSseEvents(res.body!);
    const text = events.filter((e) => e.type === 'delta').map((e) => e.data.text).join('');
    expect(text.endsWith(ANSWER_CUT_NOTE.trim())).toBe(true);
    expect(events.at(-1)!.type).toBe('done');
    expect(events.at(-1)!.data.response_text).toBe(text);
    await h.gw.waitForAbort();
  });

  it('ends an answer cut by max_tokens with the same note', async () => {
    h = await startAdmissionApp({ env: { MAX_OUTPUT_TOKENS: '100' } });
    defer(() => h.close());
    h.gw.enqueue({ text: 'word '.repeat(1_000).match(/.{1,40}/g)! });
    const body = await (await h.post('/agent/respond', { query: 'tell me everything' })).json();
    expect(h.gw.chatRequests()[0].max_tokens).toBe(100);
    expect(body.response_text.endsWith(ANSWER_CUT_NOTE.trim())).toBe(true);
    expect(body.response_text.length).toBeLessThanOrEqual(400 + ANSWER_CUT_NOTE.length);
  });
});

/** The compiled service with the image's heap flags, talking to `gw`. */
const startCompiled = (gw: FakeGateway) =>
  spawnService({
    entry: 'dist',
    env: { LLM_GATEWAY_API_KEY: 'sk-test-cap-0123456789', LLM_GATEWAY_BASE_URL: gw.baseUrl },
    nodeArgs: imageNodeOptions(),
  });

/** Three concurrent streamed turns against the service; their last events, and the process's peak RSS. */
async function threeStreams(service: ServiceProcess) {
  const ends = await Promise.all(
    [0, 1, 2].map(async (i) => {
      const res = await fetch(`${service.url}/agent/respond/stream`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: `hello there ${i}` }),
      });
      return (await collectSseEvents(res.body!)).at(-1)!;
    }),
  );
  return { ends, peakMb: procStatusKb(service.child.pid!, 'VmHWM') / 1024 };
}

describe('in the compiled service process', () => {
  beforeAll(() => {
    // `node scripts/build.mjs` compiles src/ only when dist/ is missing or older (as `npm start` does).
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(built.status, built.stderr).toBe(0);
  }, 120_000);

  let gw: FakeGateway;
  let service: ServiceProcess;

  it('each stream ends capped, and peak RSS stays ≤ 200 MB', async () => {
    gw = await startFakeGateway();
    defer(() => gw.close());
    gw.handler = () => endless(12_000_000, 4_000);
    service = await startCompiled(gw);
    defer(() => service.stop());
    const { ends, peakMb } = await threeStreams(service);
    for (const end of ends) {
      expect(end.type).toBe('done');
      const text = end.data.response_text as string;
      expect(text.endsWith(ANSWER_CUT_NOTE.trim())).toBe(true);
      expect(text.length).toBeLessThanOrEqual(20_000);
    }
    expect(peakMb).toBeLessThanOrEqual(200);
  });

  it('three 12 MB answers in one SSE line each: each stream ends at the response byte limit, peak RSS ≤ 200 MB', async () => {
    gw = await startFakeGateway();
    defer(() => gw.close());
    gw.handler = () => ({ text: ['x'.repeat(12_000_000)], ignoreMaxTokens: true });
    service = await startCompiled(gw);
    defer(() => service.stop());
    const { ends: last, peakMb } = await threeStreams(service);
    const ends = last.map((e) => e.type);
    // Nothing of the line was parsed before the limit: the turn ends with the gateway's error event.
    expect(ends).toEqual(['error', 'error', 'error']);
    expect(peakMb).toBeLessThanOrEqual(200);
  });
});
