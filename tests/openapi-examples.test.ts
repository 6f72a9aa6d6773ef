/**
 * Issue 63: every operation of the committed document has an example request and response, and they are
 * true. Each example (a request body's, a parameter's, a response's) validates against the schema it
 * sits beside; each operation's example request, sent as it is to a real listening service (the path's
 * fact and run ids swapped for ones that exist), is answered with a documented success whose body
 * validates against the document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExampleService, type ExampleService } from './support/example-service.js';
import { apiDocument, pointer, resolveRef, validateAt } from './support/openapi.js';
import { sseEventsOf } from './support/sse.js';

type Parameter = { in: string; name: string; required?: boolean; schema?: { examples?: unknown[] } };
type Media = { schema?: unknown; example?: unknown };

const operations = Object.entries(apiDocument.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
/** The order a person would try them in: reads, then writes, the user's whole memory last. */
const ORDER = ['get', 'post', 'delete'];
operations.sort((a, b) => ORDER.indexOf(a.method) - ORDER.indexOf(b.method) || Number(a.path === '/memory/{user_id}') - Number(b.path === '/memory/{user_id}'));

describe('the document\'s examples', () => {
  it('every operation has an example request (body and required parameters) and an example success response', () => {
    for (const { path, method, op } of operations) {
      const success = op.responses['200']!;
      for (const [media, m] of Object.entries(success.content ?? {})) expect((m as Media).example, `${method} ${path} 200 ${media}`).toBeDefined();
      if (op.requestBody) expect((resolveRef(op.requestBody.content['application/json']!.schema) as { examples?: unknown[] }).examples?.length, `${method} ${path} body`).toBeGreaterThan(0);
      for (const p of (op.parameters ?? []).map((x) => resolveRef(x as Parameter))) {
        if (p.required) expect(p.schema?.examples?.length, `${method} ${path} ${p.name}`).toBeGreaterThan(0);
      }
    }
    expect(operations.length).toBe(18);
  });

  it('each example validates against the schema beside it', async () => {
    for (const { path, method, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [media, m] of Object.entries(response.content ?? {})) {
          if ((m as Media).example === undefined) continue;
          const result = await validateAt(pointer('paths', path, method, 'responses', status, 'content', media, 'schema'), (m as Media).example);
          expect(result.valid, `${method} ${path} ${status} ${media}: ${result.output}`).toBe(true);
        }
      }
      const body = op.requestBody ? (resolveRef(op.requestBody.content['application/json']!.schema) as { examples?: unknown[] }) : null;
      for (const example of body?.examples ?? []) {
        const result = await validateAt(pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema'), example);
        expect(result.valid, `${method} ${path} body: ${result.output}`).toBe(true);
      }
    }
  });
});

describe('each example request, sent to a real service', () => {
  let service: ExampleService;

  beforeAll(async () => {
    service = await startExampleService();
  });

  afterAll(async () => {
    await service?.close();
  });

  it('answers every one with a documented success whose body validates', async () => {
    let sent = 0;
    for (const { path, method, op } of operations) {
      sent++;
      const params = (op.parameters ?? []).map((x) => resolveRef(x as Parameter));
      const value = (p: Parameter) => service.exampleValue(p.schema?.examples?.[0]);
      let url = path;
      const query = new URLSearchParams();
      for (const p of params) {
        if (p.in === 'path') url = url.replace(`{${p.name}}`, encodeURIComponent(value(p)));
        else if (p.in === 'query' && p.schema?.examples?.length) query.set(p.name, value(p));
      }
      const body = op.requestBody ? (resolveRef(op.requestBody.content['application/json']!.schema) as { examples: unknown[] }).examples[0] : undefined;
      const res = await fetch(`${service.base}${url}${query.size ? `?${query}` : ''}`, {
        method: method.toUpperCase(),
        ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      expect(res.status, `${method} ${path}`).toBe(200);
      const media = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
      const schemaAt = pointer('paths', path, method, 'responses', '200', 'content', media, 'schema');
      if (media === 'text/event-stream') {
        const frames = await sseEventsOf(await res.text(), { ids: true, parse: (d) => (d === '[DONE]' ? d : JSON.parse(d)) });
        expect(frames.length).toBeGreaterThan(0);
        for (const f of frames) {
          const result = await validateAt(schemaAt, f.type === 'message' ? { data: f.data } : { id: f.id, event: f.type, data: f.data });
          expect(result.valid, `${method} ${path}: ${result.output}`).toBe(true);
        }
      } else {
        const answer: unknown = media === 'application/json' ? await res.json() : await res.text();
        const result = await validateAt(schemaAt, answer);
        expect(result.valid, `${method} ${path}: ${result.output}`).toBe(true);
      }
    }
    expect(sent).toBe(18);
  });
});
