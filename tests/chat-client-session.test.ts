/**
 * The terminal client against the real service started with no configuration: answers stream with
 * status lines, map links and memory changes, the history goes with the next turn, and /memory,
 * /forget and /forget-all work. Then the real `scripts/chat.ts` entry as a child process with piped
 * stdin against a service that has a shared secret, with the secret from the environment and a wrong
 * one from a flag.
 */
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runChat } from '../src/sandbox/chat/chat-session.js';
import { createServiceClient } from '../src/sandbox/chat/service-client.js';
import { REPO_ROOT, spawnService, type ServiceProcess } from './support/spawn-service.js';

const SECRET = 'chat-client-test-secret-0123456789abcdef';
let open: ServiceProcess;
let locked: ServiceProcess;

beforeAll(async () => {
  [open, locked] = await Promise.all([
    spawnService({ entry: 'source', env: {} }),
    spawnService({ entry: 'source', env: { AGENT_SHARED_SECRET: SECRET } }),
  ]);
});

afterAll(async () => {
  await Promise.all([open?.stop(), locked?.stop()]);
});

/** Collects a stream's text and resolves waits when it matches; no sleeps. */
function capture(stream: NodeJS.ReadableStream) {
  let text = '';
  const waiters: Array<{ re: RegExp; resolve: () => void }> = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (const w of waiters.splice(0)) {
      if (w.re.test(text)) w.resolve();
      else waiters.push(w);
    }
  });
  return {
    get text() {
      return text;
    },
    /** Resolves once the whole output so far matches `re`. */
    until(re: RegExp): Promise<void> {
      return re.test(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ re, resolve }));
    },
  };
}

describe('chat session against the zero-config service', () => {
  it('streams answers, shows status, map and memory lines, keeps history, and manages memory', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const out = capture(output);
    const bodies: Array<{ message_history: unknown[] }> = [];
    const recordingFetch: typeof fetch = async (url, init) => {
      if (String(url).endsWith('/agent/respond/stream')) bodies.push(JSON.parse(String(init?.body)));
      return fetch(url, init);
    };
    const user = `chat-${process.pid}`;
    const session = runChat({
      client: createServiceClient({ url: open.url, secret: null, fetch: recordingFetch }),
      userId: user,
      disabledTools: [],
      input,
      output,
    });
    const promptCount = () => out.text.split('you> ').length - 1;
    const send = async (line: string) => {
      const before = promptCount();
      input.write(`${line}\n`);
      await out.until(new RegExp(`(?:[\\s\\S]*?you> ){${before + 1}}`));
    };

    await send('Where is Gates?');
    // Piped output: each status is a line of its own, its ellipsis not doubled.
    expect(out.text).toContain("  Checking campus tools...\n");
    expect(out.text).not.toMatch(/…\s*Checking|\.{4}/);
    // Markdown rendered for the terminal (no colours: the output is not a TTY), not raw asterisks.
    expect(out.text).toMatch(/assistant> Gates & Hillman Centers \(GHC\): the School of Computer Science \(the CS\s+building\),\s+Gates\s+Café\.[\s\S]*?It\s+is\s+marked\s+on\s+the\s+campus\s+map\s+that\s+comes\s+with\s+this\s+answer\.\n\n  🗺  Map \(Gates & Hillman Centers\): https:\/\/maps\.scottylabs\.org\/GHC\?dst=GHC\n/);
    expect(out.text).not.toContain('**');
    expect(out.text).toContain('  🗺  Map (Gates & Hillman Centers): https://maps.scottylabs.org/GHC?dst=GHC\n');
    expect(out.text).toContain('  (tools: maps_search_buildings)\n');

    await send('Please remember that I am vegetarian');
    expect(out.text).toContain('  🧠 Saved to memory: Is vegetarian\n');
    // The second turn carried the first as history.
    expect(bodies[1]!.message_history).toEqual([
      { role: 'user', content: 'Where is Gates?' },
      { role: 'assistant', content: expect.stringContaining('Gates & Hillman Centers') },
    ]);

    await send('/memory');
    expect(out.text).toContain('  1. Is vegetarian  [remembered]\n');
    await send('/history');
    expect(out.text).toContain('you> Where is Gates?\n');
    expect(out.text).not.toContain('user>');
    await send('/forget 1');
    expect(out.text).toContain('Forgot: Is vegetarian\n');
    expect((await (await fetch(`${open.url}/memory/${user}`)).json()).total).toBe(0);

    await send('Please remember that I like pizza');
    await send('/forget-all');
    expect(out.text).toContain('Forgot everything (1 item).\n');
    await send('/memory');
    expect(out.text).toMatch(/Nothing remembered yet\.\nyou> $/);

    // A bus question, rendered like any answer (issue 48).
    await send('can I ride the PRT for free with my CMU ID?');
    expect(out.text).toContain('Riding PRT with your CMU ID');
    expect(out.text).toContain('  (tools: bus_get_cmu_prt_rider_guide)\n');

    input.end();
    await session;
    expect(out.text).toMatch(/Bye\.\n$/);
  });
});

/** What a terminal shows after `raw`: carriage returns go back to the line start, ESC[2K erases the line. */
function screen(raw: string): string[] {
  return raw.split('\n').map((row) => {
    let line = '';
    for (const part of row.split(/(\r|\u001b\[2K)/)) {
      if (part === '\r') line = '';
      else if (part === '\u001b[2K') line = '';
      else line += part.replace(/\u001b\[[0-9;]*m/g, '');
    }
    return line;
  });
}

describe('chat session on a terminal', () => {
  it('draws status lines in place and erases them, and wraps answers to the width at word boundaries', async () => {
    const input = new PassThrough();
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 48 });
    const out = capture(output);
    const session = runChat({ client: createServiceClient({ url: open.url, secret: null }), userId: null, disabledTools: [], input, output });
    // A building's dining places: the list holds the same places at any hour (what is open "right now"
    // changes with the clock, and in the evening no longer held the place this test looks for).
    input.write('Where can I eat in the Cohon Center?\n');
    await out.until(/[\s\S]*you> [\s\S]*you> $/);
    input.end();
    await session;
    // The status was drawn (in place, no newline after it) and is gone from what the terminal shows.
    expect(out.text).toMatch(/\r\u001b\[2K {2}Checking campus tools\.\.\.(?!\n)/);
    const shown = screen(out.text);
    expect(shown.join('\n')).not.toContain('Checking campus tools');
    expect(shown.join('\n')).not.toContain('Writing answer');
    // Every answer line fits 47 columns, broken between words: each word is one the answer has.
    const answer = shown.slice(shown.findIndex((l) => l.startsWith('assistant>')), shown.findIndex((l) => l.startsWith('  (tools:')));
    expect(answer.length).toBeGreaterThan(10);
    for (const l of answer) expect([...l].length, l).toBeLessThanOrEqual(47);
    const body = await (await fetch(`${open.url}/agent/respond`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'Where can I eat in the Cohon Center?' }) })).json();
    const words = new Set(String(body.response_text).replace(/[*#]/g, '').split(/\s+/));
    const shownWords = answer.join(' ').replace(/^assistant>/, '').split(/\s+/).filter((w) => w && !/^[-*•]$/.test(w) && w !== 'assistant>');
    for (const w of shownWords) expect(words, `"${w}" is not a word of the answer`).toContain(w);
    // List items continue under their text, not under the bullet.
    const item = answer.findIndex((l) => /^\s*[-*•] Schatz Dining Room/.test(l));
    expect(item).toBeGreaterThan(0);
    const indent = /^(\s*[-*•] )/.exec(answer[item]!)![1]!.length;
    expect(answer[item + 1]!.startsWith(' '.repeat(indent))).toBe(true);
  });
});

describe('Ctrl-C in the chat session', () => {
  it('stops the answer being written, and a second Ctrl-C quits', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const out = capture(output);
    const interrupts = new EventEmitter();
    const aborted: boolean[] = [];
    const watchingFetch: typeof fetch = async (url, init) => {
      init?.signal?.addEventListener('abort', () => aborted.push(true));
      return fetch(url, init);
    };
    const session = runChat({ client: createServiceClient({ url: open.url, secret: null, fetch: watchingFetch }), userId: null, disabledTools: [], input, output, interrupts });
    input.write('hi\n');
    // The offline model paces its pieces (15 ms each): the first block arrives well before the last.
    await out.until(/assistant> Hello!/);
    interrupts.emit('interrupt');
    await out.until(/Answer stopped\. Press Ctrl-C again or Ctrl-D to quit\.\)\n\s*you> $/);
    expect(aborted).toEqual([true]);
    expect(out.text).not.toContain('What do you know about me?');
    // Still usable: the next question is answered.
    input.write('Where is Wean Hall?\n');
    await out.until(/assistant> Wean Hall \(WEH\)[\s\S]*you> $/);
    // Ctrl-C at the prompt asks first, then quits.
    interrupts.emit('interrupt');
    expect(out.text).toMatch(/\(Press Ctrl-C again or Ctrl-D to quit\.\)\nyou> $/);
    interrupts.emit('interrupt');
    await session;
    expect(out.text).toMatch(/Bye\.\n$/);
    expect(interrupts.listenerCount('interrupt')).toBe(0);
  });
});

describe('npm run chat entry', () => {
  function runCli(args: string[], env: Record<string, string>, stdin: string) {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/chat.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out = capture(child.stdout);
    child.stdin.end(stdin);
    return new Promise<{ code: number | null; stdout: string }>((resolve) =>
      child.on('close', (code) => resolve({ code, stdout: out.text })),
    );
  }

  it('takes the secret from AGENT_SHARED_SECRET and the URL from --url', async () => {
    const r = await runCli(['--url', locked.url, '--anonymous'], { AGENT_SHARED_SECRET: SECRET }, 'Where is Wean Hall?\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Campus assistant at ${locked.url}`);
    expect(r.stdout).toContain('assistant> Wean Hall (WEH)');
    expect(r.stdout).toContain('https://maps.scottylabs.org/WEH?dst=WEH');
  });

  it('stops an answer on SIGINT (Ctrl-C) and quits on the second', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/chat.ts', '--url', open.url, '--anonymous'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out = capture(child.stdout);
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdin.write('hi\n');
    await out.until(/assistant> Hello!/);
    child.kill('SIGINT');
    await out.until(/Answer stopped/);
    child.kill('SIGINT');
    expect(await closed).toBe(0);
    expect(out.text).toMatch(/Bye\.\n$/);
    expect(out.text).not.toContain('What do you know about me?');
  });

  it('reports a wrong --secret as the service envelope, without the secret', async () => {
    const r = await runCli(['--url', locked.url, '--secret', 'wrong-secret-value'], {}, 'hello\n/memory\n');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('error: unauthorized: the service wants a bearer token');
    expect(r.stdout).not.toContain('wrong-secret-value');
  });
});
