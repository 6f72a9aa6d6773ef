/**
 * Starts the real service entry point as a child process, the way the platform does: a clean
 * environment, SIGTERM to stop. Tests wait on events (the `listening` log line, the exit event), never
 * on fixed sleeps; every wait has a timeout whose error says what was awaited and shows the output.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is tests/support/spawn-service.ts). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** One parsed JSON line of the service's stdout (src/logger.ts writes one object per line). */
export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

export interface ExitResult {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnServiceOptions {
  /** 'source': `node --import tsx src/server.ts` from the repo; 'dist': `node dist/src/server.js` from `cwd`. */
  entry: 'source' | 'dist';
  /** Working directory; defaults to the repo root. For 'dist', the directory holding `dist/` and `node_modules/`. */
  cwd?: string;
  /**
   * The child's whole environment besides PATH and HOME (nothing else is inherited). Defaults added
   * when absent: PORT=0 (a free port), LOG_LEVEL=info (the `listening` line is an info line), and
   * TOKEN_USAGE_DB in a fresh temp dir (the config default is shared by every process on the machine).
   */
  env?: Record<string, string | undefined>;
  /** Extra arguments for node before the entry file (e.g. `--max-old-space-size=160`). */
  nodeArgs?: string[];
  /** How long to wait for the `listening` line; default 30 s (tsx compiles on the fly). */
  startTimeoutMs?: number;
}

export interface ServiceProcess {
  /** `http://127.0.0.1:<port>` (the service binds 0.0.0.0, loopback reaches it). */
  url: string;
  port: number;
  /** Parsed JSON lines of stdout so far; the array grows as the service logs. */
  logs: LogLine[];
  /** Raw stdout so far. */
  readonly stdout: string;
  /** Raw stderr so far. */
  readonly stderr: string;
  /** The child process, for its pid (memory sampling) and to freeze it (SIGSTOP); stop it with `stop`. */
  child: ChildProcess;
  /** Settles when the process exits, however it exits. */
  exited: Promise<ExitResult>;
  /** Resolves with the first log line (already seen or future) matching; rejects on timeout or exit. */
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /**
   * Sends `signal` and waits for the exit. Past `timeoutMs` (default 25 s, above the service's 15 s
   * drain deadline) the process is killed and the promise rejects. Calling it after exit returns the result.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitResult>;
}

/** A process started without waiting for `listening`: for starts that are expected to fail. */
export interface RawServiceProcess extends Omit<ServiceProcess, 'url' | 'port'> {}

// Children still running when the test process exits (a failed test skipped its stop) are killed, so
// a red test run does not leave servers bound to ports.
const running = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of running) c.kill('SIGKILL');
    });
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
}

function tail(text: string, lines = 20): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

/** Starts the entry point and returns at once; `waitForLog`/`exited` observe it. */
export function startServiceProcess(options: SpawnServiceOptions): RawServiceProcess {
  const cwd = options.cwd ?? REPO_ROOT;
  const entryArgs = options.entry === 'source' ? ['--import', 'tsx', 'src/server.ts'] : ['dist/src/server.js'];
  const entryFile = join(cwd, options.entry === 'source' ? 'src/server.ts' : 'dist/src/server.js');
  if (!existsSync(entryFile)) {
    throw new Error(`spawnService: ${entryFile} does not exist${options.entry === 'dist' ? ' (run `npm run build` first)' : ''}`);
  }

  const given = Object.fromEntries(Object.entries(options.env ?? {}).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
  let scratch: string | null = null;
  if (given.TOKEN_USAGE_DB === undefined) {
    scratch = mkdtempSync(join(tmpdir(), 'campus-agent-spawn-'));
    given.TOKEN_USAGE_DB = join(scratch, 'token-usage.sqlite');
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    PORT: '0',
    LOG_LEVEL: 'info',
    ...given,
  };

  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entryArgs], {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);

  let stdout = '';
  let stderr = '';
  let pending = '';
  const logs: LogLine[] = [];
  const lineListeners = new Set<(line: LogLine) => void>();
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    stdout += chunk;
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const text = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!text.startsWith('{')) continue;
      let line: LogLine;
      try {
        line = JSON.parse(text) as LogLine;
      } catch {
        continue; // not a log line; it stays in raw stdout
      }
      logs.push(line);
      for (const listener of lineListeners) listener(line);
    }
  });
  child.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });

  let result: ExitResult | null = null;
  const exited = new Promise<ExitResult>((resolveExit, rejectExit) => {
    child.once('error', rejectExit);
    // 'close' (not 'exit') so every byte of stdout/stderr has been read when it fires.
    child.once('close', (code, signal) => {
      result = { code, signal };
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      resolveExit(result);
    });
  });
  // A test that never awaits `exited` must not see an unhandled rejection for a spawn error.
  exited.catch(() => undefined);

  const describe = () => `\n--- stdout (tail) ---\n${tail(stdout)}\n--- stderr (tail) ---\n${tail(stderr)}`;

  const waitForLog: ServiceProcess['waitForLog'] = (predicate, timeoutMs = 30_000) => {
    const seen = logs.find(predicate);
    if (seen) return Promise.resolve(seen);
    return new Promise<LogLine>((resolveLine, rejectLine) => {
      const cleanup = () => {
        clearTimeout(timer);
        lineListeners.delete(onLine);
      };
      const onLine = (line: LogLine) => {
        if (!predicate(line)) return;
        cleanup();
        resolveLine(line);
      };
      const timer = setTimeout(() => {
        cleanup();
        rejectLine(new Error(`spawnService: no matching log line within ${timeoutMs} ms${describe()}`));
      }, timeoutMs);
      lineListeners.add(onLine);
      exited.then(
        (r) => {
          if (!lineListeners.has(onLine)) return;
          cleanup();
          rejectLine(new Error(`spawnService: process exited (code ${r.code}, signal ${r.signal}) before the awaited log line${describe()}`));
        },
        (err: unknown) => {
          cleanup();
          rejectLine(err);
        },
      );
    });
  };

  const stop: ServiceProcess['stop'] = async (signal = 'SIGTERM', timeoutMs = 25_000) => {
    if (result) return result;
    child.kill(signal);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const overdue = new Promise<never>((_, rejectStop) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        rejectStop(new Error(`spawnService: no exit within ${timeoutMs} ms of ${signal}; killed${describe()}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([exited, overdue]);
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    logs,
    get stdout() {
      return stdout;
    },
    get stderr() {
      return stderr;
    },
    child,
    exited,
    waitForLog,
    stop,
  };
}

/**
 * Starts the service and resolves once it logs `listening` with its real port. Rejects (and kills the
 * child) if it exits first or does not listen within `startTimeoutMs`.
 */
export async function spawnService(options: SpawnServiceOptions): Promise<ServiceProcess> {
  const level = options.env?.LOG_LEVEL?.trim().toLowerCase();
  if (level && !['debug', 'info'].includes(level)) {
    // Fail now rather than after the start timeout: `listening` is an info line.
    throw new Error(`spawnService: LOG_LEVEL=${level} hides the \`listening\` line it waits for; use info or debug`);
  }
  const proc = startServiceProcess(options);
  let listening: LogLine;
  try {
    listening = await proc.waitForLog(
      (l) => l.msg === 'listening' && typeof l.port === 'number',
      options.startTimeoutMs ?? 30_000,
    );
  } catch (err) {
    await proc.stop('SIGKILL').catch(() => undefined);
    throw err;
  }
  const port = listening.port as number;
  return Object.assign(proc, { url: `http://127.0.0.1:${port}`, port }) as ServiceProcess;
}

/** Runs the entry point until it exits on its own (a refused start); resolves with its output. */
export async function runServiceToExit(
  options: SpawnServiceOptions & { timeoutMs?: number },
): Promise<ExitResult & { stdout: string; stderr: string; logs: LogLine[] }> {
  const proc = startServiceProcess(options);
  const timeoutMs = options.timeoutMs ?? 30_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      proc.child.kill('SIGKILL');
      reject(new Error(`spawnService: still running after ${timeoutMs} ms; expected it to exit on its own\n${tail(proc.stdout)}`));
    }, timeoutMs);
  });
  try {
    const r = await Promise.race([proc.exited, overdue]);
    return { ...r, stdout: proc.stdout, stderr: proc.stderr, logs: proc.logs };
  } finally {
    clearTimeout(timer);
  }
}
