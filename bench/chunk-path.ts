/**
 * What one model chunk costs on its way in, layer by layer, against the raw socket (issue 46):
 * `taskset -c 1 npx tsx bench/chunk-path.ts`. A server in a process of its own streams a chat
 * completion's SSE chunks one per write, 1 ms apart (so each arrives as its own socket read, as a paced
 * model's do), to STREAMS readers at once; this process reads them four ways, in rounds, and reports its
 * own CPU (user + system, `process.cpuUsage`) per chunk:
 * - socket: node:http's `data` events counted, nothing else (the floor: what any reader pays);
 * - transport: the provider transport's Response body read with its web-stream reader;
 * - chunk reader: `completionChunks` over it (SSE lines, JSON);
 * - batches: `textBatches` over that, as a streamed pass reads it (window 100 ms, each chunk's text held).
 * The figure is the median over ROUNDS rounds. Prints one Markdown section.
 */
import { fork } from 'node:child_process';
import { get, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createOutboundFetch } from '../src/http/outbound-fetch.js';
import { completionChunks } from '../src/model/completion-chunks.js';
import { textBatches } from '../src/model/text-batches.js';
import { quantile } from './stats.js';

const CHUNKS = 4_000;
const STREAMS = 20;
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
    }, 1);
  });
  server.listen(0, '127.0.0.1', () => process.send!((server.address() as AddressInfo).port));
} else {
  const child = fork(fileURLToPath(import.meta.url), ['server'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(m as number)));
  const url = `http://127.0.0.1:${port}/`;
  const transport = createOutboundFetch();
  const batching = {
    windowMs: 100,
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
      '## One model chunk on its way in, layer by layer (`bench/chunk-path.ts`)',
      '',
      `Method: a server in its own process streams ${CHUNKS.toLocaleString('en-US')} chat-completion chunks, one write each 1 ms ` +
        `apart, to ${STREAMS} readers at once; this process reads them each way in turn, ${ROUNDS} rounds; its CPU (user + system) ` +
        'per chunk, median round. Each way includes the ones above it.',
      '',
      '| read as | CPU per chunk | over the socket |',
      '|---|---:|---:|',
      ...ways.map(([name]) => {
        const us = quantile(perChunk.get(name)!, 0.5);
        return `| ${name} | ${us.toFixed(1)} µs | +${(us - socket).toFixed(1)} µs |`;
      }),
      '',
    ].join('\n'),
  );
}
