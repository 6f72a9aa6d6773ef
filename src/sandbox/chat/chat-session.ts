/**
 * The interactive session of `npm run chat`, written against plain streams so a test can drive it
 * with piped input: reads a line, streams the answer as it arrives, prints status lines while tools
 * run, the map link and memory changes, keeps the conversation history for the next turn, and handles
 * the slash commands (/memory, /forget <n>, /forget-all, /history, /new, /help, /quit).
 */
import { createInterface } from 'node:readline';
import type { MemoryItem, ServiceClient } from './service-client.js';
import { ServiceError } from './service-client.js';

export interface ChatSessionOptions {
  client: ServiceClient;
  /** Null: anonymous turns (no memory). */
  userId: string | null;
  /** Tool groups to switch off (`disabled_tools`). */
  disabledTools: string[];
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

const HELP = [
  'Type a question and press Enter. Commands:',
  '  /memory        list what the assistant remembers about you',
  '  /forget <n>    delete item n of the last /memory list',
  '  /forget-all    delete everything remembered about you',
  '  /history       show this conversation',
  '  /new           start a new conversation (memory is kept)',
  '  /quit          leave',
].join('\n');

interface MapData {
  url: string | null;
  mode: string | null;
  target_label: string | null;
  src_label: string | null;
  dest_label: string | null;
}

/** Runs until the input ends or the user quits. */
export async function runChat(options: ChatSessionOptions): Promise<void> {
  const { client, userId, output } = options;
  const write = (s: string) => void output.write(s);
  const history: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  let lastList: MemoryItem[] = [];

  async function turn(query: string): Promise<void> {
    let atLineStart = true;
    let streamed = '';
    const line = (s: string) => {
      write(`${atLineStart ? '' : '\n'}${s}\n`);
      atLineStart = true;
    };
    for await (const event of client.streamTurn({
      query,
      ...(userId ? { user_id: userId } : {}),
      message_history: history.slice(-40),
      disabled_tools: options.disabledTools,
    })) {
      const data = event.data as Record<string, unknown>;
      if (event.type === 'status') line(`  … ${data.text}`);
      else if (event.type === 'delta') {
        if (streamed === '') write(`${atLineStart ? '' : '\n'}assistant> `);
        streamed += String(data.text);
        write(String(data.text));
        atLineStart = false;
      } else if (event.type === 'map') {
        const map = data as unknown as MapData;
        const label = map.mode === 'directions' ? `${map.src_label} → ${map.dest_label}` : map.target_label;
        if (map.url) line(`  🗺  Map (${label}): ${map.url}`);
      } else if (event.type === 'memory') line(`  🧠 ${data.text}`);
      else if (event.type === 'done') {
        const text = String(data.response_text ?? '');
        // done.response_text is authoritative; show it if the stream carried something else.
        if (text !== streamed) line(`assistant> ${text}`);
        else if (!atLineStart) line('');
        const used = (data.services_used as string[] | undefined) ?? [];
        if (used.length) line(`  (tools: ${used.join(', ')})`);
        history.push({ role: 'user', content: query }, { role: 'assistant', content: text });
      } else if (event.type === 'error') line(`error: ${data.error}: ${data.detail}`);
    }
  }

  async function command(input: string): Promise<boolean> {
    const [name, arg] = input.split(/\s+/, 2);
    if (name === '/quit' || name === '/exit') return false;
    if (name === '/help') write(`${HELP}\n`);
    else if (name === '/history') {
      if (history.length === 0) write('(no messages yet)\n');
      for (const h of history) write(`${h.role}> ${h.content}\n`);
    } else if (name === '/new') {
      history.length = 0;
      write('Started a new conversation.\n');
    } else if (!userId && ['/memory', '/forget', '/forget-all'].includes(name!)) {
      write('Memory needs a user id: start with --user <id>.\n');
    } else if (name === '/memory') {
      const page = await client.listMemory(userId!);
      lastList = page.items;
      if (page.items.length === 0) write('Nothing remembered yet.\n');
      page.items.forEach((item, i) => write(`  ${i + 1}. ${item.text}  [${item.type}]\n`));
    } else if (name === '/forget') {
      const item = lastList[Number(arg) - 1];
      if (!item) write('Usage: /forget <n>, with n from the last /memory list.\n');
      else {
        await client.deleteMemory(userId!, item);
        lastList = lastList.filter((x) => x !== item);
        write(`Forgot: ${item.text}\n`);
      }
    } else if (name === '/forget-all') {
      const removed = await client.clearMemory(userId!);
      lastList = [];
      write(`Forgot everything (${removed} item${removed === 1 ? '' : 's'}).\n`);
    } else write(`Unknown command ${name}. ${HELP}\n`);
    return true;
  }

  const rl = createInterface({ input: options.input, crlfDelay: Infinity, terminal: false });
  write(`Connected as ${userId ?? 'an anonymous user'}. /help for commands.\nyou> `);
  for await (const raw of rl) {
    const text = raw.trim();
    if (text) {
      try {
        if (text.startsWith('/')) {
          if (!(await command(text))) break;
        } else await turn(text);
      } catch (err) {
        write(err instanceof ServiceError ? `error: ${err.message}\n` : `error: cannot reach the service (${(err as Error).message})\n`);
      }
    }
    write('you> ');
  }
  rl.close();
  write('\nBye.\n');
}
