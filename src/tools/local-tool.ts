/**
 * Tools the service implements itself (`maps_show_map`, the memory tools), offered to the model beside
 * the campus tools from the MCP server. Their results may carry pipeline events (a map request, a
 * memory change) that the execute stage passes along.
 */
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
