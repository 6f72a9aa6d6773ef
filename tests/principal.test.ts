/**
 * Who is asking (issue 76, security/principal.ts): the signed-out principal's name, `anonymous`, is
 * reserved. On a real listening server, every route that takes a user id refuses it, in any case and
 * wherever the id is carried (body, path, query, `X-User-Id`, `/v1`'s `user`), with a 400 envelope that
 * says why; nothing runs (no model call, no run, no memory touched). A signed-out turn still shares the
 * `anonymous` budget bucket and owns its runs as `anonymous`.
 */
import { describe, expect, it } from 'vitest';
import { isReservedUserId, principalOf, SIGNED_OUT } from '../src/security/principal.js';
import { closeAfterEach } from './support/cleanup.js';
import { listen } from './support/listen.js';
import { streamCutAfter } from './support/run-client.js';
import { startTurnHarness } from './support/turn-harness.js';

const defer = closeAfterEach();
const SPELLINGS = ['anonymous', 'Anonymous', 'ANONYMOUS', 'aNoNyMoUs'];

async function start() {
  const h = await startTurnHarness();
  const server = await listen(h.app.fetch);
  defer(() => h.close(), () => server.close());
  return { ...h, base: server.base };
}

describe('the signed-out principal', () => {
  it('is reserved in any case; a request with no user id is signed out', () => {
    for (const id of SPELLINGS) expect(isReservedUserId(id)).toBe(true);
    expect(isReservedUserId('anonymous-1')).toBe(false);
    expect(principalOf(null)).toBe(SIGNED_OUT);
    expect(principalOf(undefined)).toBe(SIGNED_OUT);
    expect(principalOf('u-1')).toBe('u-1');
  });

  it('is refused as a user id on every route that takes one, with a 400 envelope, and nothing runs', async () => {
    const s = await start();
    // A real run, owned by a real user, for the run routes.
    s.gw.enqueue({ text: 'Wean Hall is on the main campus.' });
    const run = await streamCutAfter(s.base, { query: 'Where is Wean?', user_id: 'owner-1' }, Infinity);
    const json = (body: unknown, headers: Record<string, string> = {}) => ({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const requests = (id: string): Array<[string, RequestInit]> => [
      ['/agent/respond', json({ query: 'hi', user_id: id })],
      ['/agent/respond/stream', json({ query: 'hi', user_id: id })],
      ['/agent/title', json({ query: 'When does Entropy close?', user_id: id })],
      [`/memory/${id}`, {}],
      [`/memory/${id}`, { method: 'DELETE' }],
      [`/memory/${id}/items/fact/00000000-0000-4000-8000-000000000000/history`, {}],
      [`/memory/${id}/items/fact/00000000-0000-4000-8000-000000000000`, { method: 'DELETE' }],
      [`/agent/runs/${run.runId}?user_id=${id}`, {}],
      [`/agent/runs/${run.runId}`, { headers: { 'x-user-id': id } }],
      [`/agent/runs/${run.runId}/stream?user_id=${id}`, {}],
      [`/agent/runs/${run.runId}/stream`, { headers: { 'x-user-id': id } }],
      [`/agent/runs/${run.runId}/cancel`, json({ user_id: id })],
      [`/agent/runs/${run.runId}/cancel`, json({}, { 'x-user-id': id })],
      ['/v1/chat/completions', json({ model: 'campus-agent', messages: [{ role: 'user', content: 'hi' }], user: id })],
      ['/v1/chat/completions', json({ model: 'campus-agent', messages: [{ role: 'user', content: 'hi' }] }, { 'x-user-id': id })],
    ];
    const calls = s.gw.chatRequests().length;
    for (const id of SPELLINGS) {
      for (const [path, init] of requests(id)) {
        const res = await fetch(`${s.base}${path}`, init);
        const body = await res.json();
        expect({ path, id, status: res.status }).toEqual({ path, id, status: 400 });
        // The agent routes' envelope, or OpenAI's error object on /v1; either says the name is reserved.
        const detail = path.startsWith('/v1/') ? body.error.message : body.detail;
        expect(detail).toMatch(/reserved/);
      }
    }
    expect(s.gw.chatRequests()).toHaveLength(calls);
    // The run is untouched: its owner still reads it whole.
    const state = await (await fetch(`${s.base}/agent/runs/${run.runId}?user_id=owner-1`)).json();
    expect(state.status).toBe('done');
  });

  it('a signed-out turn is answered and owns its run as the signed-out principal', async () => {
    const s = await start();
    s.gw.enqueue({ text: 'The library opens at eight.' });
    const run = await streamCutAfter(s.base, { query: 'When does the library open?' }, Infinity);
    expect(run.whole).toBe(true);
    expect((await fetch(`${s.base}/agent/runs/${run.runId}`)).status).toBe(200);
    // A user's id does not reach a signed-out run.
    expect((await fetch(`${s.base}/agent/runs/${run.runId}?user_id=someone`)).status).toBe(404);
  });
});
