/**
 * Tools the service implements itself (`maps_show_map`, the memory tools), offered to the model beside
 * the campus tools from the MCP server. Their results may carry pipeline events (a map request, a
 * memory change) that the execute stage passes along.
 */
import { z } from 'zod';
import type { JsonSchemaObject } from '../model/gateway.js';

export interface LocalToolContext {
  signal: AbortSignal;
}

/**
 * What a local tool answers. `E` is the kind of event the tool reports (a map request, a memory
 * change), typed by the room that owns it; the pipeline passes them along.
 */
export interface LocalToolResult<E = unknown> {
  /** What the model sees as the tool result. */
  content: string;
  /** Events to emit after the call (e.g. `map_request`, `memory`). */
  events?: E[];
}

export interface LocalTool<E = unknown> {
  name: string;
  kind: 'map' | 'memory';
  description: string;
  parameters: JsonSchemaObject;
  /** `args` is the model's parsed JSON; the tool validates it (zod) and answers with guidance if bad. */
  run(args: unknown, ctx: LocalToolContext): Promise<LocalToolResult<E>>;
}

/**
 * The JSON Schema a local tool offers the model, derived from the zod schema its `run` validates with:
 * one schema per tool, so what the model is told (types, required fields, bounds, descriptions) cannot
 * drift from what is accepted. The input side of the schema (before transforms); refinements that JSON
 * Schema cannot say stay in zod alone, and the `$schema` tag is left out (gateways do not need it).
 */
export function toolParameters(schema: z.ZodObject): JsonSchemaObject {
  const { $schema: _tag, ...parameters } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchemaObject & { $schema?: string };
  return parameters;
}
