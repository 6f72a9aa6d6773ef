/**
 * The campus tools client: MCP over Streamable HTTP (the only importer of the MCP SDK client).
 * Discovery is cached (60 s, failures 15 s) with a single-flight refresh, invalidated by
 * `notifications/tools/list_changed`; a lost session (404) re-initialises once; each call has a timeout.
 * Never throws to the pipeline: a dead server lists no tools and a failed call is `{ok: false}`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../logger.js';
import type { CampusTool, CampusToolResult, CampusTools } from './campus-tools.js';
import type { JsonSchemaObject } from '../model/gateway.js';
import { trimToolDescription } from './tool-description.js';
import { SHOW_MAP_TOOL, toolGroupOf } from './tool-groups.js';
import { providerFetch } from '../transport/outbound-fetch.js';

export interface McpCampusToolsOptions {
  /** MCP_SERVER_URL, including the `/mcp` path. */
  url: string;
  logger: Logger;
  fetch?: FetchLike;
  /** Milliseconds since epoch; injected so cache expiry is testable. */
  now?: () => number;
  /** Per tool call (CAMPUS_TOOLS: upstream timeouts happen); also bounds connect and list. */
  callTimeoutMs?: number;
  listTtlMs?: number;
  failureTtlMs?: number;
}

interface Cache {
  tools: CampusTool[];
  expiresAt: number;
}

const CLIENT_INFO = { name: 'campus-assistant-agent', version: '0.1.0' };

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .map((block: { type?: string; text?: unknown }) => (block?.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter(Boolean)
    .join('\n');
}

/**
 * The tool's input schema as the model is sent it. `$schema` (the draft's URL, which the SDK's zod
 * conversion adds to every tool) says nothing to a model and costs about 15 tokens a tool on every pass.
 */
function toSchema(schema: unknown): JsonSchemaObject {
  const { $schema: _draft, ...s } = (schema ?? {}) as Record<string, unknown>;
  return { ...s, type: 'object', properties: (s.properties as Record<string, unknown>) ?? {} };
}

/**
 * Tools of the tool server that are the operator's, not a student's question's (CAMPUS_TOOLS.md):
 * `guide_refresh_index` rebuilds the guide's search index. Never offered to the model.
 */
const OPERATOR_TOOLS = new Set(['guide_refresh_index']);

/** A lost session: the server forgot our `Mcp-Session-Id` and answers 404 (Streamable HTTP spec). */
function isSessionLost(err: unknown): boolean {
  return err instanceof StreamableHTTPError && err.code === 404;
}

/** Builds the MCP campus tools client; connects lazily on the first list or call. */
export function createMcpCampusTools(options: McpCampusToolsOptions): CampusTools {
  const now = options.now ?? Date.now;
  const callTimeoutMs = options.callTimeoutMs ?? 10_000;
  const listTtlMs = options.listTtlMs ?? 60_000;
  const failureTtlMs = options.failureTtlMs ?? 15_000;
  const log = options.logger.child({ component: 'campus-tools' });

  let cache: Cache | null = null;
  let inflight: Promise<CampusTool[]> | null = null;
  let connection: Promise<Client> | null = null;
  let closed = false;

  function connect(): Promise<Client> {
    connection ??= (async () => {
      const client = new Client(CLIENT_INFO);
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        cache = null;
      });
      client.onerror = (err) => log.debug('tool server transport error', { err });
      const transport = new StreamableHTTPClientTransport(new URL(options.url), { fetch: options.fetch ?? providerFetch });
      try {
        await client.connect(transport, { timeout: callTimeoutMs });
      } catch (err) {
        connection = null;
        await client.close().catch(() => undefined);
        throw err;
      }
      return client;
    })();
    return connection;
  }

  async function reset(): Promise<void> {
    const old = connection;
    connection = null;
    if (old) await old.then((c) => c.close()).catch(() => undefined);
  }

  /** Runs `op` on the session; a lost session is re-initialised once and the op retried. */
  async function withSession<T>(op: (client: Client) => Promise<T>): Promise<T> {
    try {
      return await op(await connect());
    } catch (err) {
      if (!isSessionLost(err)) throw err;
      log.info('tool server session lost; re-initialising');
      await reset();
      cache = null;
      return op(await connect());
    }
  }

  /** Tools of an unknown group already logged (name only). */
  const unknownGroupTools = new Set<string>();

  async function discover(): Promise<CampusTool[]> {
    try {
      const result = await withSession((c) => c.listTools(undefined, { timeout: callTimeoutMs }));
      const tools = result.tools
        .filter((t) => t.name !== SHOW_MAP_TOOL && !OPERATOR_TOOLS.has(t.name))
        .map((t) => ({
          name: t.name,
          group: toolGroupOf(t.name),
          description: trimToolDescription(t.description ?? ''),
          inputSchema: toSchema(t.inputSchema),
        }));
      for (const t of tools) {
        // A group the service does not know yet: kept (bound when a turn binds every group), said once.
        if (t.group === null && !unknownGroupTools.has(t.name)) {
          unknownGroupTools.add(t.name);
          log.warn('tool of an unknown group: bound only when a turn binds every group', { tool: t.name });
        }
      }
      cache = { tools, expiresAt: now() + listTtlMs };
      return tools;
    } catch (err) {
      log.warn('tool discovery failed; answering without campus tools', { err });
      await reset();
      cache = { tools: [], expiresAt: now() + failureTtlMs };
      return [];
    }
  }

  return {
    async list() {
      if (closed) return [];
      if (cache && cache.expiresAt > now()) return cache.tools;
      // Single flight: concurrent turns share one refresh.
      inflight ??= discover().finally(() => {
        inflight = null;
      });
      return inflight;
    },

    async call(name, args, signal): Promise<CampusToolResult> {
      if (closed) return { ok: false, text: 'client closed' };
      try {
        const result = await withSession((c) =>
          c.callTool({ name, arguments: args }, undefined, { signal, timeout: callTimeoutMs }),
        );
        return { ok: result.isError !== true, text: textOf(result.content) };
      } catch (err) {
        // Class and code only: a transport error can quote the server's body, which may echo arguments.
        // Logged by the caller, on the turn's line (with its request id).
        const code = (err as { code?: unknown })?.code;
        return {
          ok: false,
          text: err instanceof Error ? err.message : String(err),
          failure: { error: err instanceof Error ? err.name : typeof err, ...((typeof code === 'string' || typeof code === 'number') && { code }) },
        };
      }
    },

    async close() {
      closed = true;
      await reset();
    },
  };
}
