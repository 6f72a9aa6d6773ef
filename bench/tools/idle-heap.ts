/**
 * What the service holds when idle (issue 46, the held streams' RSS gap): the production entry point with
 * the image's heap flags, Postgres and the fakes in processes of their own, one signed-in warm-up turn,
 * then a heap snapshot (`--heapsnapshot-signal`), summed by the snapshot's node type and by constructor
 * or string, largest first. RSS and V8's heap statistics beside it. `npx tsx bench/tools/idle-heap.ts`.
 */
import { readdirSync, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { procStatusKb } from '../support/proc.js';
import { startIsolatedFixtures, warmUpTurn } from '../support/production-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'idle-heap-'));
const fixtures = await startIsolatedFixtures('idle-heap');
const service = await fixtures.start(['--max-old-space-size=128', '--max-semi-space-size=8', '--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`]);
try {
  await warmUpTurn(service.url);
  await sleep(3_000);
  const pid = service.child.pid!;
  const rssKb = procStatusKb(pid, 'VmRSS');
  process.kill(pid, 'SIGUSR2');
  let file = '';
  for (let i = 0; i < 100 && !file; i++) {
    await sleep(200);
    file = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot')) ?? '';
  }
  await sleep(1_000);
  const snap = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const byType = new Map<string, number>();
  const byName = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + iType!]!]!;
    const size = snap.nodes[i + iSize!]!;
    const name = snap.strings[snap.nodes[i + iName!]!]!.slice(0, 60).replace(/\s+/g, ' ');
    total += size;
    byType.set(type, (byType.get(type) ?? 0) + size);
    const key = `${type}: ${name}`;
    byName.set(key, (byName.get(key) ?? 0) + size);
  }
  const mb = (b: number) => (b / 1e6).toFixed(2);
  console.log(`RSS ${mb(rssKb * 1024)} MB; snapshot self sizes ${mb(total)} MB`);
  for (const [t, s] of [...byType].sort((a, b) => b[1] - a[1])) console.log(`type ${t}: ${mb(s)} MB`);
  for (const [n, s] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`${mb(s)} MB  ${n}`);
} finally {
  await service.stop('SIGTERM');
  await fixtures.close();
  rmSync(dir, { recursive: true, force: true });
}
