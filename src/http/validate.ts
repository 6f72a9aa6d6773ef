/**
 * zod validation at the boundary with `@hono/zod-validator` (the design card's validator, issue 63),
 * each validator also carrying its schema for hono-openapi's document generator (the mark hono-openapi's
 * own `validator` puts on its middleware: the target and the schema resolved to JSON Schema), so the
 * OpenAPI document tells each route's body, path, query and headers from the same schema that checks
 * them (issue 49). A failure is our 400 envelope (the hook throws), never the validator's default body;
 * handlers read typed values with `c.req.valid(target)`. Malformed JSON is rejected by Hono's validator
 * underneath (an HTTPException that `onError` answers as a 400).
 */
import { zValidator } from '@hono/zod-validator';
import type { MiddlewareHandler, ValidationTargets } from 'hono';
import { resolver, uniqueSymbol } from 'hono-openapi';
import { z } from 'zod';
import { BadRequestError, UnsupportedMediaTypeError } from './errors.js';

/** The part of a validation issue a client is shown (a zod issue, or a Standard Schema one). */
interface Issue {
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
  readonly message: string;
}

/** One readable line from validation issues: `field: message; other: message`. */
export function describeIssues(error: { issues: readonly Issue[] }): string {
  return error.issues
    .slice(0, 5)
    .map((i) => {
      const path = (i.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p));
      return path.length ? `${path.join('.')}: ${i.message}` : i.message;
    })
    .join('; ');
}

/** The validators' hook: a failure throws our 400 (onError answers it with the envelope). */
const hook = (result: { success: true } | { success: false; error: { issues: readonly Issue[] } }): void => {
  if (!result.success) throw new BadRequestError(describeIssues(result.error), 'invalid request');
};

/**
 * `zValidator` for `target`, marked for the OpenAPI document as hono-openapi's own validator marks it;
 * `examples` go into the request's schema (zod leaves a schema's own `examples` out of its input side).
 */
function documented<T extends keyof ValidationTargets, S extends z.ZodType, M extends MiddlewareHandler>(target: T, schema: S, middleware: M, examples?: readonly unknown[]): M {
  const resolved = resolver(schema);
  const toOpenAPISchema: typeof resolved.toOpenAPISchema = async (options) => {
    const out = await resolved.toOpenAPISchema(options);
    return examples ? { ...out, schema: { ...out.schema, examples: [...examples] } } : out;
  };
  return Object.assign(middleware, { [uniqueSymbol]: { target, ...resolved, toOpenAPISchema } });
}

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Only JSON where JSON is meant: a body sent as anything but `application/json` (or a `+json` type) is
 * refused with 415 before it is read. A form, `text/plain` or a body with no content type is what a
 * page on another site can post without a CORS preflight. Part of the route guard
 * (src/http/guard.ts), after the body limit; a request without a body (GET, DELETE) passes.
 */
export const requireJsonBody: MiddlewareHandler = async (c, next) => {
  const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim();
  const hasBody = carriesBody(c.req.raw);
  if (hasBody && !JSON_MEDIA_TYPE.test(mediaType)) throw new UnsupportedMediaTypeError(mediaType);
  // Labelled JSON but empty: read as no body, as it is without the label (`{}` to the validator: a
  // route whose body is optional answers, one that needs fields names them), not as malformed JSON.
  if (!hasBody && JSON_MEDIA_TYPE.test(mediaType)) c.req.bodyCache.json = Promise.resolve({});
  await next();
};

/**
 * Does the request carry a body? Over HTTP/1.1 only its framing says so (a `Content-Length` above 0, or a
 * `Transfer-Encoding`): Node's adapter gives every request but GET and HEAD a body stream, an empty one
 * for a `DELETE` the front end sends bare. A request made in process (no framing headers) carries one
 * when it was given one on a method that takes a body.
 */
function carriesBody(req: Request): boolean {
  const length = req.headers.get('content-length');
  if (length !== null) return Number(length) > 0;
  if (req.headers.has('transfer-encoding')) return true;
  return req.body !== null && (req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH');
}

/**
 * Validates the JSON body. Once it is valid, Hono's cache of the body's text is dropped: the request
 * keeps what validation made of it (earlier attachments already replaced by notes), not a chat of
 * megabytes for as long as its stream is open.
 */
export const validJson = <S extends z.ZodType>(schema: S, examples?: readonly unknown[]) =>
  documented(
    'json',
    schema,
    zValidator('json', schema, (result, c) => {
      hook(result);
      c.req.bodyCache = {};
    }),
    examples,
  );
/** Validates the path parameters. */
export const validParam = <S extends z.ZodType>(schema: S) => documented('param', schema, zValidator('param', schema, hook));
/** Validates the query string. */
export const validQuery = <S extends z.ZodType>(schema: S) => documented('query', schema, zValidator('query', schema, hook));
/** Validates request headers (their names lower-case, as Hono reads them). */
export const validHeader = <S extends z.ZodType>(schema: S) => documented('header', schema, zValidator('header', schema, hook));

/**
 * A whole-number query parameter: decimal digits, or absent/empty for `fallback`; typed as an integer
 * in the OpenAPI document (issue 63), read from the query's text here.
 */
export const integerParam = (fallback: number, min: number, max: number, description: string) =>
  z
    .preprocess((v) => (v === undefined || v === '' ? undefined : typeof v === 'string' && /^\d{1,16}$/.test(v) ? Number(v) : v), z.number({ error: `must be an integer from ${min} to ${max}` }).int().min(min).max(max).optional())
    .transform((n) => n ?? fallback)
    .meta({ description: `${description}; default ${fallback}` });
