/**
 * The one idiom every configuration variable is read with: a zod field over the variable's text
 * (`undefined` when unset). Unset or blank means the default; a value that cannot be read is a problem
 * named after the variable (the value itself is never quoted: it may be a secret).
 */
import { z } from 'zod';

/** Text, trimmed; unset or blank is null. */
export const optionalText = z
  .string()
  .optional()
  .transform((s) => (s && s.trim() ? s.trim() : null));

/** Text, trimmed; unset or blank is `fallback`. */
export const textOr = (fallback: string) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? s.trim() : fallback));

const isUrl = (s: string | null) => s === null || URL.canParse(s);

/** A URL; unset or blank is null. */
export const optionalUrl = optionalText.refine(isUrl, 'must be a URL');

/** A URL; unset or blank is `fallback`. */
export const urlOr = (fallback: string) => textOr(fallback).refine(isUrl, 'must be a URL');

/** One of `values`, read case-insensitively; unset or blank is `fallback`. */
export const oneOf = <const T extends readonly [string, ...string[]]>(values: T, fallback: T[number], message?: string) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? s.trim().toLowerCase() : fallback))
    .pipe(z.enum(values, message ? { error: message } : undefined));

/** A whole number within `min`-`max` (a port: `int(5055, { min: 0, max: 65535 })`); unset or blank is `fallback`. */
export const int = (fallback: number, bounds: { min: number; max?: number; maxRule?: string }) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : fallback))
    .pipe(
      z
        .number({ error: 'must be a whole number' })
        .int('must be a whole number')
        .min(bounds.min, bounds.min === 1 ? 'must be a positive whole number' : `must be at least ${bounds.min}`)
        .max(bounds.max ?? Number.MAX_SAFE_INTEGER, bounds.maxRule ?? `must be at most ${bounds.max ?? Number.MAX_SAFE_INTEGER}`),
    );

/** A port number; unset or blank is `fallback`. */
export const port = (fallback: number) => int(fallback, { min: 0, max: 65535 });

/** A number from `min` to `max`; unset or blank is `fallback`. */
export const numberIn = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? Number(s) : fallback))
    .pipe(z.number({ error: `must be a number from ${min} to ${max}` }).min(min, `must be between ${min} and ${max}`).max(max, `must be between ${min} and ${max}`));

/** `true` or `false`; unset or blank is `fallback`. */
export const flag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((s) => (s && s.trim() ? s.trim().toLowerCase() === 'true' : fallback));

/**
 * `key=value,key2=value2` (OTEL_EXPORTER_OTLP_HEADERS, OTEL_RESOURCE_ATTRIBUTES), values URL-decoded;
 * unset is empty. An entry may be a secret: a problem names its key or its position, never its text.
 */
export const keyValues = z
  .string()
  .optional()
  .transform((raw, ctx) => {
    const out: Record<string, string> = {};
    for (const part of (raw ?? '').split(',')) {
      if (!part.trim()) continue;
      const eq = part.indexOf('=');
      const key = eq > 0 ? part.slice(0, eq).trim() : '';
      if (!key) {
        ctx.addIssue({ code: 'custom', message: 'every entry must be key=value' });
        continue;
      }
      try {
        out[key] = decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        ctx.addIssue({ code: 'custom', message: `the value of ${key} is not URL-encoded correctly` });
      }
    }
    return out;
  });
