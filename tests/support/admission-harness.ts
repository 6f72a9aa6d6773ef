/**
 * The real app wired with the real admission control for the admission tests: a SQLite (or given)
 * budget store, moderation over the fake gateway's `/v1/moderations`, the chat model on the same fake
 * gateway. `listen()` serves it on a loopback port for stream and disconnect tests. Not a test file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdmission } from '../../src/admission/create-admission.js';
import { moderationFromConfig } from '../../src/admission/moderation.js';
import { createSqliteBudgetStore } from '../../src/admission/sqlite-budget-store.js';
import type { BudgetStore } from '../../src/admission/budget-store.js';
import { createApp } from '../../src/app.js';
import type { Logger } from '../../src/logger.js';
import type { CampusTools } from '../../src/tools/campus-tools.js';
import { silentLogger } from '../../src/logger.js';
import type { Usage } from '../../src/model/usage.js';
import { startFakeGateway, type FakeGateway, gatewayClient } from './fake-gateway.js';
import { recordingAdmission } from './admission-fakes.js';
import { createTestDeps, testConfig } from './deps.js';
import { listen, type Listening } from './listen.js';

export interface AdmissionAppOptions {
  env?: Record<string, string>;
  /** Moderation through the fake gateway (EMBEDDINGS_API_KEY set); off by default. */
  moderation?: boolean;
  budget?: BudgetStore;
  now?: () => Date;
  logger?: Logger;
  campusTools?: CampusTools;
}

export interface AdmissionApp {
  app: ReturnType<typeof createApp>;
  gw: FakeGateway;
  budget: BudgetStore;
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
  let config: ReturnType<typeof testConfig>;
  try {
    config = testConfig({
      ...(options.moderation ? { EMBEDDINGS_API_KEY: 'sk-moderation-key', EMBEDDINGS_BASE_URL: gw.baseUrl } : {}),
      ...options.env,
    });
  } catch (err) {
    // A refused configuration (a test of the refusal) leaves no gateway open.
    await gw.close();
    throw err;
  }
  const dir = mkdtempSync(join(tmpdir(), 'admission-app-'));
  const logger = options.logger ?? silentLogger;
  const budget = options.budget ?? createSqliteBudgetStore({ path: join(dir, 'usage.sqlite') });
  const now = options.now ?? (() => new Date());
  const real = createAdmission({ budget, moderation: moderationFromConfig(config, logger), config, logger, now });
  const admission = recordingAdmission(real);
  const charges = admission.charges;
  const deps = await createTestDeps({
    config,
    logger,
    now,
    gateway: gatewayClient(gw, { apiKey: 'sk-chat-key' }),
    admission,
    moderation: moderationFromConfig(config, logger),
    ...(options.campusTools && { campusTools: options.campusTools }),
  });
  const app = createApp(deps);
  let server: Listening | null = null;
  return {
    app,
    gw,
    budget,
    charges,
    waitForCharges: (count) => admission.charged(count),
    post: async (p, body) =>
      app.request(p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    chatCalls: () => gw.chatRequests().length,
    moderationCalls: () => gw.requests.filter((r) => r.path === '/v1/moderations').length,
    async listen() {
      server = await listen(app.fetch);
      return server.base;
    },
    async close() {
      await server?.close();
      await gw.close();
      await budget.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
