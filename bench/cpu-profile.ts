/**
 * Where a process's CPU went, from a V8 CPU profile (`node --cpu-prof`; the peak bench's PEAK_NODE_ARGS):
 * `npx tsx bench/cpu-profile.ts <file.cpuprofile>…` prints a Markdown table of the share of samples per
 * part of the service. A sample belongs to the deepest frame on its stack that a part claims (so
 * `JSON.parse` called by the openai client counts as the model stream); garbage collection is its own
 * part; idle time is left out. Several profiles (one per replica) are added up.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

/** Parts of the service, by the code a frame belongs to; first match wins. */
const PARTS: Array<[string, (url: string, fn: string) => boolean]> = [
  ['garbage collection', (_, fn) => fn === '(garbage collector)'],
  ['model stream (openai client, execute stage)', (url) => /node_modules\/openai\/|\/src\/pipeline\/stages\/execute|\/src\/model\//.test(url)],
  ['per-delta checks (verify: reasoning, leak scanner, grounding, claims)', (url) => /\/src\/guards\/|\/src\/security\/|\/src\/pipeline\/stages\/verify/.test(url)],
  ['SSE framing and deliver', (url) => /\/src\/sse\/|\/src\/pipeline\/stages\/deliver|\/src\/routes\/openai|\/src\/pipeline\/drain-turn/.test(url)],
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

function partOf(node: ProfileNode): string | null {
  const { url, functionName } = node.callFrame;
  return PARTS.find(([, claims]) => claims(url, functionName))?.[0] ?? null;
}

const totals = new Map<string, number>();
let all = 0;
for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const effective = new Map<number, string>();
  // Top-down: a node's part is its own, else its caller's (the deepest claimed frame on the stack).
  const visit = (node: ProfileNode, inherited: string) => {
    const part = partOf(node) ?? inherited;
    effective.set(node.id, part);
    for (const child of node.children ?? []) visit(byId.get(child)!, part);
  };
  visit(profile.nodes[0]!, 'Node and V8 (other)');
  for (const id of profile.samples) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    const part = node.callFrame.functionName === '(program)' ? 'Node and V8 (other)' : effective.get(id)!;
    totals.set(part, (totals.get(part) ?? 0) + 1);
    all++;
  }
}
const rows = [...totals].sort((a, b) => b[1] - a[1]);
process.stdout.write(['| part | share of busy CPU samples |', '|---|---:|', ...rows.map(([part, n]) => `| ${part} | ${((n / all) * 100).toFixed(1)}% |`), ''].join('\n') + '\n');
process.stdout.write(`${all} busy samples over ${process.argv.length - 2} profile(s).\n`);
