/**
 * `GET /api/health` (CONTRACT.md "Health"): 200 `ok`, or 503 `degraded` when the memory store cannot
 * be queried. Also the background job queue's depth and oldest waiting job (null when unreadable). Open without auth: the platform's health check calls it.
 */
import { Hono } from 'hono';
import type { AppDeps } from '../deps.js';
import { healthSchema } from './response-schemas.js';
import { EXAMPLES } from './examples.js';
import { errors, json, route } from './route-docs.js';

const docs = route({
  summary: 'Readiness: 200 ok, or 503 degraded when the memory store cannot be queried',
  description: 'Open (no token): for the platform\'s probes. The memory store (its backend and whether it answers), the model\'s mode and the background job queue\'s depth, without naming where anything is.',
  tags: ['operations'],
  open: true,
  responses: {
    200: json('ready', healthSchema, EXAMPLES.health),
    503: json('degraded: the memory store cannot be queried', healthSchema, { ...EXAMPLES.health, status: 'degraded', memory: { ...EXAMPLES.health.memory, ready: false } }),
    ...errors([]),
  },
});

export function createHealthRoutes(deps: Pick<AppDeps, 'memory' | 'config' | 'jobs'>) {
  return new Hono().get('/api/health', docs, async (c) => {
    const [memory, queue] = await Promise.all([deps.memory.health(), deps.jobs.health()]);
    const status = memory.ready ? 'ok' : 'degraded';
    return c.json(
      {
        status,
        memory,
        model: { mode: deps.config.gateway.apiKey ? 'gateway' : 'offline' },
        // Reported, never a reason for 503: a busy queue is not an unhealthy replica.
        queue,
      },
      memory.ready ? 200 : 503,
    );
  });
}
