/**
 * The sandbox campus tool server: a real MCP server (the SDK's server side, Streamable HTTP at `/mcp`)
 * publishing the production tool names and result formats over sample data. Sessions are kept like
 * production's (`Mcp-Session-Id`); a client that opens one session per call works too. Started
 * in-process by the service when MCP_SERVER_URL is unset, standalone by `npm run sandbox:tools`, and by
 * tests as their real MCP server.
 */
import { serve } from '@hono/node-server';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { registerBusTools } from './bus-tools.js';
import { registerCoursesTools } from './courses-tools.js';
import { registerEatsTools } from './eats-tools.js';
import { registerGuideTools } from './guide-tools.js';
import { registerMapsTools } from './maps-tools.js';
import { errorResult, inputError } from './tool-results.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface SandboxToolServerOptions {
  /** 0 picks a free port. */
  port: number;
  host: string;
  /** The clock dining hours and bus predictions are read from; defaults to the real time. */
  now?: () => Date;
  /** Most sessions kept open; the oldest is closed beyond it (clients that never send DELETE). */
  maxSessions?: number;
}

export interface SandboxToolServer {
  /** `http://<host>:<port>/mcp` */
  url: string;
  port: number;
  close(): Promise<void>;
}

export const SANDBOX_SERVER_NAME = 'campus-sandbox-tools';

/**
 * The longest string a sandbox tool reads as an argument: far above any name, query or id a student or a
 * model writes, far below what holds the loop (a 1,000,000-character query took 0.35 s, issue 61).
 */
export const MAX_ARGUMENT_CHARS = 500;

/** The name of the first string argument (at any depth) longer than MAX_ARGUMENT_CHARS, or null. */
function overlong(value: unknown, name = 'argument'): string | null {
  if (typeof value === 'string') return value.length > MAX_ARGUMENT_CHARS ? name : null;
  if (Array.isArray(value)) {
    for (const item of value) if (overlong(item, name)) return name;
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) if (overlong(item, key)) return key;
  }
  return null;
}

/** What an over-long argument gets: the bus group's `input_error`, the other groups' error result (CAMPUS_TOOLS.md). */
function overlongResult(tool: string, argument: string): CallToolResult {
  const message = `${argument} is longer than ${MAX_ARGUMENT_CHARS} characters.`;
  return tool.startsWith('bus_') ? inputError('argument_too_long', message) : errorResult(tool, message);
}

/** Every tool registered on `server` from here on reads only arguments within MAX_ARGUMENT_CHARS. */
function boundArguments(server: McpServer): void {
  type Handler = (args: unknown, extra: unknown) => unknown;
  const register = server.registerTool.bind(server) as (name: string, config: unknown, handler: Handler) => unknown;
  const bounded = (name: string, config: unknown, handler: Handler) =>
    register(name, config, (args, extra) => {
      const argument = overlong(args);
      return argument ? overlongResult(name, argument) : handler(args, extra);
    });
  server.registerTool = bounded as unknown as McpServer['registerTool'];
}

/** A fresh MCP server with the five tool groups; one per session, as the SDK binds a server to a transport. */
export function createSandboxMcpServer(now: () => Date = () => new Date()): McpServer {
  const server = new McpServer({ name: SANDBOX_SERVER_NAME, version: '1.0.0' }, { capabilities: { tools: {} } });
  boundArguments(server);
  registerMapsTools(server);
  registerCoursesTools(server);
  registerEatsTools(server, now);
  registerGuideTools(server);
  registerBusTools(server, now);
  return server;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

/** Starts the sandbox tool server and resolves once it listens. */
export async function startSandboxToolServer(options: SandboxToolServerOptions): Promise<SandboxToolServer> {
  const now = options.now ?? (() => new Date());
  const maxSessions = options.maxSessions ?? 256;
  // Insertion order doubles as age order for eviction.
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();

  async function openSession(request: Request): Promise<Response> {
    const mcp = createSandboxMcpServer(now);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
        if (sessions.size > maxSessions) {
          const [oldestId, oldest] = sessions.entries().next().value!;
          sessions.delete(oldestId);
          void oldest.close();
        }
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void mcp.close();
    };
    await mcp.connect(transport);
    return transport.handleRequest(request);
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname !== '/mcp') return jsonRpcError(404, -32601, `no MCP endpoint at ${url.pathname}`);
    const sessionId = request.headers.get('mcp-session-id');
    if (sessionId) {
      const transport = sessions.get(sessionId);
      // The spec's answer to an unknown or expired session: 404, so the client starts a new one.
      if (!transport) return jsonRpcError(404, -32001, 'Session not found');
      return transport.handleRequest(request);
    }
    if (request.method !== 'POST') return jsonRpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    return openSession(request);
  }

  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: handle, port: options.port, hostname: options.host }, () => resolve(s as Server));
  });
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;

  return {
    url: `http://${host}:${port}/mcp`,
    port,
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((t) => t.close().catch(() => undefined)));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Standalone GET streams never end on their own; close() would otherwise wait for them.
        server.closeAllConnections();
      });
    },
  };
}
