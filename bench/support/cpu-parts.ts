/**
 * The parts of the service a CPU sample is counted to, by the code of a stack frame (its script URL and
 * function name): shared by the V8 profile reader (bench/tools/cpu-profile.ts) and the perf reader
 * (bench/tools/perf-phases.ts), so both tables use the same parts.
 */
/** Parts of the service, by the code a frame belongs to; first match wins. */
export const PARTS: Array<[string, (url: string, fn: string) => boolean]> = [
  ['garbage collection', (_, fn) => fn === '(garbage collector)'],
  ['model stream (openai client, execute stage)', (url) => /node_modules\/openai\/|node_modules\/eventsource-parser\/|\/src\/pipeline\/stages\/execute|\/src\/model\//.test(url)],
  ['resumable runs (run log, pump, followers)', (url) => /\/src\/runs\//.test(url)],
  ['per-delta checks (verify: reasoning, leak scanner, grounding, claims)', (url) => /\/src\/guards\/|\/src\/security\/|\/src\/pipeline\/stages\/verify/.test(url)],
  ['SSE framing and deliver (Hono\'s streaming helper included)', (url) => /\/src\/sse\/|\/src\/pipeline\/stages\/deliver|\/src\/routes\/openai|\/src\/pipeline\/drain-turn|node_modules\/hono\/dist\/(helper\/streaming|utils\/stream)/.test(url)],
  ['campus tool calls (MCP client)', (url) => /@modelcontextprotocol\/|\/src\/tools\//.test(url)],
  ['budget and admission', (url) => /\/src\/admission\//.test(url)],
  ['memory recall and extraction', (url) => /\/src\/memory\//.test(url)],
  ['job queue', (url) => /node_modules\/pg-boss\/|node_modules\/pg\/|\/src\/db\/postgres-job-queue|\/src\/lifecycle\/job-queue/.test(url)],
  ['Postgres driver and Drizzle', (url) => /node_modules\/postgres\/|node_modules\/drizzle-orm\/|\/src\/db\//.test(url)],
  ['prompt and planning', (url) => /\/src\/prompt\/|\/src\/pipeline\/(prepare|stages\/plan)|\/src\/campus\//.test(url)],
  ['logging and telemetry', (url) => /\/src\/logger|\/src\/telemetry\//.test(url)],
  ['turn and pipeline (other)', (url) => /\/src\/pipeline\//.test(url)],
  ['HTTP (Hono, node-server, routes, validation)', (url) => /node_modules\/hono\/|node_modules\/@hono\/|node_modules\/hono-openapi|node_modules\/zod\/|\/src\/http\/|\/src\/routes\/|\/src\/request\/|\/src\/app|\/src\/node-http-server/.test(url)],
  ['Node: web streams', (url) => /node:internal\/webstreams/.test(url)],
  ['Node: net, http and streams', (url) => /node:(internal\/)?(net|http|_http|stream|streams|internal\/streams)/.test(url)],
  ['Node: undici (fetch)', (url) => /node:internal\/deps\/undici|undici/.test(url)],
];

/** The part that claims a frame of `url` and `fn`, or null; first match wins. */
export function partOfFrame(url: string, fn: string): string | null {
  return PARTS.find(([, claims]) => claims(url, fn))?.[0] ?? null;
}
