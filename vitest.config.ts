import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files only the full suite runs (`npm run test:full`, what CI runs): each starts the service or
 * its replicas as child processes, installs the production build, drives a browser, runs `npm run
 * eval` or stops a database under load. Everything else runs in-process against real parts (listening
 * servers, the MCP server, the fake gateway, Postgres) and is the fast loop, `npm test`.
 */
export const FULL_SUITE_ONLY = [
  'tests/chaos-database.test.ts', // 20 trials of a database stopped and restarted under streaming turns
  'tests/chaos-database-real.test.ts', // two replicas while a real PostgreSQL is killed and started again
  'tests/postgres-driver-return.test.ts', // the pool under load while a real PostgreSQL is killed and started again
  'tests/job-queue-takeover.test.ts', // a replica killed mid-job, its job taken over
  'tests/replicas-burst.test.ts', // two service processes on one real Postgres, 120 turns at once
  'tests/production-entry.test.ts', // `npm ci --omit=dev` with a native build, then the production entry
  'tests/playground-browser.test.ts', // headless Chromium against the playground
  'tests/eval.test.ts', // `npm run eval` as a child process
  'tests/lifecycle.test.ts', // SIGTERM drains of a service process
  'tests/deploy-spawn-service.test.ts', // the real entry point as child processes: ports, health, SIGTERM, refused starts
  'tests/deploy-dockerfile.test.ts', // the HEALTHCHECK command run against a spawned service, a running and a stopped one
  'tests/deploy-script.test.ts', // `npm run deploy` as a child process against a fake platform over HTTP
  'tests/memory-e2e.test.ts', // memory over real HTTP on PGlite, ending with the real entry point stopped by SIGTERM after a turn
  'tests/memory-near-budget.test.ts', // the real entry point near its daily limit: the fact is still stored
  'tests/telemetry-export.test.ts', // a spawned service exporting to a collector over OTLP
  'tests/zero-config-run.test.ts', // `npm start` with no configuration, as a child process
  'tests/campus-startup.test.ts', // spawned services with good and malformed catalog files
  'tests/sandbox-main.test.ts', // `npm run sandbox:tools` as a child process
  'tests/chat-client-session.test.ts', // the terminal client against a zero-config service, then scripts/chat.ts as a child process
  'tests/answer-cap.test.ts', // RSS bounds of a spawned service under endless answers
  'tests/client-dead-ends.test.ts', // 10 chats of 3.5 MB against a spawned service
  'tests/db-memory-store.test.ts', // the database stopped and restarted under the service
  'tests/leak-suite.test.ts', // every secret kind under every transformation, through both routes (CPU-bound, ~20 s)
  'tests/runs-producer-killed.test.ts', // the real entry point producing a run, SIGKILLed, its run read on two replicas
  'tests/spend-sqlite-processes.test.ts', // four worker processes racing reservations on one SQLite file
];

/** `npm run test:full` sets it: the in-process files, then the list above. */
const full = process.env.CAMPUS_FULL_SUITE === '1';

const shared = { pool: 'forks' as const, testTimeout: 30_000, hookTimeout: 60_000 };

// Tests start real servers (HTTP, MCP, PGlite over the wire protocol), in forks with generous timeouts
// instead of fixed sleeps. Two projects, run one after the other (`groupOrder`):
// - `in-process`, the fast loop: two files at once (they wait on sockets more than they compute),
//   sharing each fork's module cache between its files (no test patches a global; importing the
//   service once per fork instead of once per file is half the time): 42 s against 160 s on a 2-core
//   machine.
// - `processes`, only in the full suite: FULL_SUITE_ONLY one file at a time, isolated, since their
//   memory bounds, wall-clock deadlines and process kills are measured without a neighbour.
// Until 2026-11-28 the full suite ran every file one at a time; the in-process files in two workers
// cut each Node's run in CI by minutes (docs/perf-log/2026-11-28-ci-time.md).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          ...shared,
          name: 'in-process',
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...FULL_SUITE_ONLY],
          maxWorkers: 2,
          isolate: false,
          sequence: { groupOrder: 0 },
        },
      },
      ...(full
        ? [
            {
              test: {
                ...shared,
                name: 'processes',
                include: FULL_SUITE_ONLY,
                fileParallelism: false,
                isolate: true,
                sequence: { groupOrder: 1 },
              },
            },
          ]
        : []),
    ],
  },
});
