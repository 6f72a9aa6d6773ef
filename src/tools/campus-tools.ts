/**
 * Campus tools as the pipeline sees them: discovered from the MCP tool server and called by name.
 * The MCP client implementation (the only importer of the MCP SDK client) lives beside this file.
 */
import type { ToolGroup } from './tool-groups.js';
import type { JsonSchemaObject } from '../model/gateway.js';

export interface CampusTool {
  name: string;
  /** From the `<group>_<action>` prefix (maps, courses, eats, guide, bus); null for a prefix the service does not know. */
  group: ToolGroup | null;
  /** Trimmed to the summary line and the `Args:` block. */
  description: string;
  inputSchema: JsonSchemaObject;
}

export interface CampusToolResult {
  /** False for `isError` results, timeouts and transport failures. */
  ok: boolean;
  /** The result text (on failure: the raw error, never shown to the model nor logged). */
  text: string;
  /**
   * A transport failure's class and code (never its message: it can quote the server's body, which may
   * echo arguments); absent for an `isError` result. The toolbox logs it on the turn's log line.
   */
  failure?: { error: string; code?: string | number };
}

export interface CampusTools {
  /** The current tool list; an empty list when the tool server is unreachable (never throws). */
  list(signal?: AbortSignal): Promise<CampusTool[]>;
  call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CampusToolResult>;
  close(): Promise<void>;
}

/** No tool server: lists nothing, every call fails. The default in tests that need no campus tools. */
export const noCampusTools: CampusTools = {
  list: async () => [],
  call: async () => ({ ok: false, text: 'no campus tool server configured' }),
  close: async () => undefined,
};
