/**
 * Where a process's CPU went, from a V8 CPU profile (`node --cpu-prof`; the peak bench's PEAK_NODE_ARGS):
 * `npx tsx bench/tools/cpu-profile.ts <file.cpuprofile>…` prints a Markdown table of the share of samples per
 * part of the service. A sample belongs to the deepest frame on its stack that a part claims (so
 * `JSON.parse` called by the openai client counts as the model stream); garbage collection is its own
 * part; idle time is left out. Several profiles (one per replica) are added up.
 */
import { readFileSync } from 'node:fs';
import { partOfFrame } from '../support/cpu-parts.js';

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

function partOf(node: ProfileNode): string | null {
  return partOfFrame(node.callFrame.url, node.callFrame.functionName);
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
