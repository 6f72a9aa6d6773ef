/**
 * What one model chunk costs on its way in, layer by layer, against the raw socket (issue 46):
 * `taskset -c 1 npx tsx bench/tools/chunk-path.ts`. A server in a process of its own streams a chat
 * completion's SSE chunks one per write, 1 ms apart (so each arrives as its own socket read, as a paced
 * model's do), to STREAMS readers at once; this process reads them four ways, in rounds, and reports its
 * own CPU (user + system, `process.cpuUsage`) per chunk:
 * - socket: node:http's `data` events counted, nothing else (the floor: what any reader pays);
 * - transport: the provider transport's Response body read with its web-stream reader;
 * - chunk reader: `completionChunks` over it (SSE lines, JSON);
 * - batches: `textBatches` over that, as a streamed pass reads it (window 100 ms, each chunk's text held);
 * - socket held per window: a design tried and not taken (docs/perf-log/2026-11-26-issue-46-cuts.md, "Issue 46, fifth session"):
 *   node:http's `data` events, with the socket's reads stopped for 100 ms after each read, the window the
 *   batches already hold text for. `pause()` does not stop the reads (the response resumes its socket
 *   whenever it wants data, and a paused socket still reads up to its high-water mark); only the
 *   handle's internal `readStop()` does, which is why the service does not do this.
 * The figure is the median over ROUNDS rounds. CHUNK_PATH_CHUNKS, CHUNK_PATH_GAP_MS and CHUNK_PATH_STREAMS
 * (4,000, 1 and 20) pace the server like a model: at 25 ms apart each window holds a few chunks.
 * Prints one Markdown section.
 */
import { fork } from 'node:child_process';
import { get, createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createOutboundFetch } from '../../src/transport/outbound-fetch.js';
import { completionChunks } from '../../src/model/completion-chunks.js';
import { textBatches } from '../../src/model/text-batches.js';
import { quantile } from '../support/stats.js';

const CHUNKS = Number(process.env.CHUNK_PATH_CHUNKS ?? 4_000);
const GAP_MS = Number(process.env.CHUNK_PATH_GAP_MS ?? 1);
const STREAMS = Number(process.env.CHUNK_PATH_STREAMS ?? 20);
const WINDOW_MS = 100;
const ROUNDS = 5;

const chunk = (i: number) =>
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"openai/gpt-4o-mini",` +
  `"choices":[{"index":0,"delta":{"content":" word${i}"},"finish_reason":null}]}\n\n`;

if (process.argv[2] === 'server') {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const timer = setInterval(() => {
      res.write(chunk(i++));
      if (i < CHUNKS) return;
      clearInterval(timer);
      res.end('data: [DONE]\n\n');
    }, GAP_MS);
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const url = `http://127.0.0.1:${port}/`;
  const transport = createOutboundFetch();
  type SocketHandle = { reading: boolean; readStop(): number; readStart(): number };
  const handleOf = (socket: Socket) => (socket as unknown as { _handle: SocketHandle | null })._handle;
  const batching = {
    windowMs: WINDOW_MS,
    now: () => performance.now(),
    setTimer: (fn: () => void, ms: number) => setTimeout(fn, ms),
    clearTimer: (handle: unknown) => clearTimeout(handle as NodeJS.Timeout),
  };
  const ways: Array<[string, () => Promise<number>]> = [
    [
      'socket (`data` events only)',
      () =>
        new Promise((resolve, reject) => {
          get(url, (res) => {
            let n = 0;
            res.on('data', () => n++);
            res.on('end', () => resolve(n));
          }).once('error', reject);
        }),
    ],
    [
      'transport (`outbound-fetch.ts`, web-stream reader)',
      async () => {
        const reader = (await transport(url)).body!.getReader();
        let n = 0;
        while (!(await reader.read()).done) n++;
        return n;
      },
    ],
    [
      'chunk reader (`completion-chunks.ts`)',
      async () => {
        let n = 0;
        for await (const _ of completionChunks(await transport(url))) n++;
        return n;
      },
    ],
    [
      'batches (`text-batches.ts`, 100 ms window)',
      async () => {
        const batches = textBatches(completionChunks(await transport(url)), batching);
        let n = 0;
        for (let step = await batches.next(); !step.done; step = await batches.next()) {
          if (typeof step.value === 'string') continue;
          const piece = step.value.choices[0]?.delta?.content;
          if (piece) batches.hold(piece);
          n++;
        }
        return n;
      },
    ],
    [
      'socket held per window (the handle\'s internal `readStop()`; not used by the service)',
      () =>
        new Promise((resolve, reject) => {
          get(url, (res) => {
            let n = 0;
            let held = false;
            const socket = res.socket;
            res.on('data', () => {
              n++;
              if (held) return;
              held = true;
              // After this read's chunks are parsed, no reads until the window ends.
              setImmediate(() => {
                const handle = handleOf(socket);
                if (handle?.reading) {
                  handle.reading = false;
                  handle.readStop();
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
            res.on('end', () => resolve(n));
          }).once('error', reject);
        }),
    ],
  ];
  const perChunk = new Map<string, number[]>(ways.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, read] of ways) {
      const before = process.cpuUsage();
      await Promise.all(Array.from({ length: STREAMS }, read));
      const used = process.cpuUsage(before);
      perChunk.get(name)!.push((used.user + used.system) / (CHUNKS * STREAMS));
    }
  }
  child.kill();
  const socket = quantile(perChunk.get(ways[0]![0])!, 0.5);
  process.stdout.write(
    [
      '## One model chunk on its way in, layer by layer (`bench/tools/chunk-path.ts`)',
      '',
      `Method: a server in its own process streams ${CHUNKS.toLocaleString('en-US')} chat-completion chunks, one write each ${GAP_MS} ms ` +
        `apart, to ${STREAMS} readers at once; this process reads them each way in turn, ${ROUNDS} rounds; its CPU (user + system) ` +
        'per chunk, median round. Each way down to the batches includes the ones above it; the last is the socket alone.',
      '',
      '| read as | CPU per chunk | over the socket |',
      '|---|---:|---:|',
      ...ways.map(([name]) => {
        const us = quantile(perChunk.get(name)!, 0.5);
        const over = us - socket;
        return `| ${name} | ${us.toFixed(1)} µs | ${over < 0 ? '−' : '+'}${Math.abs(over).toFixed(1)} µs |`;
      }),
      '',
    ].join('\n'),
  );
}
