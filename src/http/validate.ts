/**
 * zod validation at the boundary. Wraps Hono's validator so a failure is our 400 envelope, never the
 * validator's default body; handlers read typed values with `c.req.valid(target)`.
 */
import type { ValidationTargets } from 'hono';
import { validator } from 'hono/validator';
import type { z } from 'zod';
import { BadRequestError } from './errors.js';

/** One readable line from zod issues: `field: message; other: message`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/**
 * Validates one request part. For `json`, a body sent without a JSON content type is parsed too
 * (older front ends); malformed JSON is a 400 envelope.
 */
export function validate<T extends keyof ValidationTargets, S extends z.ZodType>(target: T, schema: S) {
  return validator(target, async (value, c): Promise<z.output<S>> => {
    let input: unknown = value;
    if (target === 'json') {
      const mediaType = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (!/^application\/([\w.-]+\+)?json$/.test(mediaType)) {
        const text = await c.req.text();
        try {
          input = text.trim() ? JSON.parse(text) : undefined;
        } catch {
          throw new BadRequestError('request body is not valid JSON', 'malformed JSON');
        }
      }
    }
    const result = await schema.safeParseAsync(input);
    if (!result.success) throw new BadRequestError(describeIssues(result.error), 'invalid request');
    return result.data;
  });
}
