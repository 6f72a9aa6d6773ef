/**
 * A fake of the campus deployment platform's REST API over real HTTP, for `npm run deploy` tests:
 * bearer tokens with permissions, `GET /api/v1/applications` and `POST /api/v1/deploy` with a JSON
 * `{"uuid"}` body. It answers like the platform does (401 for an unknown token, 403 for a missing
 * permission, JSON `{"message"}` errors) and records every request so tests can check what was sent.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PlatformPermission = 'read' | 'write' | 'deploy' | 'root' | 'read:sensitive';

export interface FakePlatformApp {
  uuid: string;
  name: string;
  fqdn?: string;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakePlatform {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  /** Uuids of the applications whose deployment was queued, in order. */
  deployed: string[];
  stop(): Promise<void>;
}

export interface FakePlatformOptions {
  apps: FakePlatformApp[];
  /** Valid tokens and what each may do; any other token is unauthenticated. */
  tokens: Record<string, PlatformPermission[]>;
  /** Makes error bodies quote the bearer header back, to prove the client redacts what it prints. */
  echoTokenInErrors?: boolean;
}

/** Starts the fake on a free loopback port. */
export async function startFakePlatform(options: FakePlatformOptions): Promise<FakePlatform> {
  const requests: RecordedRequest[] = [];
  const deployed: string[] = [];
  let counter = 0;

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = new URL(req.url ?? '/', 'http://platform').pathname;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body });
      const send = (status: number, payload: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      const authorization = req.headers.authorization ?? '';
      const echo = options.echoTokenInErrors ? ` (got "${authorization}")` : '';
      const token = /^Bearer (.+)$/.exec(authorization)?.[1];
      const permissions = token === undefined ? undefined : options.tokens[token];
      if (!permissions) return send(401, { message: `Unauthenticated.${echo}` });
      const allowed = (p: PlatformPermission) => permissions.includes(p) || permissions.includes('root');
      if (req.headers.accept !== 'application/json') return send(406, { message: 'Accept: application/json required' });

      if (req.method === 'GET' && path === '/api/v1/applications') {
        if (!allowed('read')) return send(403, { message: `Missing required permissions: read${echo}` });
        return send(200, options.apps.map((a) => ({ ...a, status: 'running:healthy' })));
      }
      if (req.method === 'POST' && path === '/api/v1/deploy') {
        if (!allowed('deploy')) return send(403, { message: `Missing required permissions: deploy${echo}` });
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
          return send(415, { message: 'Content-Type must be application/json' });
        }
        let uuid: unknown;
        try {
          uuid = (JSON.parse(body) as { uuid?: unknown }).uuid;
        } catch {
          return send(400, { message: 'Invalid JSON body' });
        }
        const app = options.apps.find((a) => a.uuid === uuid);
        if (!app) return send(404, { message: 'Resource not found.' });
        deployed.push(app.uuid);
        counter += 1;
        return send(200, {
          deployments: [
            { message: `Application ${app.name} deployment queued.`, resource_uuid: app.uuid, deployment_uuid: `dep-${counter}` },
          ],
        });
      }
      return send(404, { message: 'Not found.' });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    deployed,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
