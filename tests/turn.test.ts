/**
 * The started turn as an object that owns what it holds (src/pipeline/turn.ts): its in-flight slot,
 * its budget reservation and its outcome, released once however it ends: answered, abandoned before
 * its events were read, refused at the door, or cut by its client mid-answer.
 */
import { ModelAllowlist } from '../src/model/model-allowlist.js';
import { afterEach, describe, expect, it } from 'vitest';
import { unmeteredBudget, type Refusal, type TurnBudget } from '../src/admission/admission.js';
import { noCampusTools, type CampusTools } from '../src/tools/campus-tools.js';
import { TooManyRequestsError } from '../src/http/errors.js';
import { createTurnStarter, type StartedTurn } from '../src/pipeline/turn.js';
import { toTurnRequest } from '../src/request/chat-request.js';
import { fakeAdmission } from './support/admission-fakes.js';
import { createTestDeps, testConfig } from './support/deps.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './support/fake-gateway.js';

let gw: FakeGateway | null = null;
afterEach(async () => {
  await gw?.close();
  gw = null;
});

/** A budget that counts its releases. */
function countingBudget(): TurnBudget & { releases: number } {
  const budget = {
    ...unmeteredBudget,
    releases: 0,
    release: async () => {
      budget.releases++;
    },
  };
  return budget;
}

async function setUp(admit?: () => Promise<never>, env: Record<string, string> = {}) {
  const fake = await startFakeGateway();
  gw = fake;
  const budget = countingBudget();
  const deps = await createTestDeps({
    config: testConfig(env),
    gateway: gatewayClient(gw),
    admission: fakeAdmission({ admit: admit ?? (async () => ({ refusal: Promise.resolve(null), budget })) }),
  });
  const start = createTurnStarter(deps);
  const request = toTurnRequest({ query: 'hello there', user_id: 'u-1' }, new ModelAllowlist({ allowedModels: '*', defaultModel: deps.config.gateway.defaultModel }));
  const origin = () => ({ signal: new AbortController().signal, requestId: 'req-1' });
  return { gw: fake, deps, budget, start: () => start(request, origin()), startWith: (signal: AbortSignal) => start(request, { signal, requestId: 'req-2' }) };
}

async function drain(turn: StartedTurn): Promise<string[]> {
  const types: string[] = [];
  for await (const e of turn.events) types.push(e.type);
  return types;
}

describe('a started turn', () => {
  it('holds its slot until its events end, and settles its outcome before done reaches the reader', async () => {
    const { gw, deps, budget, start } = await setUp();
    gw.enqueue({ text: ['Hel', 'lo'], usage: { prompt_tokens: 120, completion_tokens: 7 } });
    const turn = await start();
    expect(deps.turns.size).toBe(1);
    let settled = false;
    void turn.outcome.then(() => (settled = true));
    let atDone: unknown = null;
    for await (const e of turn.events) {
      if (e.type !== 'done') {
        expect(settled).toBe(false);
        continue;
      }
      // As an encoder sees it on `done`: already settled (its callback ran before the reader resumed),
      // the slot still held.
      expect(settled).toBe(true);
      atDone = await turn.outcome;
      expect(deps.turns.size).toBe(1);
    }
    expect(atDone).toEqual({ promptTokens: 120, completionTokens: 7, cut: false, label: 'completed' });
    expect(deps.turns.size).toBe(0);
    expect(budget.releases).toBe(1);
  });

  it('releases everything when aborted before its events were read (a generator never started runs no finally)', async () => {
    const { gw, deps, budget, start } = await setUp();
    const turn = await start();
    expect(deps.turns.size).toBe(1);
    turn.abort();
    await expect(turn.outcome).resolves.toMatchObject({ label: 'aborted', promptTokens: 0 });
    expect(deps.turns.size).toBe(0);
    expect(budget.releases).toBe(1);
    // Read afterwards, it ends at once with nothing, and releases nothing twice.
    expect(await drain(turn)).toEqual([]);
    expect(budget.releases).toBe(1);
    expect(gw.chatRequests()).toHaveLength(0);
  });

  it('ends at its deadline even when its events are never read, and gives everything back', async () => {
    const { gw, deps, budget, start } = await setUp(undefined, { TURN_TIMEOUT_MS: '50' });
    const turn = await start();
    expect(deps.turns.size).toBe(1);
    await expect(turn.outcome).resolves.toMatchObject({ label: 'aborted' });
    expect(deps.turns.size).toBe(0);
    expect(budget.releases).toBe(1);
    expect(gw.chatRequests()).toHaveLength(0);
  });

  it('gives its slot back when admission refuses it at the door', async () => {
    const { deps, start } = await setUp(async () => Promise.reject(new TooManyRequestsError('no tokens left today', 60)));
    await expect(start()).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(deps.turns.size).toBe(0);
  });

  it('ends when its client goes away mid-answer: the upstream call is aborted, the slot and reservation released once', async () => {
    const { gw, deps, budget, startWith } = await setUp();
    gw.enqueue({ text: ['one ', 'two '], hang: true });
    const client = new AbortController();
    const turn = await startWith(client.signal);
    const seen: string[] = [];
    for await (const e of turn.events) {
      seen.push(e.type);
      if (e.type === 'delta') client.abort();
    }
    await gw.waitForAbort();
    expect(seen).toContain('delta');
    expect(seen).not.toContain('done');
    await expect(turn.outcome).resolves.toMatchObject({ label: 'aborted' });
    expect(deps.turns.size).toBe(0);
    expect(budget.releases).toBe(1);
  });
});

describe('moderation beside preparation (issue 46)', () => {
  const VERDICT_MS = 300;
  const LIST_MS = 300;

  /** A turn about a place (its preparation lists the campus tools, which takes LIST_MS) whose verdict takes VERDICT_MS. */
  async function placeTurn(verdict: Refusal | null) {
    const fake = await startFakeGateway();
    gw = fake;
    const lists = { count: 0 };
    const slowTools: CampusTools = {
      ...noCampusTools,
      list: () => {
        lists.count++;
        return new Promise((resolve) => setTimeout(() => resolve([]), LIST_MS));
      },
    };
    const deps = await createTestDeps({
      config: testConfig(),
      gateway: gatewayClient(fake),
      campusTools: slowTools,
      admission: fakeAdmission({
        admit: async () => ({ refusal: new Promise((resolve) => setTimeout(() => resolve(verdict), VERDICT_MS)), budget: unmeteredBudget }),
      }),
    });
    const request = toTurnRequest({ query: 'Where is the Gates Hillman Center?', user_id: 'u-2' }, new ModelAllowlist({ allowedModels: '*', defaultModel: deps.config.gateway.defaultModel }));
    const started = Date.now();
    const turn = await createTurnStarter(deps)(request, { signal: new AbortController().signal, requestId: 'req-m' });
    return { fake, turn, started, lists };
  }

  it('prepares while moderation decides, and calls the model only after the verdict', async () => {
    const { fake, turn, started, lists } = await placeTurn(null);
    fake.enqueue({ text: 'Gates is on Forbes Avenue.' });
    const types = await drain(turn);
    expect(types.at(-1)).toBe('done');
    expect(lists.count).toBe(1);
    const modelAt = fake.requests.find((r) => r.path === '/v1/chat/completions')!.at - started;
    // One wait, not the two in a row: the model was called once both were over, not after their sum.
    expect(modelAt).toBeGreaterThanOrEqual(VERDICT_MS - 5);
    expect(modelAt).toBeLessThan(VERDICT_MS + LIST_MS - 100);
  });

  it('answers a message stopped by moderation with its refusal and no model call, its preparation discarded', async () => {
    const { fake, turn } = await placeTurn({ text: 'Sorry, I cannot help with that. Ask me about campus.', reason: 'moderation' });
    const events: string[] = [];
    let text = '';
    for await (const e of turn.events) {
      events.push(e.type);
      if (e.type === 'done') text = e.response.response_text;
    }
    expect(text).toBe('Sorry, I cannot help with that. Ask me about campus.');
    expect(events).not.toContain('map');
    expect(fake.chatRequests()).toHaveLength(0);
    expect(await turn.outcome).toMatchObject({ label: 'refused' });
  });
});
