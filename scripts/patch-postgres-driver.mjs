#!/usr/bin/env node
/**
 * Mends a defect of the `postgres` driver (3.4.9, the newest release) that makes the service's queries
 * fail for up to two minutes after the database comes back (issue 79, docs/design/database.md). Run as
 * npm's `postinstall` step, so every install (a developer's, CI's, the image's `npm ci --omit=dev`) gets
 * the mended driver; a second run changes nothing.
 *
 * The defect: when a connection's socket closes, the driver's `closed()` clears the write it had
 * scheduled but keeps the timer's handle, the unsent bytes, the query in flight and the server's error
 * for it. The connection object is reused for the next socket, and there:
 * - the kept handle stops every later small write from being scheduled, so the next startup message is
 *   never sent and the connection waits out `connect_timeout` (CONNECT_TIMEOUT), again at each retry
 *   until the kept bytes pass 1 KiB and go out as garbage;
 * - the kept error (`57P01`, the server's shutdown notice) fails the first query of the new socket;
 * - a write scheduled before the close can still run with no socket (`nextWrite`, "reading 'write' of
 *   null"), thrown from a timer where no caller can catch it.
 * Reported upstream (porsager/postgres issues 1066, 1154, 1208; fixes proposed, none released).
 *
 * A second defect, of the pool (`index.js`, upstream issue 747): a query that arrives while every
 * connection is connecting waits in the pool's queue, and a query that arrives once a connection is busy
 * is pipelined onto it at once, ahead of the queue. The queue is read again only when a connection's
 * pipeline runs dry, which under steady load can take seconds: after an outage, the queries that waited
 * for the database waited 5-8 s more behind newer ones (CI, 2026-11-29, 3 of 4 outages).
 *
 * The mend: `closed()` drops what belonged to the closed socket (the timer, the bytes, the error, the
 * result so far), failing the queries still waiting on it with CONNECTION_CLOSED as the driver already
 * does; `nextWrite` with no socket fails the waiting queries instead of throwing; a query that would be
 * pipelined onto a busy connection while others wait in the queue joins the queue's end, and the
 * queue's first query is pipelined instead (first come, first served). Measured before and after on a
 * real PostgreSQL killed under load (docs/perf-log/2026-11-29-database-return.md).
 *
 * The way back: when a release fixes this, delete this file and the `postinstall` line, and the
 * test tests/postgres-driver-return.test.ts says whether the release holds. A driver whose source no
 * longer has the lines mended here fails the install with that advice, so an upgrade is a decision.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const driver = join(root, 'node_modules', 'postgres');
/** The mended files carry this line, so a second run (and the test) can tell. */
const MARK = '/* campus-agent: mended by scripts/patch-postgres-driver.mjs */';
/** What the connection modules carried before the pool's edit joined (an install mended then needs only the pool's). */
const EARLIER_MARK = '/* campus-agent: closed connections forget their socket (scripts/patch-postgres-driver.mjs) */';
const mended = (text) => text.includes(MARK) || text.includes(EARLIER_MARK);

/**
 * Each edit: the driver's modules it applies to (ESM, what the service imports, and CommonJS, what
 * `require` gets), lines of the driver's own (found once in each), and what is inserted after them.
 */
const CONNECTION = ['src/connection.js', 'cjs/src/connection.js'];
const POOL = ['src/index.js', 'cjs/src/index.js'];
const EDITS = [
  {
    name: 'nextWrite with no socket',
    files: CONNECTION,
    after: `  function nextWrite(fn) {
`,
    insert: `    ${MARK}
    if (!socket) {
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
`,
  },
  {
    name: 'closed() forgets the closed socket',
    files: CONNECTION,
    after: `    connectTimer.cancel()

    socket.removeAllListeners()
    socket = null
`,
    insert: `    nextWriteTimer = chunk = null
    if (query || sent.length) {
      const lost = Errors.connection('CONNECTION_CLOSED', options)
      query && queryError(query, lost)
      while (sent.length)
        queryError(sent.shift(), lost)
    }
    query = results = errorResponse = null
    result = new Result()
`,
  },
  {
    name: 'a busy connection takes the queue first',
    files: POOL,
    after: `    if (closed.length)
      return connect(closed.shift(), query)

`,
    // A reservation (`sql.reserve()`) waits for a whole connection, which only a connection that runs dry
    // gives: it keeps its wait, moved behind the queries it was ahead of.
    insert: `    ${MARK}
    if (busy.length && queries.length) {
      const first = queries.shift()
      if (!first.reserve) {
        queries.push(query)
        return go(busy.shift(), first)
      }
      queries.push(first)
    }

`,
  },
];

/** Every module an edit applies to. */
const FILES = [...new Set(EDITS.flatMap((edit) => edit.files))];

/** True when every module of the installed driver that an edit applies to is mended. */
function isPatched() {
  return FILES.every((f) => mended(readFileSync(join(driver, f), 'utf8')));
}

function patch() {
  if (!existsSync(join(driver, 'package.json'))) {
    console.log('patch-postgres-driver: the postgres driver is not installed here; nothing to mend');
    return;
  }
  const { version } = JSON.parse(readFileSync(join(driver, 'package.json'), 'utf8'));
  let changed = 0;
  for (const f of FILES) {
    const path = join(driver, f);
    let text = readFileSync(path, 'utf8');
    if (mended(text)) continue;
    changed++;
    for (const edit of EDITS.filter((e) => e.files.includes(f))) {
      if (text.split(edit.after).length !== 2) {
        console.error(
          `patch-postgres-driver: postgres ${version}'s ${f} no longer has the lines of "${edit.name}". If this release fixes ` +
            'the defects mended here (run tests/postgres-driver-return.test.ts on a real PostgreSQL), delete ' +
            'scripts/patch-postgres-driver.mjs and the postinstall step; otherwise bring the edit up to date.',
        );
        process.exit(1);
      }
      text = text.replace(edit.after, edit.after + edit.insert);
    }
    writeFileSync(path, text);
  }
  console.log(`patch-postgres-driver: postgres ${version} ${changed > 0 ? 'mended' : 'already mended'} (closed connections forget their socket; the pool serves its queue first)`);
}

// `--check`: exits 0 when the installed driver is mended, 1 when not (tests/postgres-driver-return.test.ts).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) process.exit(isPatched() ? 0 : 1);
  patch();
}
