/**
 * The real app wired with the real admission control for the admission tests: a SQLite (or given)
 * budget store, moderation over the fake gateway's `/v1/moderations`, the chat model on the same fake
 * gateway. `listen()` serves it on a loopback port for stream and disconnect tests. Not a test file.
 */
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admission } from '../src/admission/admission.js';
import { createAdmission } from '../src/admission/create-admission.js';
import { moderationFromConfig } from '../src/admission/moderation.js';
import { createSqliteBudgetStore } from '../src/admission/sqlite-budget-store.js';
import type { TokenBudgetStore } from '../src/admission/token-budget.js';
import { createApp } from '../src/app.js';
import type { Logger } from '../src/logger.js';
import type { CampusTools } from '../src/tools/campus-tools.js';
import { silentLogger } from '../src/logger.js';
import { createOpenAIGateway } from '../src/model/openai-gateway.js';
import type { Usage } from '../src/model/usage.js';
import { startFakeGateway, type FakeGateway } from './fakes/fake-gateway.js';
import { createTestDeps, testConfig } from './support/deps.js';

export interface AdmissionAppOptions {
  env?: Record<string, string>;
  /** Moderation through the fake gateway (EMBEDDINGS_API_KEY set); off by default. */
  moderation?: boolean;
  budget?: TokenBudgetStore;
  now?: () => Date;
  logger?: Logger;
  campusTools?: CampusTools;
}

export interface AdmissionApp {
  app: ReturnType<typeof createApp>;
  gw: FakeGateway;
  budget: TokenBudgetStore;
  /** Every completed charge, in order (observed after the real admission stored it). */
  charges: Usage[];
  /** Resolves once `count` charges have been stored. */
  waitForCharges(count: number): Promise<void>;
  post(path: string, body: unknown): Promise<Response>;
  chatCalls(): number;
  moderationCalls(): number;
  /** Serves the app on 127.0.0.1; resolves to the base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

export async function startAdmissionApp(options: AdmissionAppOptions = {}): Promise<AdmissionApp> {
  const gw = await startFakeGateway();
  const dir = mkdtempSync(join(tmpdir(), 'admission-app-'));
  const config = testConfig({
    ...(options.moderation ? { EMBEDDINGS_API_KEY: 'sk-moderation-key', EMBEDDINGS_BASE_URL: gw.baseUrl } : {}),
    ...options.env,
  });
  const logger = options.logger ?? silentLogger;
  const budget = options.budget ?? createSqliteBudgetStore({ path: join(dir, 'usage.sqlite') });
  const now = options.now ?? (() => new Date());
  const real = createAdmission({ budget, moderation: moderationFromConfig(config, logger), config, logger, now });
  const charges: Usage[] = [];
  let waiters: Array<() => boolean> = [];
  const admission: Admission = {
    ...real,
    charge: async (request, usage) => {
      await real.charge(request, usage);
      charges.push(usage);
      waiters = waiters.filter((w) => !w());
    },
  };
  const deps = await createTestDeps({
    config,
    logger,
    now,
    gateway: createOpenAIGateway({ baseUrl: gw.baseUrl, apiKey: 'sk-chat-key', retryBackoffMs: 1 }),
    admission,
    moderation: moderationFromConfig(config, logger),
    ...(options.campusTools && { campusTools: options.campusTools }),
  });
  const app = createApp(deps);
  let server: Server | null = null;
  return {
    app,
    gw,
    budget,
    charges,
    waitForCharges: (count) =>
      new Promise<void>((resolve) => {
        const check = () => (charges.length >= count ? (resolve(), true) : false);
        if (!check()) waiters.push(check);
      }),
    post: async (p, body) =>
      app.request(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    chatCalls: () => gw.chatRequests().length,
    moderationCalls: () => gw.requests.filter((r) => r.path === '/v1/moderations').length,
    async listen() {
      server = await new Promise<Server>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
      });
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      if (server) {
        const s = server;
        await new Promise((r) => {
          s.closeAllConnections();
          s.close(r);
        });
      }
      await gw.close();
      await budget.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
