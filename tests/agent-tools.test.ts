/**
 * Tool turns of `POST /agent/respond`: the whole pipeline against the fake gateway (real HTTP, streamed
 * chunks, split tool-call arguments) and a real MCP tool server over Streamable HTTP.
 */
import { describe, expect, it } from 'vitest';
import { MAX_TOOL_CALLS_PER_PASS, TOOL_CALLS_DEFERRED } from '../src/pipeline/stages/execute.js';
import { startTestMcpServer, type TestMcpServer, type TestTool } from './support/test-mcp-server.js';
import { startTurnHarness, type TurnHarness, type TurnHarnessOptions } from './support/turn-harness.js';
import { closeAfterEach } from './support/cleanup.js';

const EATS_TEXT = '# Open now\n\n**2 locations found**\n\n### 🟢 La Prima Espresso\n**Hours:** 8:00 AM - 4:00 PM';

const defaultTools = (): TestTool[] => [
  { name: 'eats_get_locations_open_now', run: async () => EATS_TEXT },
  { name: 'courses_fetch_course_by_id', run: async (a) => JSON.stringify({ courseID: a.course_id, name: 'Imperative Computation' }) },
  { name: 'guide_search_guide', run: async () => '[]' },
  { name: 'bus_get_next_bus', run: async () => JSON.stringify({ status: 'ok', results: [] }) },
  // A group the service does not know (one the tool server may add later).
  { name: 'parking_find_spots', run: async () => 'Lot A: 12 free' },
];

const defer = closeAfterEach();

async function harness(options: TurnHarnessOptions = {}): Promise<TurnHarness> {
  const h = await startTurnHarness({ tools: defaultTools(), ...options });
  defer(() => h.close());
  return h;
}

const toolNames = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name);

describe('POST /agent/respond: tools', () => {
  it('runs a campus tool and shows the model its result wrapped as untrusted data', async () => {
    const h = await harness();
    h.gw.enqueue({ toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }] }, { text: 'La Prima Espresso is open.' });
    const body = await (await h.post({ query: 'Where can I get coffee right now?' })).json();
    expect(body.services_used).toEqual(['eats_get_locations_open_now']);
    expect(body.action).toBe('retrieve');
    expect(body.thought.reasoning).toContain('eats_get_locations_open_now');
    expect(body.response_text).toBe('La Prima Espresso is open.');
    const second = h.gw.chatRequests()[1];
    const toolMsg = second.messages.find((m: any) => m.role === 'tool');
    expect(toolMsg.content).toMatch(/^<<<TOOL RESULT eats_get_locations_open_now[^\n]*untrusted[^\n]*>>>\n/);
    expect(toolMsg.content).toContain('La Prima Espresso');
    expect(toolMsg.content.endsWith('<<<END TOOL RESULT eats_get_locations_open_now>>>')).toBe(true);
    const assistant = second.messages.find((m: any) => m.role === 'assistant');
    expect(assistant.tool_calls[0].id).toBe(toolMsg.tool_call_id);
    expect(h.mcp.calls.map((c) => c.name)).toEqual(['eats_get_locations_open_now']);
  });

  it('runs independent tool calls of one pass concurrently', async () => {
    let mcp: TestMcpServer | null = null;
    // Each tool waits until both calls have reached the server: sequential calls would never both arrive.
    const bothArrived = () => mcp!.waitForCalls(2).then(() => 'both calls in flight');
    const h = await harness({
      tools: [
        { name: 'eats_get_locations_open_now', run: bothArrived },
        { name: 'courses_fetch_course_by_id', run: bothArrived },
      ],
    });
    mcp = h.mcp;
    h.gw.enqueue(
      { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }, { name: 'courses_fetch_course_by_id', arguments: { course_id: '15-122' } }] },
      { text: 'Done.' },
    );
    const body = await (await h.post({ query: 'Is 15-122 offered and where can I eat?' })).json();
    expect(body.services_used).toEqual(['eats_get_locations_open_now', 'courses_fetch_course_by_id']);
    const toolMsgs = h.gw.chatRequests()[1].messages.filter((m: any) => m.role === 'tool');
    expect(toolMsgs.map((m: any) => m.content.includes('both calls in flight'))).toEqual([true, true]);
  });

  it('keeps disabled groups out of the model tool list and tells the model about Settings', async () => {
    const h = await harness();
    await h.post({ query: 'Where can I get lunch near Gates?', disabled_tools: ['CMUEats', 'nonsense'] });
    const sent = h.gw.chatRequests()[0];
    const names = toolNames(sent);
    expect(names.some((n) => n.startsWith('eats_'))).toBe(false);
    expect(names).toContain('maps_show_map');
    // A narrowed turn sends neither the bus group nor a tool of an unknown group.
    expect(names.some((n) => n.startsWith('bus_') || n.startsWith('parking_'))).toBe(false);
    expect(sent.messages[0].content).toContain('CMUEats');
    expect(sent.messages[0].content).toContain('Settings');
  });

  it('binds a tool of an unknown group only when a turn binds every group, and the bus only when enabled', async () => {
    const h = await harness();
    await h.post({ query: 'Tell me about Sorrells' });
    expect(toolNames(h.gw.chatRequests()[0])).toEqual(expect.arrayContaining(['bus_get_next_bus', 'parking_find_spots', 'guide_search_guide']));
    await h.post({ query: "When's the next 61C?", disabled_tools: ['CMU Bus'] });
    const sent = h.gw.chatRequests()[1];
    expect(toolNames(sent).some((n) => n.startsWith('bus_'))).toBe(false);
    expect(sent.messages[0].content).toContain('CMU Bus');
  });

  it('drops the map tool when maps are disabled', async () => {
    const h = await harness();
    await h.post({ query: 'thanks', disabled_tools: ['cmu_maps'] });
    expect(toolNames(h.gw.chatRequests()[0])).toEqual([]);
  });

  it('gives the model neutral guidance when a tool fails, and still answers', async () => {
    const h = await harness({
      tools: [{ name: 'eats_get_locations_open_now', run: async () => ({ text: "Error calling tool 'x': upstream 500 at http://10.1.2.3:8080", isError: true }) }],
    });
    h.gw.enqueue({ toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }] }, { text: 'I could not check dining right now.' });
    const res = await h.post({ query: 'What food is open?' });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.response_text).toBe('I could not check dining right now.');
    expect(body.thought.reasoning).toContain('unavailable');
    const toolMsg = h.gw.chatRequests()[1].messages.find((m: any) => m.role === 'tool');
    expect(toolMsg.content).toContain('unavailable');
    expect(toolMsg.content).not.toContain('10.1.2.3');
    expect(toolMsg.content).not.toContain('500');
  });

  it('answers without campus tools when the tool server is dead', async () => {
    const dead = await startTestMcpServer();
    const url = dead.url;
    await dead.close();
    const h = await harness({ mcpUrl: url });
    h.gw.enqueue({ text: 'Dining data is not available right now.' });
    const res = await h.post({ query: 'What food is open?' });
    expect(res.status).toBe(200);
    expect((await res.json()).response_text).toBe('Dining data is not available right now.');
    expect(toolNames(h.gw.chatRequests()[0])).toEqual(['maps_show_map']);
  });

  it('holds the step cap against a model that always calls tools', async () => {
    const h = await harness();
    h.gw.handler = (body) =>
      body.tools ? { toolCalls: [{ name: 'eats_get_locations_open_now', arguments: {} }] } : { text: 'Final answer without tools.' };
    const res = await h.post({ query: 'What food is open?' });
    expect(res.status).toBe(200);
    expect((await res.json()).response_text).toBe('Final answer without tools.');
    const requests = h.gw.chatRequests();
    expect(requests).toHaveLength(7);
    expect(requests.slice(0, 6).every((r) => r.tools?.length > 0)).toBe(true);
    expect(requests[6].tools).toBeUndefined();
    expect(h.charges).toHaveLength(7);
  });

  it(`runs at most ${MAX_TOOL_CALLS_PER_PASS} tool calls of one pass, and answers every call of it`, async () => {
    const h = await harness();
    const many = Array.from({ length: MAX_TOOL_CALLS_PER_PASS + 4 }, () => ({ name: 'eats_get_locations_open_now', arguments: {} }));
    h.gw.enqueue({ toolCalls: many }, { text: 'Several places are open.' });
    const body = await (await h.post({ query: 'What food is open?' })).json();
    expect(body.response_text).toBe('Several places are open.');
    const toolMessages = h.gw.chatRequests()[1].messages.filter((m: any) => m.role === 'tool');
    // Every call gets its answer (the protocol requires one per tool_call_id); only the first 16 ran.
    expect(toolMessages).toHaveLength(MAX_TOOL_CALLS_PER_PASS + 4);
    expect(toolMessages.filter((m: any) => m.content === TOOL_CALLS_DEFERRED)).toHaveLength(4);
    expect(toolMessages.slice(0, MAX_TOOL_CALLS_PER_PASS).every((m: any) => m.content.includes('La Prima Espresso'))).toBe(true);
    expect(h.mcp.calls.filter((c) => c.name === 'eats_get_locations_open_now')).toHaveLength(MAX_TOOL_CALLS_PER_PASS);
  });

  it('puts a map beside the answer when the model calls maps_show_map, outside services_used', async () => {
    const h = await harness();
    h.gw.enqueue({ toolCalls: [{ name: 'maps_show_map', arguments: { destination: 'GHC' } }] }, { text: 'Gates is on the west side.' });
    const body = await (await h.post({ query: 'Where is Gates?' })).json();
    expect(body.cmu_maps).toMatchObject({ mode: 'location', target: 'GHC', url: expect.stringContaining('GHC') });
    expect(body.services_used).toEqual([]);
    expect(body.action).toBe('respond');
  });
});
