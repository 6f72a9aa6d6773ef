/**
 * Structured JSON-lines logger. Callers pass fields, never user text or bodies; as a second line of
 * defence every line is passed through the leak policy (security/leak-policy.ts) before it is written.
 */
import type { LogLevel } from './config.js';
import { baseLeakPolicy, type LeakPolicy } from './security/leak-policy.js';

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; defaults to stdout. Tests pass an array push to capture them. */
  sink?: (line: string) => void;
  /** The service's leak policy; without one, key shapes and tokens are still redacted. */
  leaks?: LeakPolicy;
  clock?: () => Date;
  /** Fields of the current context added to every line (telemetry's `trace_id` and `span_id` when tracing is on). */
  context?: () => LogFields | undefined;
}

/**
 * Serialises an error for the log: name, its `code` when it has one (a system call's `ECONNRESET`, the
 * database driver's `CONNECTION_CLOSED`, a server's SQLSTATE: what an operator searches for), message
 * and the first stack frames; causes chained.
 */
export function describeError(err: unknown): LogFields {
  if (err instanceof Error) {
    const out: LogFields = { name: err.name, message: err.message };
    const code = (err as { code?: unknown }).code;
    if ((typeof code === 'string' && code.length <= 64) || typeof code === 'number') out.code = code;
    if (err.stack) out.stack = err.stack.split('\n').slice(0, 6).join('\n');
    if (err.cause !== undefined) out.cause = describeError(err.cause);
    return out;
  }
  return { message: String(err) };
}

export function createLogger(options: LoggerOptions = {}, bound: LogFields = {}): Logger {
  const level = RANK[options.level ?? 'info'];
  const sink = options.sink ?? ((line: string) => process.stdout.write(line + '\n'));
  const leaks = options.leaks ?? baseLeakPolicy;
  const clock = options.clock ?? (() => new Date());
  const write = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    if (RANK[lvl] < level) return;
    const record: LogFields = { ts: clock().toISOString(), level: lvl, msg, ...options.context?.(), ...bound, ...fields };
    if (record.err !== undefined) record.err = describeError(record.err);
    sink(leaks.redact(JSON.stringify(record)));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger(options, { ...bound, ...fields }),
  };
}

/** A logger that drops everything; for tests that do not look at logs. */
export const silentLogger: Logger = createLogger({ level: 'silent' });
