/**
 * Issue 63: responses conform to the document. A few hundred requests across every operation, valid and
 * invalid (each operation's example, then seeded mutations of its parameters, body, content type and
 * token), sent to a real listening service with a shared secret; every response's status is one the
 * operation documents (never the `default` 500), and its body (each frame of a stream) is valid against
 * the documented schema, checked with ajv (JSON Schema 2020-12, formats on) against the committed
 * document.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExampleService, type ExampleService } from './support/example-service.js';
import { apiDocument, pointer, resolveRef } from './support/openapi.js';
import { sseEventsOf } from './support/sse.js';

const SECRET = 'conformance-test-secret-0123456789';
const MUTATIONS_PER_OPERATION = 16;

type Parameter = { in: string; name: string; required?: boolean; schema?: { examples?: unknown[] } };

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
// ajv-formats is CommonJS: its plugin is the module's `default` under Node's ESM loader.
formats.default(ajv);
ajv.addSchema({ ...apiDocument, $id: 'openapi.json' });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();
function validatorAt(path: string) {
  let v = validators.get(path);
  if (!v) validators.set(path, (v = ajv.compile({ $ref: `openapi.json#/${path}` })));
  return v;
}

/** Seeded pseudo-random numbers, so a failing request can be sent again as it was. */
function random(seed: number) {
  let s = seed;
  return () => ((s = (s * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}

/** Values a parameter or a body field may be given instead of a good one. */
const ODD_VALUES: unknown[] = ['', ' ', 'x'.repeat(300), '-1', '1.5', '99999999999', 'a b', '../etc', '%00', '__proto__', 0, -1, null, true, [], {}];
const ODD_BODIES: Array<string | undefined> = ['', '{', '[]', 'null', '"text"', '{"query": 5}', '{"query": ""}', `{"query": "${'y'.repeat(9_000)}"}`, '{"user_id": "no spaces allowed"}', '{"messages": "no"}', '{"model": "??"}', undefined];

describe('every response conforms to the document (ajv, JSON Schema 2020-12)', () => {
  let service: ExampleService;

  beforeAll(async () => {
    service = await startExampleService({ MAX_TURNS_IN_FLIGHT: '50' }, SECRET);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('a few hundred requests, valid and invalid, across every operation', async () => {
    const next = random(63);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const operations = Object.entries(apiDocument.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
    let sent = 0;
    const statuses = new Map<number, number>();

    for (const { path, method, op } of operations) {
      const params = (op.parameters ?? []).map((x) => resolveRef(x as Parameter));
      const exampleOf = (p: Parameter) => service.exampleValue(p.schema?.examples?.[0]);
      const bodyExample = op.requestBody ? JSON.stringify((resolveRef(op.requestBody.content['application/json']!.schema) as { examples: unknown[] }).examples[0]) : undefined;

      for (let m = 0; m <= MUTATIONS_PER_OPERATION; m++) {
        // Mutation 0 is the example itself; the others change one or two things at random.
        const values = new Map(params.map((p) => [p.name, exampleOf(p)] as const));
        let body = bodyExample;
        let contentType = 'application/json';
        let token: string | null = SECRET;
        const changes = m === 0 ? 0 : 1 + Math.floor(next() * 2);
        for (let c = 0; c < changes; c++) {
          const what = next();
          if (what < 0.45 && params.length > 0) values.set(pick(params).name, String(pick(ODD_VALUES)));
          else if (what < 0.7 && op.requestBody) body = pick(ODD_BODIES);
          else if (what < 0.8 && op.requestBody) contentType = pick(['text/plain', 'application/x-www-form-urlencoded', '']);
          else if (what < 0.9) token = pick([null, 'wrong', `${SECRET}x`]);
          else values.set('unknown_param', 'ignored');
        }
        let url = path;
        const query = new URLSearchParams();
        for (const [name, value] of values) {
          const p = params.find((x) => x.name === name);
          if (p?.in === 'path') url = url.replace(`{${name}}`, encodeURIComponent(value) || '%20');
          else if (p?.in === 'header') continue;
          else if (value !== '' || !p) query.set(name, value);
        }
        const headers: Record<string, string> = {};
        if (contentType) headers['content-type'] = contentType;
        if (token) headers.authorization = `Bearer ${token}`;
        for (const p of params) if (p.in === 'header' && values.get(p.name)) headers[p.name] = values.get(p.name)!;
        const res = await fetch(`${service.base}${url}${query.size ? `?${query}` : ''}`, {
          method: method.toUpperCase(),
          headers,
          ...(body !== undefined && method !== 'get' && method !== 'delete' && { body }),
        });
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        const what = `${method} ${url}${query.size ? `?${query}` : ''} (${contentType || 'no content type'}, body ${body?.slice(0, 40)}) -> ${res.status}`;
        expect(res.status, what).not.toBe(500);
        const documented = op.responses[String(res.status)];
        expect(documented, `${what}: status documented`).toBeDefined();
        if (res.status === 204) {
          // No content, and none documented (a resume at a finished run's end).
          expect(documented!.content, what).toBeUndefined();
          expect(await res.text(), what).toBe('');
          continue;
        }
        const media = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
        expect(documented!.content?.[media], `${what}: ${media} documented`).toBeDefined();
        const validate = validatorAt(pointer('paths', path, method, 'responses', String(res.status), 'content', media, 'schema'));
        if (media === 'text/event-stream') {
          for (const f of await sseEventsOf(await res.text(), { ids: true, parse: (d) => (d === '[DONE]' ? d : JSON.parse(d)) })) {
            const frame = f.type === 'message' ? { data: f.data } : { id: f.id, event: f.type, data: f.data };
            expect(validate(frame), `${what}: ${JSON.stringify(validate.errors)?.slice(0, 500)}`).toBe(true);
          }
        } else {
          const answer: unknown = media === 'application/json' ? await res.json() : await res.text();
          expect(validate(answer), `${what}: ${JSON.stringify(validate.errors)?.slice(0, 500)}`).toBe(true);
        }
      }
    }
    expect(sent).toBeGreaterThanOrEqual(300);
    // Both kinds were sent: successes and refusals.
    expect(statuses.get(200)).toBeGreaterThan(50);
    expect([...statuses.keys()].filter((s) => s >= 400).length).toBeGreaterThanOrEqual(4);
  }, 120_000);
});

describe('the document says what the routes do (issue 74)', () => {
  let service: ExampleService;
  const auth = { authorization: `Bearer ${SECRET}` };
  const operation = (path: string, method: string) => (apiDocument.paths as Record<string, Record<string, { requestBody?: { required?: boolean }; responses: Record<string, { description: string }> }>>)[path]![method]!;

  beforeAll(async () => {
    service = await startExampleService({}, SECRET);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('the cancel body is optional, sent bare or as empty JSON: the run is looked up, not a 400', async () => {
    expect(operation('/agent/runs/{run_id}/cancel', 'post').requestBody?.required).toBe(false);
    for (const headers of [auth, { ...auth, 'content-type': 'application/json' }]) {
      const res = await fetch(`${service.base}/agent/runs/not-a-run/cancel`, { method: 'POST', headers });
      expect(res.status).toBe(404);
    }
  });

  it('a DELETE, or a GET, sent with a body that is not JSON is a 415 its operation lists', async () => {
    for (const [path, method, url] of [
      ['/memory/{user_id}', 'delete', '/memory/someone'],
      ['/memory/{user_id}', 'get', '/memory/someone'],
    ] as const) {
      const res = await fetch(`${service.base}${url}`, { method: method.toUpperCase(), headers: { ...auth, 'content-type': 'text/plain' }, body: method === 'get' ? undefined : 'x' });
      if (method === 'delete') expect(res.status).toBe(415);
      expect(operation(path, method).responses['415']).toBeDefined();
    }
  });

  it('only the routes that take a model name ALLOWED_MODELS in their 400', () => {
    const naming = Object.entries(apiDocument.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Record<string, { responses?: Record<string, { description?: string }> }>).filter(([, op]) => op.responses?.['400']?.description?.includes('ALLOWED_MODELS')).map(([method]) => `${method} ${path}`),
    );
    expect(naming.sort()).toEqual(['post /agent/respond', 'post /agent/respond/stream', 'post /chat/completions', 'post /v1/chat/completions']);
  });

  it('a limit out of range says the range, not only "an integer"', async () => {
    for (const limit of ['0', '201', 'x']) {
      const res = await fetch(`${service.base}/memory/someone?limit=${limit}`, { headers: auth });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/integer from 1 to 200/);
    }
  });
});
