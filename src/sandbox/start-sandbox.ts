/**
 * The sandbox's one entry: what stands in for the external services when configuration leaves them
 * out (outside production only). `server.ts` loads this module with a dynamic `import()` only when the
 * configuration selects the sandbox, so a production start never loads any file under `src/sandbox/`.
 *
 * - the offline rule-based model, reached through the same `openai` client via its fetch seam, when
 *   no LLM_GATEWAY_API_KEY is set;
 * - the sandbox campus tool server (a real MCP server on a loopback port) when no MCP_SERVER_URL is set;
 * - the playground page at `GET /`.
 */
import type { Hono } from 'hono';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { startSandboxToolServer } from './campus/tool-server.js';
import { createOfflineModelFetch, OFFLINE_BASE_URL, OFFLINE_PIECE_DELAY_MS } from './offline-model/offline-fetch.js';
import { createPlaygroundRoutes } from './playground/playground-routes.js';

export interface SandboxNeeds {
  /** No gateway key: the offline model answers. */
  model: boolean;
  /** No MCP server URL: the sandbox tool server runs in-process. */
  tools: boolean;
}

export interface Sandbox {
  /** The offline model as an OpenAI-compatible endpoint, or null when a real gateway is configured. */
  model: { baseUrl: string; fetch: typeof fetch } | null;
  /** The sandbox tool server's MCP URL, or null when a real one is configured. */
  mcpUrl: string | null;
  playground: Hono;
  close(): Promise<void>;
}

/** markdown-it's browser build from the project's own dependencies (dist/browser next to its CommonJS entry). */
export async function readMarkdownScript(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve('markdown-it');
  return readFile(join(dirname(entry), 'browser', 'markdown-it.umd.min.js'), 'utf8');
}

export async function startSandbox(needs: SandboxNeeds): Promise<Sandbox> {
  const tools = needs.tools ? await startSandboxToolServer({ port: 0, host: '127.0.0.1' }) : null;
  const markdownScript = await readMarkdownScript();
  return {
    model: needs.model ? { baseUrl: OFFLINE_BASE_URL, fetch: createOfflineModelFetch({ pieceDelayMs: OFFLINE_PIECE_DELAY_MS }) } : null,
    mcpUrl: tools?.url ?? null,
    playground: createPlaygroundRoutes({ markdownScript }),
    close: async () => {
      await tools?.close();
    },
  };
}
