/**
 * The bench's fake gateway and MCP server in a process of their own (bench/support/production-fixtures.ts
 * starts it with `isolated: true`), so under hundreds of streams their work does not share an event
 * loop with the load generator. Prints one line of JSON, `{"gateway": <base URL>, "mcp": <URL>}`, once
 * both listen; stops on SIGTERM.
 *
 * The gateway answers by the last user message, so one process serves every phase of a bench:
 * - a message with `[held]`: 300 tokens 100 ms apart (a long answer held open; HELD_TOKENS, HELD_GAP_MS);
 * - any other streamed request: 20 chunks at once (a short plain answer);
 * - a non-streamed request (memory extraction, titles): no memory operations.
 */
import { startFakeGateway } from '../../tests/support/fake-gateway.js';
import { startTestMcpServer } from '../../tests/support/test-mcp-server.js';
import { HELD_MARK } from '../support/production-fixtures.js';
const HELD_TOKENS = Number(process.env.HELD_TOKENS ?? 300);
const HELD_GAP_MS = Number(process.env.HELD_GAP_MS ?? 100);

const held = Array.from({ length: HELD_TOKENS }, (_, i) => ` w${i % 97}`);
const short = Array.from({ length: 20 }, (_, i) => `word${i} `);

const lastUser = (body: { messages?: Array<{ role: string; content: unknown }> }): string =>
  String([...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '');

const [gateway, mcp] = await Promise.all([
  // Requests are not recorded: a bench sends hundreds of thousands of chunks' worth of them.
  startFakeGateway({ record: false }),
  startTestMcpServer({ tools: [{ name: 'eats_get_locations_open_now', run: async () => 'Resnik Cafe is open.' }] }),
]);
gateway.handler = (body: { stream?: boolean; messages?: Array<{ role: string; content: unknown }> }) => {
  if (!body.stream) return { text: '{"operations": []}' };
  if (lastUser(body).includes(HELD_MARK)) return { text: held, chunkDelayMs: HELD_GAP_MS };
  return { text: short, usage: { prompt_tokens: 400, completion_tokens: 20 } };
};
process.stdout.write(`${JSON.stringify({ gateway: gateway.baseUrl, mcp: mcp.url })}\n`);
process.on('SIGTERM', () => {
  void Promise.allSettled([gateway.close(), mcp.close()]).then(() => process.exit(0));
});
