/**
 * A real MCP tool server for the tools-client tests: the SDK's low-level `Server` over Streamable HTTP
 * (node:http on 127.0.0.1, random port, stateful sessions with `Mcp-Session-Id`). Tools are injected
 * per test and may be changed live; failures are scriptable:
 *
 * ```ts
 * const mcp = await startTestMcpServer({ tools: [{ name: 'eats_x', run: async (args) => 'text' }] });
 * mcp.url                      // http://127.0.0.1:<port>/mcp, what MCP_SERVER_URL holds
 * mcp.calls                    // every tools/call in arrival order: { name, args, session }
 * mcp.listCount                // how many tools/list requests were served
 * mcp.setTools([...]); await mcp.notifyToolsChanged();   // sends notifications/tools/list_changed
 * mcp.dropSessions()           // forget every session: the next request with an old id gets 404
 * await mcp.waitForCalls(2)    // resolves once 2 tool calls have arrived
 * await mcp.close()
 * ```
 *
 * A tool's `run` returns a string (one text block) or `{ text, isError }`; a `run` that throws becomes
 * an `isError` result the way the production server reports failures.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

export interface TestTool {
  name: string;
  description?: string;
  inputSchema?: { type: 'object'; properties?: Record<string, unknown>; required?: string[] };
  run: (args: Record<string, unknown>, extra: { signal: AbortSignal }) => Promise<string | { text: string; isError?: boolean }>;
}

export interface RecordedCall {
  name: string;
  args: Record<string, unknown>;
  session: string | undefined;
}

export interface TestMcpServer {
  url: string;
  calls: RecordedCall[];
  readonly listCount: number;
  readonly sessionCount: number;
  setTools(tools: TestTool[]): void;
  notifyToolsChanged(): Promise<void>;
  dropSessions(): void;
  waitForCalls(count: number): Promise<void>;
  close(): Promise<void>;
}

interface Session {
  server: Server;
  transport: StreamableHTTPServerTransport;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return raw ? JSON.parse(raw) : undefined;
}

function jsonRpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function startTestMcpServer(options: { tools?: TestTool[] } = {}): Promise<TestMcpServer> {
  let tools = options.tools ?? [];
  const sessions = new Map<string, Session>();
  const calls: RecordedCall[] = [];
  let callWaiters: Array<() => boolean> = [];
  let listCount = 0;

  function createSessionServer(): Server {
    const server = new Server({ name: 'test-campus-tools', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      listCount++;
      return {
        tools: tools.map((t) => ({
          name: t.name,
          description: t.description ?? `${t.name} summary.`,
          inputSchema: t.inputSchema ?? { type: 'object' as const, properties: {} },
        })),
      };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: request.params.name, args, session: extra.sessionId });
      callWaiters = callWaiters.filter((w) => !w());
      const tool = tools.find((t) => t.name === request.params.name);
      if (!tool) return { content: [{ type: 'text', text: `Error calling tool '${request.params.name}': unknown tool` }], isError: true };
      try {
        const out = await tool.run(args, { signal: extra.signal });
        const result = typeof out === 'string' ? { text: out, isError: false } : out;
        return { content: [{ type: 'text', text: result.text }], isError: result.isError ?? false };
      } catch (err) {
        return { content: [{ type: 'text', text: `Error calling tool '${tool.name}': ${String(err)}` }], isError: true };
      }
    });
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!(req.url ?? '').startsWith('/mcp')) return jsonRpcError(res, 404, 'not found');
    const sessionId = req.headers['mcp-session-id'];
    const id = Array.isArray(sessionId) ? sessionId[0] : sessionId;
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    if (id) {
      const session = sessions.get(id);
      // The Streamable HTTP rule: an unknown session id is answered with 404 so the client re-initialises.
      if (!session) return jsonRpcError(res, 404, 'session not found');
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) return jsonRpcError(res, 400, 'no session');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { server, transport }),
    });
    const server = createSessionServer();
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const http = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) jsonRpcError(res, 500, String(err));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const port = (http.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    get listCount() {
      return listCount;
    },
    get sessionCount() {
      return sessions.size;
    },
    setTools(next) {
      tools = next;
    },
    async notifyToolsChanged() {
      await Promise.all([...sessions.values()].map((s) => s.server.sendToolListChanged()));
    },
    dropSessions() {
      const old = [...sessions.values()];
      sessions.clear();
      for (const s of old) void s.server.close();
    },
    waitForCalls(count) {
      return new Promise<void>((resolve) => {
        const check = () => {
          if (calls.length < count) return false;
          resolve();
          return true;
        };
        if (!check()) callWaiters.push(check);
      });
    },
    async close() {
      for (const s of sessions.values()) await s.server.close().catch(() => undefined);
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
