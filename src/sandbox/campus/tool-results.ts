/**
 * The result shapes the campus tool server answers with (CAMPUS_TOOLS.md): JSON text, Markdown text,
 * the error result `Error calling tool '<action>': <detail>` with `isError: true`, and the bus group's
 * bad-argument result `{"status": "input_error", "error": {...}}`.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A JSON value as one text block, compact like the real server's. */
export function jsonResult(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }] };
}

/** Markdown (or any plain text) as one text block. */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

const ERROR = 'Error calling tool ';

/** A failed call, worded like the production server: the action is the tool name without its group. */
export function errorResult(tool: string, detail: string): CallToolResult {
  const action = tool.slice(tool.indexOf('_') + 1);
  return { isError: true, content: [{ type: 'text', text: `${ERROR}'${action}': ${detail}` }] };
}

/** Bad arguments to a bus tool: a normal result, as the production bus group answers them. */
export function inputError(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return jsonResult({ status: 'input_error', error: { code, message, ...extra } });
}

/** Is this a failed call's text: the server's own, or the MCP SDK's ("Error executing tool …": bad arguments)? */
export const isErrorResult = (text: string): boolean => text.startsWith(ERROR) || text.startsWith('Error executing tool');
