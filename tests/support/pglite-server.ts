/**
 * A local Postgres with pgvector for tests, benches and `scripts/dev-postgres.ts`: PGlite with its
 * vector extension, served over the Postgres wire protocol so the service connects through
 * DATABASE_URL with the same `postgres` driver as in production.
 *
 * Why not PGLiteSocketServer alone: PGlite is one backend, and the socket server queues client
 * messages one by one, so two connections' extended-protocol messages interleave (Parse of one, Bind of
 * the other: "bind message supplies 3 parameters, but prepared statement \"\" requires 2"). Here each
 * connection owns the backend from its first message up to its Sync (or simple Query), and for as long
 * as it holds a transaction open, as separate Postgres backends would behave.
 */
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { createServer, type Socket } from 'node:net';

export interface PgliteServer {
  /** `postgres://postgres:postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  db: PGlite;
  stop(): Promise<void>;
}

export interface PgliteServerOptions {
  /** Keeps the database on disk: a second start on the same directory is a restart with the data. */
  dataDir?: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
}

const SSL_REQUEST = 80877103;
const CANCEL_REQUEST = 80877102;
/** Message types that end a unit of work: Sync, simple Query. */
const UNIT_END = new Set(['S', 'Q']);

/** One owner of the backend at a time; waiters are served in arrival order. */
function createGate() {
  let owner: object | null = null;
  const waiters: { who: object; go: () => void }[] = [];
  return {
    get owner() {
      return owner;
    },
    async acquire(who: object) {
      if (owner === who) return;
      if (owner === null) {
        owner = who;
        return;
      }
      await new Promise<void>((go) => waiters.push({ who, go }));
    },
    release(who: object) {
      if (owner !== who) return;
      const next = waiters.shift();
      owner = next ? next.who : null;
      next?.go();
    },
  };
}

/** Starts PGlite (with pgvector) and serves it on a loopback port. */
export async function startPgliteServer(options: PgliteServerOptions = {}): Promise<PgliteServer> {
  const db = await PGlite.create({ dataDir: options.dataDir, extensions: { vector } });
  const gate = createGate();
  const sockets = new Set<Socket>();
  let stopped = false;

  const exec = (message: Uint8Array, socket: Socket) =>
    db.runExclusive(() =>
      db.execProtocolRawStream(message, {
        onRawData: (data) => {
          if (socket.writable) socket.write(Buffer.from(data));
        },
      }),
    );

  const serveConnection = (socket: Socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    const me = {};
    let buffer = Buffer.alloc(0);
    let started = false;
    let chain = Promise.resolve();

    const pump = async () => {
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          if (length === 8 && code === SSL_REQUEST) {
            socket.write('N');
            buffer = buffer.subarray(8);
            continue;
          }
          if (length === 16 && code === CANCEL_REQUEST) {
            buffer = buffer.subarray(16);
            continue;
          }
          if (buffer.length < length) return;
          const startup = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          await gate.acquire(me);
          try {
            await exec(startup, socket);
          } finally {
            if (!db.isInTransaction()) gate.release(me);
          }
          started = true;
          continue;
        }
        if (buffer.length < 5) return;
        const total = 1 + buffer.readInt32BE(1);
        if (buffer.length < total) return;
        const message = buffer.subarray(0, total);
        buffer = buffer.subarray(total);
        const type = String.fromCharCode(message[0]!);
        if (type === 'X') {
          socket.end();
          return;
        }
        await gate.acquire(me);
        await exec(message, socket);
        // Hold the backend until the unit of work ends, and across an open transaction.
        if (UNIT_END.has(type) && !db.isInTransaction()) gate.release(me);
      }
    };

    socket.on('data', (chunk) => {
      if (stopped) return;
      buffer = Buffer.concat([buffer, chunk]);
      chain = chain.then(pump).catch(() => void socket.destroy());
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(socket);
      chain = chain.then(async () => {
        if (gate.owner !== me) return;
        // A client gone mid-transaction must not leave the single backend inside it (unless the whole
        // database is being stopped: then there is no backend left to roll back).
        if (!stopped && db.isInTransaction()) await db.exec('ROLLBACK').catch(() => undefined);
        gate.release(me);
      });
    });
  };

  const server = createServer(serveConnection);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('PGlite server has no TCP address');
  const host = options.host ?? '127.0.0.1';
  return {
    url: `postgres://postgres:postgres@${host}:${address.port}/postgres`,
    port: address.port,
    db,
    async stop() {
      stopped = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
