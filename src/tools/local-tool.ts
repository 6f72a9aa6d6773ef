/**
 * Tools the service implements itself (`maps_show_map`, the memory tools), offered to the model beside
 * the campus tools from the MCP server. Their results may carry pipeline events (a map request, a
 * memory change) that the execute stage passes along.
 */
import type { TurnEvent, TurnRequest } from '../pipeline/types.js';

/** A JSON Schema object, as sent to the model in the tool definition. */
export type JsonSchemaObject = { type: 'object'; properties: Record<string, unknown>; required?: string[]; [k: string]: unknown };

export interface LocalToolContext {
  request: TurnRequest;
  signal: AbortSignal;
}

export interface LocalToolResult {
  /** What the model sees as the tool result. */
  content: string;
  /** Events to emit after the call (e.g. `map_request`, `memory`). */
  events?: TurnEvent[];
}

export interface LocalTool {
  name: string;
  kind: 'map' | 'memory';
  description: string;
  parameters: JsonSchemaObject;
  /** `args` is the model's parsed JSON; the tool validates it (zod) and answers with guidance if bad. */
  run(args: unknown, ctx: LocalToolContext): Promise<LocalToolResult>;
}
