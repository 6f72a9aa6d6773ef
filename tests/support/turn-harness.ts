/**
 * A chat turn set up for tests: the app wired with the real openai gateway against the fake gateway
 * (real HTTP) and the real MCP client against a test MCP server, plus an admission that records every
 * charge. Used by the agent route tests (JSON through app.request, SSE on a real listening server).
 */
import { createApp } from '../../src/app.js';
import type { AppDeps } from '../../src/deps.js';
import { silentLogger } from '../../src/logger.js';
import type { Usage } from '../../src/model/usage.js';
import { createMcpCampusTools } from '../../src/tools/mcp-campus-tools.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './fake-gateway.js';
import { fakeAdmission } from './admission-fakes.js';
import { createTestDeps } from './deps.js';
import { startTestMcpServer, type TestMcpServer, type TestTool } from './test-mcp-server.js';

export interface TurnHarness {
  gw: FakeGateway;
  mcp: TestMcpServer;
  app: ReturnType<typeof createApp>;
  /** Usage charged per model pass, in order. */
  charges: Usage[];
  /** Resolves after the first charge. */
  chargedOnce: Promise<void>;
  /** POST a JSON body to `path` through app.request. */
  post(body: unknown, path?: string): Response | Promise<Response>;
  close(): Promise<void>;
}

export interface TurnHarnessOptions {
  tools?: TestTool[];
  /** Overrides of the app dependencies (admission, turnMemory, logger, config, ...). */
  deps?: Partial<AppDeps>;
  /** Point the tools client somewhere else (a dead server). */
  mcpUrl?: string;
}

export async function startTurnHarness(options: TurnHarnessOptions = {}): Promise<TurnHarness> {
  const gw = await startFakeGateway();
  const mcp = await startTestMcpServer({ tools: options.tools ?? [] });
  const campusTools = createMcpCampusTools({ url: options.mcpUrl ?? mcp.url, logger: silentLogger, callTimeoutMs: 2_000 });
  const admission = fakeAdmission();
  const charges = admission.charges;
  const chargedOnce = admission.charged();
  const deps = await createTestDeps({
    gateway: gatewayClient(gw),
    campusTools,
    admission,
    ...options.deps,
  });
  const app = createApp(deps);
  return {
    gw,
    mcp,
    app,
    charges,
    chargedOnce,
    post: (body, path = '/agent/respond') =>
      app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    async close() {
      await campusTools.close();
      await mcp.close();
      await gw.close();
    },
  };
}
