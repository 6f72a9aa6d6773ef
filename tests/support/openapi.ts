/**
 * The committed OpenAPI document for tests, and the one check of a value against a schema inside it
 * (@hyperjump/json-schema's OpenAPI 3.1 validator, JSON Schema 2020-12), addressed by a JSON pointer.
 * Not a test file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BASIC } from '@hyperjump/json-schema/experimental';
import { validate } from '@hyperjump/json-schema/openapi-3-1';
import { REPO_ROOT } from './spawn-service.js';

export const DOCUMENT_FILE = join(REPO_ROOT, 'openapi.json');
const DOC_URI = pathToFileURL(DOCUMENT_FILE).href;

type Operation = { parameters?: unknown[]; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema?: unknown; example?: unknown }> }> };
export type ApiDocument = { paths: Record<string, Record<string, Operation>>; components?: Record<string, Record<string, unknown>> };

export const apiDocument = JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8')) as ApiDocument;

/** A JSON pointer into the document from its segments. */
export function pointer(...segments: string[]): string {
  return segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');
}

/** Validates `value` against the schema at `path` (a pointer from pointer()); `valid` and the validator's output. */
export async function validateAt(path: string, value: unknown): Promise<{ valid: boolean; output: string }> {
  const output = await validate(`${DOC_URI}#/${path}`, value as never, BASIC);
  return { valid: output.valid, output: JSON.stringify(output).slice(0, 1200) };
}

/** Follows `$ref`s inside the document. */
export function resolveRef<T>(value: T): T {
  let v: unknown = value;
  while (v && typeof v === 'object' && '$ref' in v) {
    v = (v as { $ref: string }).$ref
      .slice(2)
      .split('/')
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], apiDocument);
  }
  return v as T;
}
