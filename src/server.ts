/**
 * Process entry: read the configuration, build the real dependencies, serve on 0.0.0.0:PORT, and on
 * SIGTERM/SIGINT drain: stop accepting, let in-flight requests and background tasks finish within
 * SHUTDOWN_TIMEOUT_MS, close stores and clients, exit 0. The only place that wires real dependencies.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import { createApp } from './app.js';
import { ConfigError, parseConfig, type Config } from './config.js';
import type { AppDeps } from './deps.js';
import { createBackgroundTasks } from './lifecycle/background-tasks.js';
import { createLogger, type Logger } from './logger.js';
import { createInMemoryStore } from './memory/in-memory-store.js';
import { collectSecrets } from './security/secrets.js';

/** Resources to release at shutdown, closed in reverse order of creation. */
type Closer = { name: string; close: () => Promise<unknown> };

async function buildDeps(config: Config, logger: Logger, closers: Closer[]): Promise<AppDeps> {
  const background = createBackgroundTasks(logger);
  const memory = createInMemoryStore({
    embeddingModel: config.embeddings.apiKey ? config.embeddings.model : null,
  });
  await memory.init();
  closers.push({ name: 'memory store', close: () => memory.close() });
  return { config, logger, memory, background, now: () => new Date() };
}

function listen(app: ReturnType<typeof createApp>, port: number): Promise<ServerType> {
  return new Promise((resolve) => {
    const server = serve({ fetch: app.fetch, port, hostname: '0.0.0.0' }, () => resolve(server));
  });
}

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
  const logger = createLogger({ level: config.logLevel, secrets: collectSecrets(config) });
  if (config.env !== 'production' && config.defaultsInForce.length > 0) {
    logger.info('local defaults in force', { defaults: config.defaultsInForce });
  }

  const closers: Closer[] = [];
  const deps = await buildDeps(config, logger, closers);
  const app = createApp(deps);
  const server = (await listen(app, config.port)) as Server;
  const address = server.address();
  logger.info('listening', {
    host: '0.0.0.0',
    port: typeof address === 'object' && address ? address.port : config.port,
    env: config.env,
  });

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const deadline = Date.now() + config.shutdownTimeoutMs;
    logger.info('shutting down', { signal, timeout_ms: config.shutdownTimeoutMs });
    // Stop accepting; idle keep-alive sockets would otherwise hold close() open.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const idleSweep = setInterval(() => server.closeIdleConnections(), 250);
    const inFlightDone = await Promise.race([
      closed.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), Math.max(0, deadline - Date.now()))),
    ]);
    clearInterval(idleSweep);
    if (!inFlightDone) {
      logger.warn('shutdown deadline reached with requests in flight; closing connections');
      server.closeAllConnections();
    }
    deps.background.close();
    const drained = await deps.background.drain(Math.max(0, deadline - Date.now()));
    if (!drained) logger.warn('shutdown deadline reached with background tasks pending', { pending: deps.background.pending });
    for (const c of closers.reverse()) {
      await c.close().catch((err: unknown) => logger.error('close failed', { resource: c.name, err }));
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`campus-agent: fatal error during start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
