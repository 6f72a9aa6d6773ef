/**
 * Two replicas of the service sharing one budget on Postgres, for the spend tests: each its own budget
 * store (and pool), admission, app and listening server, both talking to one fake gateway. Not a test file.
 */
import { noModeration } from '../../src/admission/admission.js';
import { createBudgetStoreFromConfig } from '../../src/admission/budget-store-from-config.js';
import { createAdmission, type AdmissionOptions } from '../../src/admission/create-admission.js';
import type { BudgetStore } from '../../src/admission/budget-store.js';
import { createApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { silentLogger, type Logger } from '../../src/logger.js';
import { createInMemoryStore } from '../../src/memory/in-memory-store.js';
import { createTestDeps } from './deps.js';
import { gatewayClient, type FakeGateway } from './fake-gateway.js';
import { listen, type Listening } from './listen.js';

export interface SpendReplicas {
  stores: BudgetStore[];
  servers: Listening[];
  /** A turn of `userId` ("hi" unless `query` says) on the JSON route of replica 0 or 1. */
  respond(replica: number, userId: string, query?: string): Promise<Response>;
  close(): Promise<void>;
}

export async function startSpendReplicas(
  config: Config,
  gw: FakeGateway,
  options: { logger?: Logger; metrics?: AdmissionOptions['metrics'] } = {},
): Promise<SpendReplicas> {
  const stores: BudgetStore[] = [];
  const servers: Listening[] = [];
  for (let i = 0; i < 2; i++) {
    const budget = await createBudgetStoreFromConfig(config);
    stores.push(budget);
    const admission = createAdmission({ budget, moderation: noModeration, config, logger: options.logger ?? silentLogger, now: () => new Date(), ...(options.metrics && { metrics: options.metrics }) });
    const deps = await createTestDeps({ config, gateway: gatewayClient(gw), admission, memory: createInMemoryStore({ embeddingModel: null }) });
    servers.push(await listen(createApp(deps).fetch));
  }
  return {
    stores,
    servers,
    respond: (replica, userId, query = 'hi') =>
      fetch(`${servers[replica]!.base}/agent/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, user_id: userId }),
      }),
    async close() {
      for (const s of servers) await s.close();
      for (const s of stores) await s.close();
    },
  };
}
