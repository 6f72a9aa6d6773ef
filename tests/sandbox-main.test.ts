/**
 * `npm run sandbox:tools` as a process: it listens on SANDBOX_TOOLS_PORT, logs where to point
 * MCP_SERVER_URL, serves the tool list to an MCP client, and stops cleanly on SIGTERM.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { expect, it } from 'vitest';
import { parseLocalToolsConfig } from '../src/config.js';
import { REPO_ROOT } from './support/spawn-service.js';

it('defaults to port 5050', () => {
  expect(parseLocalToolsConfig({}).sandboxToolsPort).toBe(5050);
  expect(parseLocalToolsConfig({ SANDBOX_TOOLS_PORT: '6060' }).sandboxToolsPort).toBe(6060);
  // The local tools read their own variables: a production environment missing the service's does not stop them.
  expect(parseLocalToolsConfig({ AGENT_ENV: 'production', PORT: '7000' }).agentUrl).toBe('http://127.0.0.1:7000');
});

it('runs standalone, serves MCP and exits 0 on SIGTERM', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/sandbox/campus/main.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', SANDBOX_TOOLS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout! });
  let url = '';
  for await (const line of lines) {
    const record = JSON.parse(line) as { msg: string; url?: string; hint?: string };
    if (record.msg === 'sandbox campus tool server listening') {
      url = record.url!;
      expect(record.hint).toBe(`point the service at it with MCP_SERVER_URL=${url}`);
      break;
    }
  }
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  const client = new Client({ name: 'sandbox-main-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('eats_get_locations_open_now');
  await client.close();
  child.kill('SIGTERM');
  const [code] = await exited;
  expect(code).toBe(0);
});
