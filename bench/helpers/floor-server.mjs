// The floor of the streamed-turn bench (bench/streams.bench.ts): the same HTTP stack as the service
// (Hono on @hono/node-server, `streamSSE`) and the same gateway client (`openai`), with no pipeline:
// POST /floor streams the gateway's answer for the body's `query`, each chunk re-framed as a `delta`
// event, then a `done` event with the text. Plain JavaScript, so nothing is transpiled at run time.
// Prints `listening <port>` once it accepts connections.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.GATEWAY_URL, apiKey: 'sk-floor', maxRetries: 0 });
const app = new Hono().post('/floor', async (c) => {
  const { query } = await c.req.json();
  return streamSSE(c, async (sse) => {
    const stream = await client.chat.completions.create({
      model: 'openai/gpt-4o-mini',
      messages: [{ role: 'user', content: query }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta.content;
      if (!delta) continue;
      text += delta;
      await sse.writeSSE({ event: 'delta', data: JSON.stringify({ text: delta }) });
    }
    await sse.writeSSE({ event: 'done', data: JSON.stringify({ response_text: text }) });
  });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening ${info.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
