/**
 * The image recipe, checked without a Docker engine (none on CI): the runtime stage's promises to the
 * platform (slim Node 22, non-root, port 5055, health check, node as PID 1, bounded heap, no build-time
 * secret), the build context it copies from, and the HEALTHCHECK command itself, run against a real
 * service and against a stopped one. The image's steps run for real in tests/production-entry.test.ts.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, spawnService, type ServiceProcess } from './support/spawn-service.js';

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
const dockerignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

/** Instructions with their continuation lines joined, comments dropped. */
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

/** The instructions of the last stage (what the platform runs). */
const runtimeStage = instructions.slice(instructions.findLastIndex((l) => /^FROM\s/i.test(l)));
const find = (stage: string[], keyword: string) => stage.filter((l) => l.toUpperCase().startsWith(`${keyword} `));

/** Runs a shell-form `HEALTHCHECK … CMD <command>` as Docker does: `/bin/sh -c <command>`. */
function runShellForm(line: string, env: Record<string, string>): Promise<number | null> {
  const command = line.replace(/^\S+\s+(--\S+\s+)*CMD\s+/i, '');
  const child = spawn('/bin/sh', ['-c', command], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'ignore' });
  return new Promise((resolve) => child.once('close', resolve));
}

let service: ServiceProcess | null = null;
afterAll(async () => {
  await service?.stop('SIGKILL');
});

describe('Dockerfile', () => {
  it('runs a slim Node 22 image as a non-root user, exposing 5055, with node itself as PID 1', () => {
    // Pinned to an exact release; no `# syntax=` line (BuildKit would pull a frontend image for it).
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22\.\d+\.\d+-bookworm-slim$/m);
    expect(dockerfile).not.toMatch(/^# ?syntax=/m);
    expect(runtimeStage[0]).toMatch(/^FROM \$\{NODE_IMAGE\} AS runtime$/);
    const users = find(runtimeStage, 'USER');
    expect(users.at(-1)).toBe('USER node');
    expect(find(runtimeStage, 'EXPOSE')).toEqual(['EXPOSE 5055']);
    expect(find(runtimeStage, 'CMD').at(-1)).toBe('CMD ["node", "dist/src/server.js"]');
    expect(runtimeStage.join('\n')).toMatch(/PORT=5055/);
    expect(runtimeStage.join('\n')).toMatch(/AGENT_ENV=production/);
  });

  it('is multi-stage: builds with dev dependencies, ships production dependencies and dist only', () => {
    expect(instructions.filter((l) => /^FROM\s/i.test(l))).toHaveLength(3);
    expect(dockerfile).toMatch(/npm ci --ignore-scripts/);
    expect(dockerfile).toMatch(/RUN npm run build/);
    expect(dockerfile).toMatch(/npm ci --omit=dev/);
    const copies = find(runtimeStage, 'COPY');
    expect(copies).toEqual([
      'COPY --from=prod-deps /app/node_modules ./node_modules',
      'COPY --from=build /app/dist ./dist',
      'COPY drizzle ./drizzle',
      'COPY package.json ./',
    ]);
    const runs = find(runtimeStage, 'RUN').join('\n');
    expect(runs).not.toMatch(/npm (ci|install)|migrat/);
    // The one package the runtime adds: BusyBox, for the platform's wget health check.
    expect([...runs.matchAll(/apt-get install -y --no-install-recommends ([\w .-]+?)\s+&&/g)].map((m) => m[1])).toEqual(['busybox']);
    expect(runs).toMatch(/ln -s \/bin\/busybox \/usr\/local\/bin\/wget/);
  });

  it('bounds the heap for a 256 MB limit and reads no secret at build time', () => {
    const nodeOptions = /NODE_OPTIONS="([^"]+)"/.exec(dockerfile)?.[1] ?? '';
    const oldSpace = Number(/--max-old-space-size=(\d+)/.exec(nodeOptions)?.[1]);
    expect(oldSpace).toBeGreaterThan(0);
    expect(oldSpace).toBeLessThanOrEqual(160);
    const secretish = /(SECRET|KEY|TOKEN|PASSWORD|DATABASE_URL|MCP_SERVER_URL)/;
    for (const line of instructions.filter((l) => /^(ARG|ENV)\s/i.test(l))) expect(line).not.toMatch(secretish);
  });

  it('copies only what exists and what .dockerignore lets into the build context', () => {
    expect(dockerignore[0]).toBe('*'); // allowlist: nothing enters unless named below
    const fromContext = instructions
      .filter((l) => /^COPY\s/i.test(l) && !/--from=/.test(l))
      .flatMap((l) => l.replace(/^COPY\s+(--\S+\s+)*/i, '').split(/\s+/).slice(0, -1));
    expect(fromContext.length).toBeGreaterThan(0);
    for (const source of fromContext) {
      expect(existsSync(join(REPO_ROOT, source)), source).toBe(true);
      expect(dockerignore.some((p) => p === `!${source}` || p === `!${source}/`), `${source} allowed`).toBe(true);
    }
    for (const never of ['**/.env*', '**/*.sqlite*']) expect(dockerignore).toContain(never);
  });

  it('HEALTHCHECK is the platform\'s wget probe of /api/health: healthy against a running service, unhealthy once it stopped', async () => {
    const healthcheck = instructions.find((l) => l.startsWith('HEALTHCHECK '));
    expect(healthcheck).toMatch(/\/api\/health/);
    // No Node process per check: wget, as the platform's own check runs it.
    expect(healthcheck).toMatch(/CMD wget /);
    expect(healthcheck).not.toMatch(/node/);
    service = await spawnService({ entry: 'source', env: {} });
    expect(await runShellForm(healthcheck!, { PORT: String(service.port) })).toBe(0);
    await service.stop('SIGTERM');
    expect(await runShellForm(healthcheck!, { PORT: String(service.port) })).toBe(1);
  });
});
