/**
 * Process entry: read the configuration, build the real dependencies (the composition root,
 * server/build-deps.ts), serve on 0.0.0.0:PORT, and on SIGTERM/SIGINT drain: stop accepting, let
 * in-flight requests finish, then close what the build opened (jobs, background tasks, clients, stores),
 * all within SHUTDOWN_TIMEOUT_MS, and exit 0.
 */
import type { Server } from 'node:http';
import { apiDocument } from './routes/api-docs.js';
import { createApp } from './app.js';
import { ConfigError, parseConfig, type Config } from './config.js';
import { settleWithin } from './lifecycle/settle-within.js';
import { createNodeHttpServer } from './node-http-server.js';
import { ShuttingDownError } from './pipeline/turn-errors.js';
import { createLogger } from './logger.js';
import { serviceReferencePrompts } from './memory/service-prompts.js';
import { leakPolicyFromConfig } from './security/leak-policy.js';
import { buildDeps, type BuiltDeps } from './server/build-deps.js';
import { noTelemetry, type Telemetry } from './telemetry/telemetry.js';

function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED']);

/** A fault thrown by the `postgres` driver's own socket handling, or a connection failure it did not route to a query. */
function isDatabaseDriverFault(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  return /[\\/]node_modules[\\/]postgres[\\/]/.test(err.stack ?? '') || (typeof code === 'string' && NETWORK_CODES.has(code));
}

/** Faults past this many in FAULT_WINDOW_MS mean the process is no longer sound: drain and exit 1. */
const FAULT_LIMIT = 10;
const FAULT_WINDOW_MS = 60_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = parseConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`campus-agent: refusing to start. ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const leaks = leakPolicyFromConfig(config, serviceReferencePrompts(config.campus));
  // Telemetry is chosen before the first line is written, so every line can carry its trace ids.
  let telemetry: Telemetry = noTelemetry;
  const logger = createLogger({ level: config.logLevel, leaks, context: () => telemetry.logFields() });
  if (config.telemetry) {
    // Loaded only when an OTLP endpoint is configured: without one, nothing of OpenTelemetry is imported.
    const { createOtelTelemetry } = await import('./telemetry/otel.js');
    telemetry = await createOtelTelemetry(config.telemetry, { userHashKey: config.sharedSecret, logger });
    logger.info('telemetry export on', {
      protocol: config.telemetry.protocol,
      traces: config.telemetry.tracesEndpoint !== null,
      metrics: config.telemetry.metricsEndpoint !== null,
      sampler: config.telemetry.sampler,
    });
  }
  if (config.env !== 'production' && config.defaultsInForce.length > 0) {
    logger.info('local defaults in force', { defaults: config.defaultsInForce });
  }

  let built: BuiltDeps;
  try {
    built = await buildDeps({ config, logger, leaks, telemetry });
  } catch (err) {
    // A start error can quote a connection string or a key: the message is redacted like every log line
    // (what the build had opened it closed itself).
    const message = leaks.redact(err instanceof Error ? err.message : String(err));
    process.stderr.write(`campus-agent: fatal error during start: ${message}\n`);
    process.exit(1);
  }
  const { deps } = built;
  // What the university pays for, named once at start (DEPLOY.md "Models, prices and spend caps").
  logger.info('models and spend', {
    allowed_models: deps.models.describe(),
    title_model: config.gateway.titleModel,
    extraction_model: config.gateway.extractionModel,
    priced_models: Object.keys(config.gateway.prices),
    daily_spend_limit_usd: config.budget.dailySpendLimitUsd,
    service_daily_spend_limit_usd: config.budget.serviceDailySpendLimitUsd,
  });
  const app = createApp(deps);
  // The OpenAPI document is made once, here at start, never per request.
  await apiDocument(app);
  const server = createNodeHttpServer(app.fetch, logger);
  await listen(server, config.port);
  const address = server.address();
  logger.info('listening', {
    host: '0.0.0.0',
    port: typeof address === 'object' && address ? address.port : config.port,
    env: config.env,
  });
  if (deps.playground) {
    // Outside production the playground is the way in: say where it is (loopback: the port is bound on every interface).
    logger.info('playground', { url: `http://localhost:${typeof address === 'object' && address ? address.port : config.port}/` });
  }

  let stopping = false;
  const shutdown = async (signal: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + config.shutdownTimeoutMs;
    // The last part of the bound is telemetry's, to send what it still buffers.
    const telemetryShare = Math.min(1_000, config.shutdownTimeoutMs / 10);
    // Turns still running this close to the deadline are ended by the service: their streams get the
    // `error` event (and a moment to flush it) before connections are closed.
    const endTurnsAt = deadline - Math.min(1_000, config.shutdownTimeoutMs / 4);
    logger.info('shutting down', { signal, timeout_ms: config.shutdownTimeoutMs });
    // Stop accepting; idle keep-alive sockets would otherwise hold close() open.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const idleSweep = setInterval(() => server.closeIdleConnections(), 250);
    const closedBy = (at: number) => settleWithin(closed.then(() => true), at - Date.now(), false);
    let inFlightDone = await closedBy(endTurnsAt);
    if (!inFlightDone) {
      const ended = deps.turns.abortAll(new ShuttingDownError());
      if (ended > 0) logger.warn('shutdown deadline near: ending the turns still running', { turns: ended });
      inFlightDone = await closedBy(deadline - telemetryShare);
    }
    clearInterval(idleSweep);
    if (!inFlightDone) {
      logger.warn('shutdown deadline reached with requests in flight; closing connections');
      server.closeAllConnections();
    }
    // What the build opened closes within what is left of the bound but telemetry's share: the job queue
    // (Postgres: what it holds is released to another replica), background tasks, then the clients and
    // stores. A part that cannot close by then (a database away) is given up with a log line.
    await built.close(Math.max(0, deadline - telemetryShare - Date.now()));
    // What telemetry still buffers is sent, within what is left of the bound: the process exits by the deadline.
    await settleWithin(telemetry.shutdown(), Math.max(0, deadline - Date.now()), undefined);
    logger.info('stopped');
    process.exit(exitCode);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // The last resort for a fault nothing caught (a driver's error on a dead socket, a rejected promise
  // nobody awaited). Policy: log it (redacted, like every line) and keep serving: such faults come from
  // one connection or one request, and exiting would cut every open stream without an `error` event.
  // A burst (FAULT_LIMIT within FAULT_WINDOW_MS) means the process is no longer sound: it drains like
  // on SIGTERM and exits 1 so the platform restarts it.
  const faults: number[] = [];
  const onFault = (kind: string) => (err: unknown) => {
    if (isDatabaseDriverFault(err)) {
      // Expected while the database is away (the driver's socket handling after a cut connection); the
      // store reports it as degraded health and failed memory calls. Never counted towards a burst.
      logger.warn(`${kind} in the database driver; kept serving`, { err });
      return;
    }
    logger.error(`${kind}; kept serving`, { err });
    const now = Date.now();
    faults.push(now);
    while (faults.length > 0 && faults[0]! < now - FAULT_WINDOW_MS) faults.shift();
    if (faults.length >= FAULT_LIMIT) {
      logger.error('too many uncaught faults; draining and exiting', { faults: faults.length, window_ms: FAULT_WINDOW_MS });
      void shutdown('fault burst', 1);
    }
  };
  process.on('uncaughtException', onFault('uncaught exception'));
  process.on('unhandledRejection', onFault('unhandled rejection'));
}

main().catch((err: unknown) => {
  process.stderr.write(`campus-agent: fatal error during start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
