/**
 * SSE in tests, read with the one client-side reader the front end's behaviour is modelled on
 * (`readSseEvents`, src/sandbox/chat/sse-reader.ts), so no test carries its own frame parser: a whole body
 * into events, or a body already read as text (tests that also check the raw wire bytes). Tests that
 * stop mid-stream iterate `readSseEvents` themselves.
 */
import { readSseEvents, type ReadSseOptions } from '../../src/sandbox/chat/sse-reader.js';

/** An event as tests read it: `data` left loose so assertions can reach into payloads; `id` when asked for. */
export interface SseEvent {
  type: string;
  data: any;
  id?: string;
}

/** `ids`: keep each frame's `id:` (a run's cursor); left out by default, so assertions on events stay about what they say. */
export type CollectOptions = ReadSseOptions & { ids?: boolean };

/** Every event of a stream body, in order; comment frames (`: keep-alive`) are skipped. */
export async function collectSseEvents(body: ReadableStream<Uint8Array>, options: CollectOptions = {}): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const e of readSseEvents(body, options)) events.push(options.ids ? e : { type: e.type, data: e.data });
  return events;
}

/** Every event of a body already read as text. */
export function sseEventsOf(raw: string, options: CollectOptions = {}): Promise<SseEvent[]> {
  return collectSseEvents(new Response(raw).body!, options);
}
