/**
 * The interactive session of `npm run chat`, written against plain streams so a test can drive it
 * with piped input: reads a line, streams the answer as it arrives (Markdown rendered for the terminal
 * block by block), prints status lines while tools run, the map as a link line and memory changes,
 * keeps the conversation history for the next turn, and handles the slash commands (/memory,
 * /forget <n>, /forget-all, /history, /new, /help, /quit). Ctrl-C (an `interrupt`) stops the answer
 * being written by aborting its request; a second Ctrl-C, or Ctrl-D (end of input), quits. The same
 * labels everywhere: `you>` for the user, `assistant>` for answers. On a terminal a status line
 * ("Checking campus tools...") is transient: it is drawn in place and erased by what comes next, so
 * the scrollback keeps the answer only; piped output gets each status as a line of its own. Answers are
 * wrapped to the terminal's width (80 columns when it has none).
 */
import { createInterface } from 'node:readline';
import type { MemoryItem, ServiceClient } from './service-client.js';
import { ServiceError } from './service-client.js';
import { MarkdownBlocks, createTerminalMarkdown, type RenderMarkdown } from './terminal-markdown.js';

/** Where interrupts (Ctrl-C) come from: scripts/chat.ts forwards SIGINT; a test emits them. */
export interface Interrupts {
  on(event: 'interrupt', listener: () => void): unknown;
  off(event: 'interrupt', listener: () => void): unknown;
}

export interface ChatSessionOptions {
  client: ServiceClient;
  /** Null: anonymous turns (no memory). */
  userId: string | null;
  /** Tool groups to switch off (`disabled_tools`). */
  disabledTools: string[];
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  interrupts?: Interrupts;
  /** Markdown to terminal text; marked-terminal at the output's width by default. */
  render?: RenderMarkdown;
}

/** What a terminal output stream has and a pipe lacks. */
type MaybeTerminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Moves to the start of the line and erases it. */
const CLEAR_LINE = '\r\u001b[2K';

const LABEL = { user: 'you>', assistant: 'assistant>' } as const;
const QUIT_HINT = '(Answer stopped. Press Ctrl-C again or Ctrl-D to quit.)';

const HELP = [
  'Type a question and press Enter. Commands:',
  '  /memory        list what the assistant remembers about you',
  '  /forget <n>    delete item n of the last /memory list',
  '  /forget-all    delete everything remembered about you',
  '  /history       show this conversation',
  '  /new           start a new conversation (memory is kept)',
  '  /quit          leave (or Ctrl-D; Ctrl-C stops an answer, twice quits)',
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
  const terminal = output as MaybeTerminal;
  const transientStatus = terminal.isTTY === true;
  /** A status line is on screen (terminal only): the next write erases it first. */
  let statusShown = false;
  const write = (s: string) => {
    if (statusShown) {
      output.write(CLEAR_LINE);
      statusShown = false;
    }
    output.write(s);
  };
  const showStatus = (text: string) => {
    output.write(`${CLEAR_LINE}  ${text}`);
    statusShown = true;
  };
  const history: Array<{ role: 'user' | 'assistant'; content: string }> = [];
  let lastList: MemoryItem[] = [];

  const render = options.render ?? createTerminalMarkdown({ width: terminal.columns && terminal.columns > 20 ? terminal.columns - 1 : 80 });
  let current: AbortController | null = null;
  /** A Ctrl-C happened and no line was entered since: the next one quits. */
  let armed = false;

  async function turn(query: string): Promise<void> {
    let atLineStart = true;
    let streamed = '';
    let answerStarted = false;
    const blocks = new MarkdownBlocks();
    const after: string[] = [];
    const line = (s: string) => {
      write(`${atLineStart ? '' : '\n'}${s}\n`);
      atLineStart = true;
    };
    const printAnswer = (markdown: string) => {
      if (!markdown.trim()) return;
      const text = render(markdown);
      if (!text) return;
      line(answerStarted ? `${text}\n` : `${LABEL.assistant} ${text}\n`);
      answerStarted = true;
    };
    const controller = new AbortController();
    current = controller;
    try {
      for await (const event of client.streamTurn(
        {
          query,
          ...(userId ? { user_id: userId } : {}),
          message_history: history.slice(-40),
          disabled_tools: options.disabledTools,
        },
        controller.signal,
      )) {
        const data = event.data as Record<string, unknown>;
        if (event.type === 'status') {
          if (transientStatus && atLineStart) showStatus(String(data.text));
          else line(`  ${data.text}`);
        }
        else if (event.type === 'delta') {
          streamed += String(data.text);
          printAnswer(blocks.push(String(data.text)));
        } else if (event.type === 'map') {
          // The map and memory lines go below the answer they belong to.
          const map = data as unknown as MapData;
          const label = map.mode === 'directions' ? `${map.src_label} → ${map.dest_label}` : map.target_label;
          if (map.url) after.push(`  🗺  Map (${label}): ${map.url}`);
        } else if (event.type === 'memory') after.push(`  🧠 ${data.text}`);
        else if (event.type === 'done') {
          const text = String(data.response_text ?? '');
          printAnswer(blocks.end());
          // done.response_text is authoritative; show it whole if the stream carried something else.
          if (text !== streamed) {
            answerStarted = false;
            printAnswer(text);
          }
          for (const l of after.splice(0)) line(l);
          const used = (data.services_used as string[] | undefined) ?? [];
          if (used.length) line(`  (tools: ${used.join(', ')})`);
          history.push({ role: 'user', content: query }, { role: 'assistant', content: text });
        } else if (event.type === 'error') line(`error: ${data.error}: ${data.detail}`);
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      printAnswer(blocks.end());
      for (const l of after.splice(0)) line(l);
      line(`  ${QUIT_HINT}`);
    } finally {
      current = null;
    }
  }

  async function command(input: string): Promise<boolean> {
    const [name, arg] = input.split(/\s+/, 2);
    if (name === '/quit' || name === '/exit') return false;
    if (name === '/help') write(`${HELP}\n`);
    else if (name === '/history') {
      if (history.length === 0) write('(no messages yet)\n');
      for (const h of history) write(`${LABEL[h.role]} ${h.content}\n`);
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
  const onInterrupt = () => {
    if (current) {
      armed = true;
      current.abort();
    } else if (armed) rl.close();
    else {
      armed = true;
      write(`\n(Press Ctrl-C again or Ctrl-D to quit.)\n${LABEL.user} `);
    }
  };
  options.interrupts?.on('interrupt', onInterrupt);
  write(`Connected as ${userId ?? 'an anonymous user'}. /help for commands.\n${LABEL.user} `);
  for await (const raw of rl) {
    armed = false;
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
    write(`${LABEL.user} `);
  }
  rl.close();
  options.interrupts?.off('interrupt', onInterrupt);
  write('\nBye.\n');
}
