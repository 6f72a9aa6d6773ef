/**
 * `npm run chat`: an interactive terminal client for a running service. Defaults come from the same
 * configuration the service reads (AGENT_URL or PORT, AGENT_SHARED_SECRET); flags override them.
 */
import { EventEmitter } from 'node:events';
import { ConfigError, parseLocalToolsConfig } from '../src/config.js';
import { runChat } from '../src/sandbox/chat/chat-session.js';
import { USAGE, parseChatArgs } from '../src/sandbox/chat/options.js';
import { createServiceClient } from '../src/sandbox/chat/service-client.js';
import { createTerminalMarkdown } from '../src/sandbox/chat/terminal-markdown.js';

async function main(): Promise<void> {
  let defaults: { url: string; secret: string | null };
  try {
    const config = parseLocalToolsConfig(process.env);
    defaults = { url: config.agentUrl, secret: config.sharedSecret };
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`chat: ${err.message}\n`);
    process.exit(2);
  }
  let options;
  try {
    options = parseChatArgs(process.argv.slice(2), defaults);
  } catch (err) {
    process.stderr.write(`chat: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  process.stdout.write(`Campus assistant at ${options.url}\n`);
  // Ctrl-C stops the answer being written; the session decides when a second one quits.
  const interrupts = new EventEmitter();
  process.on('SIGINT', () => interrupts.emit('interrupt'));
  await runChat({
    interrupts,
    client: createServiceClient({ url: options.url, secret: options.secret }),
    userId: options.userId,
    disabledTools: options.disabledTools,
    input: process.stdin,
    output: process.stdout,
    render: createTerminalMarkdown({ width: Math.min(100, process.stdout.columns || 80) }),
  });
  // stdin may still be open (a quit by Ctrl-C): nothing else keeps the process.
  process.exit(0);
}

main().catch((err: unknown) => {
  process.stderr.write(`chat: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
