/**
 * `GET /api/health` (CONTRACT.md "Health"): 200 `ok`, or 503 `degraded` when the memory store cannot
 * be queried. Open without auth: the platform's health check calls it.
 */
import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';

export function createHealthRoutes(deps: Pick<AppDeps, 'memory' | 'config'>) {
  return new Hono().get('/api/health', async (c) => {
    const memory = await deps.memory.health();
    const status = memory.ready ? 'ok' : 'degraded';
    return c.json(
      {
        status,
        memory,
        model: { mode: deps.config.gateway.apiKey ? 'gateway' : 'offline' },
      },
      memory.ready ? 200 : 503,
    );
  });
}
