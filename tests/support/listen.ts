/**
 * The one "serve a Fetch handler on a free loopback port" helper of the tests: streams, disconnects
 * and raw-socket tests need a real listening server. `close()` ends open connections too.
 */
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

export async function listen(fetch: (request: Request) => Response | Promise<Response>): Promise<Listening> {
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
