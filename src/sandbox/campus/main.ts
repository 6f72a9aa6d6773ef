/**
 * `npm run sandbox:tools`: the sandbox campus tool server on its own, for front-end developers and for
 * pointing a service at it through MCP_SERVER_URL. Port from SANDBOX_TOOLS_PORT (default 5050); stops
 * on SIGINT/SIGTERM.
 */
import { ConfigError, parseLocalToolsConfig } from '../../config.js';
import { createLogger } from '../../logger.js';
import { startSandboxToolServer } from './tool-server.js';

async function main(): Promise<void> {
  let config;
  try {
    config = parseLocalToolsConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`sandbox-tools: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel });
  // All interfaces: the point of running it standalone is to be reachable from a front end or container.
  const server = await startSandboxToolServer({ port: config.sandboxToolsPort, host: '0.0.0.0' });
  logger.info('sandbox campus tool server listening', {
    url: `http://127.0.0.1:${server.port}/mcp`,
    hint: `point the service at it with MCP_SERVER_URL=http://127.0.0.1:${server.port}/mcp`,
  });
  const stop = (signal: string) => {
    logger.info('sandbox campus tool server stopping', { signal });
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`sandbox-tools: failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
