/**
 * `npm run deploy`: asks the campus platform to redeploy this service through its REST API. Finds the
 * application by name or uuid (`GET /api/v1/applications`), then queues a deployment
 * (`POST /api/v1/deploy` with `{"uuid": …}`). Pure of process globals: env, argv, fetch and the output
 * streams come in as parameters, so tests drive it against a fake platform over real HTTP.
 *
 * The API token is a credential with deploy rights: it is read from the environment only (a flag would
 * land in shell history and `ps`), and every line this module prints passes through `redact`.
 */
import { parseArgs } from 'node:util';

/** What a deploy needs; built from flags first, then the environment. */
export interface DeployOptions {
  /** Base URL of the platform, without `/api/v1`. */
  platformUrl: string;
  token: string;
  /** The application's name or uuid on the platform. */
  app: string;
}

/** A platform application as `GET /api/v1/applications` lists it (only the fields used here). */
export interface PlatformApplication {
  uuid: string;
  name: string;
  fqdn?: string | null;
}

export interface DeployResult {
  application: PlatformApplication;
  /** Deployment ids the platform returned, when it returned any. */
  deploymentUuids: string[];
}

/** A failure with a message fit for the operator's terminal (never containing the token). */
export class DeployError extends Error {
  override name = 'DeployError';
}

/** The permissions the recommended token carries: listing applications and deploying, nothing else. */
export const RECOMMENDED_PERMISSIONS = ['read', 'deploy'] as const;

const TOKEN_ADVICE =
  `Create a token in the platform (Keys & Tokens → API tokens) with the ` +
  `${RECOMMENDED_PERMISSIONS.map((p) => `\`${p}\``).join(' and ')} permissions only, and set it as PLATFORM_API_TOKEN.`;

export const USAGE = `Usage: npm run deploy -- [--platform-url <url>] [--app <name-or-uuid>]

  --platform-url   base URL of the deployment platform   (or PLATFORM_URL)
  --app            application name or uuid to deploy    (or PLATFORM_APP)
  PLATFORM_API_TOKEN (environment only) API token with the \`read\` and \`deploy\` permissions`;

/** Reads the options; throws a DeployError naming every missing value at once. */
export function parseDeployOptions(env: Record<string, string | undefined>, argv: readonly string[]): DeployOptions {
  let values: { 'platform-url'?: string; app?: string; token?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        'platform-url': { type: 'string' },
        app: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: false,
    }));
  } catch (err) {
    // parseArgs quotes the offending argument; arguments never carry the token (see --token below).
    throw new DeployError(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  }
  if (values.help) throw new DeployError(USAGE);
  if (values.token !== undefined) {
    throw new DeployError('refusing --token: command lines end up in shell history and `ps`; set PLATFORM_API_TOKEN in the environment instead.');
  }
  const pick = (flag: string | undefined, name: string) => (flag ?? env[name] ?? '').trim();
  const platformUrl = pick(values['platform-url'], 'PLATFORM_URL');
  const app = pick(values.app, 'PLATFORM_APP');
  const token = (env.PLATFORM_API_TOKEN ?? '').trim();

  const missing: string[] = [];
  if (!platformUrl) missing.push('PLATFORM_URL (or --platform-url)');
  if (!token) missing.push('PLATFORM_API_TOKEN');
  if (!app) missing.push('PLATFORM_APP (or --app)');
  if (missing.length > 0) throw new DeployError(`missing: ${missing.join(', ')}\n${USAGE}`);
  if (!URL.canParse(platformUrl)) throw new DeployError(`PLATFORM_URL is not a URL: ${platformUrl}`);
  // Operators paste either the dashboard URL or the API base; accept both.
  const base = platformUrl.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return { platformUrl: base, token, app };
}

/** Removes every occurrence of `secret` from `text` (the platform may echo what it was sent). */
export function redact(text: string, secret: string): string {
  return secret ? text.split(secret).join('[redacted]') : text;
}

async function readMessage(res: Response): Promise<string> {
  const body = await res.text().catch(() => '');
  try {
    const json = JSON.parse(body) as { message?: unknown; error?: unknown };
    const message = json.message ?? json.error;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return body.slice(0, 300);
}

/** Turns a non-2xx platform answer into the operator's message: what failed, why, what to do. */
async function failure(res: Response, step: string, permission: 'read' | 'deploy'): Promise<DeployError> {
  const said = await readMessage(res);
  const platformSays = said ? ` The platform said: "${said}".` : '';
  if (res.status === 401) {
    return new DeployError(`${step} failed (401): the API token is bad or revoked.${platformSays} ${TOKEN_ADVICE}`);
  }
  if (res.status === 403) {
    return new DeployError(
      `${step} failed (403): the API token lacks the \`${permission}\` permission.${platformSays} ${TOKEN_ADVICE}`,
    );
  }
  return new DeployError(`${step} failed (${res.status}).${platformSays}`);
}

/** Picks the application named or identified by `app`; exact uuid first, then exact name. */
export function findApplication(apps: readonly PlatformApplication[], app: string): PlatformApplication {
  const byUuid = apps.find((a) => a.uuid === app);
  if (byUuid) return byUuid;
  const byName = apps.filter((a) => a.name === app);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) {
    throw new DeployError(
      `${byName.length} applications are named "${app}" (${byName.map((a) => a.uuid).join(', ')}); pass the uuid instead.`,
    );
  }
  const known = apps.map((a) => `${a.name} (${a.uuid})`).join(', ') || 'none';
  throw new DeployError(`no application named or with uuid "${app}" is visible to this token. Visible: ${known}.`);
}

function isApplication(v: unknown): v is PlatformApplication {
  return typeof v === 'object' && v !== null && typeof (v as PlatformApplication).uuid === 'string' &&
    typeof (v as PlatformApplication).name === 'string';
}

/** Finds the application and queues its deployment. Throws DeployError with an operator-facing message. */
export async function triggerDeploy(
  options: DeployOptions,
  deps: { fetch: typeof fetch; timeoutMs?: number },
): Promise<DeployResult> {
  const headers = { Authorization: `Bearer ${options.token}`, Accept: 'application/json' };
  const call = async (path: string, init: RequestInit, step: string) => {
    try {
      return await deps.fetch(`${options.platformUrl}${path}`, {
        ...init,
        signal: AbortSignal.timeout(deps.timeoutMs ?? 30_000),
      });
    } catch (err) {
      const cause = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new DeployError(`${step} failed: cannot reach the platform at ${options.platformUrl} (${cause}).`);
    }
  };

  const listStep = 'listing applications (GET /api/v1/applications)';
  const list = await call('/api/v1/applications', { method: 'GET', headers }, listStep);
  if (!list.ok) throw await failure(list, listStep, 'read');
  const body: unknown = await list.json().catch(() => null);
  // The platform answers a bare array; some versions wrap it in {data: [...]}.
  const rows = Array.isArray(body) ? body : Array.isArray((body as { data?: unknown })?.data) ? (body as { data: unknown[] }).data : null;
  if (!rows) throw new DeployError(`${listStep} returned something other than a list of applications.`);
  const application = findApplication(rows.filter(isApplication), options.app);

  const deployStep = `deploying ${application.name} (POST /api/v1/deploy)`;
  const res = await call(
    '/api/v1/deploy',
    {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ uuid: application.uuid }),
    },
    deployStep,
  );
  if (!res.ok) throw await failure(res, deployStep, 'deploy');
  const queued = (await res.json().catch(() => null)) as { deployments?: { deployment_uuid?: unknown }[] } | null;
  const deploymentUuids = (queued?.deployments ?? [])
    .map((d) => d.deployment_uuid)
    .filter((u): u is string => typeof u === 'string');
  return { application, deploymentUuids };
}

export interface RunDeployIo {
  env: Record<string, string | undefined>;
  argv: readonly string[];
  fetch: typeof fetch;
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

/** The whole command: parse, deploy, report. Returns the exit code (0 queued, 1 failed). */
export async function runDeploy(io: RunDeployIo): Promise<number> {
  const token = (io.env.PLATFORM_API_TOKEN ?? '').trim();
  const out = (line: string) => io.stdout(redact(line, token));
  const err = (line: string) => io.stderr(redact(line, token));
  try {
    const options = parseDeployOptions(io.env, io.argv);
    out(`deploy: asking ${options.platformUrl} to deploy "${options.app}"`);
    const result = await triggerDeploy(options, { fetch: io.fetch });
    const where = result.application.fqdn ? ` at ${result.application.fqdn}` : '';
    const ids = result.deploymentUuids.length > 0 ? ` (deployment ${result.deploymentUuids.join(', ')})` : '';
    out(`deploy: queued ${result.application.name} [${result.application.uuid}]${where}${ids}`);
    out('deploy: the platform switches traffic once GET /api/health answers 200; follow the build in its dashboard.');
    return 0;
  } catch (e) {
    if (e instanceof DeployError) {
      err(`deploy: ${e.message}`);
      return 1;
    }
    err(`deploy: unexpected failure: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  }
}
