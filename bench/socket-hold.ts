/**
 * Reading the model's socket once per batch window, a design tried for issue 46 and not taken
 * (BENCHMARKS.md, "Issue 46, fifth session"). A paced SSE server (a child process: SOCKET_HOLD_TOKENS
 * chunks SOCKET_HOLD_GAP_MS apart, default 200 and 25) and SOCKET_HOLD_STREAMS (100) concurrent
 * node:http readers in this process, read two ways in alternating rounds: as node:http gives them (a
 * socket read per chunk), and holding the socket for 100 ms after each read (the window ANSWER_BATCH_MS
 * already holds the text for). Reports this process's CPU per chunk and its socket reads.
 *
 * `pause()` does not stop the reads: the response resumes its socket whenever it wants data, and a paused
 * socket still reads up to its high-water mark. Only the handle's `readStop()`, which is internal, holds
 * the reads; that is why the design was not taken. `taskset -c 0 npx tsx bench/socket-hold.ts` (the server
 * pins itself to CPU 1).
 */
import { execFileSync, fork } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const TOKENS = Number(process.env.SOCKET_HOLD_TOKENS ?? 200);
const GAP_MS = Number(process.env.SOCKET_HOLD_GAP_MS ?? 25);
const STREAMS = Number(process.env.SOCKET_HOLD_STREAMS ?? 100);
const WINDOW_MS = 100;
const ROUNDS = 3;

if (process.argv[2] === 'server') {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const timer = setInterval(() => {
      res.write(`data: {"id":"c","choices":[{"index":0,"delta":{"content":" token ${n}"}}]}\n\n`);
      if (++n >= TOKENS) {
        clearInterval(timer);
        res.end('data: [DONE]\n\n');
      }
    }, GAP_MS);
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
} else {
  const child = fork(new URL(import.meta.url).pathname, ['server'], { execArgv: ['--import', 'tsx'] });
  const [port] = (await once(child, 'message')) as [number];
  try {
    execFileSync('taskset', ['-pc', '1', String(child.pid)], { stdio: 'ignore' });
  } catch {
    // No taskset: the figures are still a same-run comparison.
  }

  type HandleLike = { reading: boolean; readStop(): number; readStart(): number };
  const handleOf = (socket: Socket) => (socket as unknown as { _handle: HandleLike | null })._handle;

  async function round(hold: boolean): Promise<{ cpuMs: number; chunks: number; reads: number }> {
    const agent = new http.Agent({ keepAlive: false });
    let chunks = 0;
    let reads = 0;
    const one = () =>
      new Promise<void>((resolve, reject) => {
        const req = http.request({ host: '127.0.0.1', port, agent }, (res) => {
          const socket = res.socket;
          socket.on('data', () => reads++);
          let held = false;
          res.on('data', () => {
            chunks++;
            if (!hold || held) return;
            held = true;
            // After this read's chunks are parsed, stop reading until the window ends.
            setImmediate(() => {
              const h = handleOf(socket);
              if (h?.reading) {
                h.reading = false;
                h.readStop();
              }
              setTimeout(() => {
                held = false;
                const again = handleOf(socket);
                if (again && !again.reading) {
                  again.reading = true;
                  again.readStart();
                }
              }, WINDOW_MS);
            });
          });
          res.on('end', resolve);
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end();
      });
    const before = process.cpuUsage();
    await Promise.all(Array.from({ length: STREAMS }, one));
    const used = process.cpuUsage(before);
    agent.destroy();
    return { cpuMs: (used.user + used.system) / 1000, chunks, reads };
  }

  const results: Record<'as given' | 'held', number[]> = { 'as given': [], held: [] };
  const reads: Record<'as given' | 'held', number> = { 'as given': 0, held: 0 };
  for (let i = 0; i < ROUNDS; i++) {
    for (const mode of ['as given', 'held'] as const) {
      const r = await round(mode === 'held');
      results[mode].push((r.cpuMs * 1000) / r.chunks);
      reads[mode] = r.reads;
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${STREAMS} streams of ${TOKENS} chunks ${GAP_MS} ms apart, ${ROUNDS} alternating rounds, medians:\n`);
  console.log('| read | CPU per chunk | socket reads per round |\n|---|---:|---:|');
  for (const mode of ['as given', 'held'] as const) console.log(`| ${mode} | ${median(results[mode]).toFixed(1)} µs | ${reads[mode]} |`);
  console.log(`\nheld ÷ as given: ${(median(results.held) / median(results['as given'])).toFixed(2)}×`);
  child.kill();
}
