/**
 * `npm run deploy` against a fake platform over real HTTP: finds the app by name or uuid, queues the
 * deploy with the exact requests the platform's API expects, explains 401/403, never prints the token.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDeploy } from '../scripts/deploy/run-deploy.js';
import { startFakePlatform, type FakePlatform } from './support/fake-platform.js';
import { REPO_ROOT } from './support/spawn-service.js';

const FULL = 'tok-full-1f8a2c9e7b3d4a6f';
const READ_ONLY = 'tok-readonly-5c2e8b1a9d7f';
const DEPLOY_ONLY = 'tok-deployonly-3b9e1c7a5d2f';
const APPS = [
  { uuid: 'k8s0w4c8g4o0', name: 'campus-agent', fqdn: 'https://agent.campus.example.edu' },
  { uuid: 'q1w2e3r4t5y6', name: 'campus-web' },
  { uuid: 'dup000000001', name: 'twin' },
  { uuid: 'dup000000002', name: 'twin' },
];

let platform: FakePlatform;
beforeAll(async () => {
  platform = await startFakePlatform({
    apps: APPS,
    tokens: { [FULL]: ['read', 'deploy'], [READ_ONLY]: ['read'], [DEPLOY_ONLY]: ['deploy'] },
    echoTokenInErrors: true,
  });
});
afterAll(() => platform.stop());

async function deploy(env: Record<string, string | undefined>, argv: string[] = []) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const before = platform.requests.length;
  const code = await runDeploy({ env, argv, fetch, stdout: (l) => stdout.push(l), stderr: (l) => stderr.push(l) });
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n'), requests: platform.requests.slice(before) };
}

describe('npm run deploy', () => {
  it('finds the app by name and POSTs its uuid to /api/v1/deploy with the documented headers', async () => {
    const r = await deploy({ PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: FULL, PLATFORM_APP: 'campus-agent' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v1/applications', 'POST /api/v1/deploy']);
    for (const q of r.requests) {
      expect(q.headers.authorization).toBe(`Bearer ${FULL}`);
      expect(q.headers.accept).toBe('application/json');
    }
    expect(JSON.parse(r.requests[1]!.body)).toEqual({ uuid: 'k8s0w4c8g4o0' });
    expect(platform.deployed.at(-1)).toBe('k8s0w4c8g4o0');
    expect(r.stdout).toMatch(/queued campus-agent \[k8s0w4c8g4o0\].*deployment dep-\d+/);
  });

  it('accepts a uuid, and flags win over the environment (an /api/v1 suffix on the URL is tolerated)', async () => {
    const r = await deploy(
      { PLATFORM_URL: 'http://127.0.0.1:1', PLATFORM_API_TOKEN: FULL, PLATFORM_APP: 'campus-agent' },
      ['--platform-url', `${platform.url}/api/v1/`, '--app=q1w2e3r4t5y6'],
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.requests[1]!.body)).toEqual({ uuid: 'q1w2e3r4t5y6' });
  });

  it('on 401 says the token is bad or revoked and recommends a read+deploy token; the token is not printed', async () => {
    const bad = 'tok-revoked-9e8d7c6b5a4f';
    const r = await deploy({ PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: bad, PLATFORM_APP: 'campus-agent' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/401/);
    expect(r.stderr).toMatch(/bad or revoked/);
    expect(r.stderr).toMatch(/`read` and `deploy` permissions only/);
    expect(r.stdout + r.stderr).not.toContain(bad);
    expect(r.stderr).toContain('[redacted]'); // the fake echoed it; the script scrubbed it
    expect(r.requests).toHaveLength(1);
  });

  it('on 403 at deploy names the missing `deploy` permission and queues nothing', async () => {
    const deployedBefore = platform.deployed.length;
    const r = await deploy({ PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: READ_ONLY, PLATFORM_APP: 'campus-agent' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/403/);
    expect(r.stderr).toMatch(/lacks the `deploy` permission/);
    expect(r.stderr).toMatch(/`read` and `deploy` permissions only/);
    expect(r.stdout + r.stderr).not.toContain(READ_ONLY);
    expect(platform.deployed.length).toBe(deployedBefore);
  });

  it('on 403 at listing names the missing `read` permission', async () => {
    const r = await deploy({ PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: DEPLOY_ONLY, PLATFORM_APP: 'campus-agent' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/403.*lacks the `read` permission/);
    expect(r.stdout + r.stderr).not.toContain(DEPLOY_ONLY);
  });

  it('an unknown app lists what the token can see; a duplicated name asks for the uuid', async () => {
    const unknown = await deploy({ PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: FULL, PLATFORM_APP: 'nope' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('campus-agent (k8s0w4c8g4o0)');
    const twin = await deploy({ PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: FULL, PLATFORM_APP: 'twin' });
    expect(twin.code).toBe(1);
    expect(twin.stderr).toMatch(/2 applications are named "twin".*dup000000001, dup000000002.*uuid/);
    expect(twin.requests.map((q) => q.method)).toEqual(['GET']);
  });

  it('names every missing setting at once and refuses a token passed as a flag', async () => {
    const none = await deploy({});
    expect(none.code).toBe(1);
    for (const name of ['PLATFORM_URL', 'PLATFORM_API_TOKEN', 'PLATFORM_APP']) expect(none.stderr).toContain(name);
    expect(none.requests).toHaveLength(0);

    const flag = await deploy({ PLATFORM_URL: platform.url, PLATFORM_APP: 'campus-agent' }, ['--token', FULL]);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toMatch(/refusing --token/);
    expect(flag.requests).toHaveLength(0);
  });

  it('an unreachable platform is reported with its URL, not a stack trace', async () => {
    const stopped = await startFakePlatform({ apps: [], tokens: {} });
    await stopped.stop();
    const r = await deploy({ PLATFORM_URL: stopped.url, PLATFORM_API_TOKEN: FULL, PLATFORM_APP: 'campus-agent' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`cannot reach the platform at ${stopped.url}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('`npm run deploy` runs the CLI: exit code and output from a real process', async () => {
    const child = spawn('npm', ['run', '--silent', 'deploy', '--', '--app', 'campus-agent'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PLATFORM_URL: platform.url, PLATFORM_API_TOKEN: READ_ONLY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(1);
    expect(out).toMatch(/lacks the `deploy` permission/);
    expect(out).not.toContain(READ_ONLY);
  });
});
