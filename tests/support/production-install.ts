/**
 * A clean production install of the service outside the repo, made the way the Dockerfile makes the
 * image: `tsc -p tsconfig.build.json` (the `npm run build` config) → dist/, package.json +
 * package-lock.json + drizzle/ copied, `npm ci --omit=dev`, then scripts/deploy/prune-prod-deps.sh.
 * The directory lives under the OS temp dir, so Node's module resolution cannot reach the repo's
 * node_modules (dev dependencies): what starts there starts in the image.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-service.js';

export interface ProductionInstall {
  /** Holds dist/, drizzle/, package.json and node_modules/ (production only). */
  dir: string;
  /** Whether node_modules came from the lockfile-keyed cache instead of a fresh `npm ci`. */
  reusedDependencies: boolean;
  remove(): void;
}

export interface ProductionInstallOptions {
  /**
   * Reuse a production node_modules installed earlier from the same lockfile, Node version and prune
   * script (benches: the install is not what they measure). Tests leave it off: a fresh `npm ci`.
   */
  reuseDependencies?: boolean;
  /** Progress lines (each step takes seconds to minutes). */
  log?: (line: string) => void;
}

/** Runs a command to completion; rejects with its output when it fails or overruns. */
function run(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} did not finish within ${timeoutMs} ms\n${output.slice(-4000)}`));
    }, timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code} in ${cwd}\n${output.slice(-4000)}`));
    });
  });
}

const PRUNE_SCRIPT = join(REPO_ROOT, 'scripts', 'deploy', 'prune-prod-deps.sh');
/** The scripts npm's install steps run (the Dockerfile's prod-deps stage copies the same two). */
const INSTALL_SCRIPTS = ['scripts/build.mjs', 'scripts/patch-postgres-driver.mjs'];

/** `npm ci --omit=dev` + prune in `dir`. The npm cache is warm from the project's own install. */
async function installProductionDependencies(dir: string): Promise<void> {
  cpSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
  cpSync(join(REPO_ROOT, 'package-lock.json'), join(dir, 'package-lock.json'));
  // npm ci runs the `postinstall` step (the postgres driver's mend, as in the image) and the `prepare`
  // build step; in a production install the latter finds no src/ and does nothing.
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  for (const script of INSTALL_SCRIPTS) cpSync(join(REPO_ROOT, script), join(dir, script));
  // --prefer-offline rather than --offline: the lockfile omits `resolved` URLs, so npm may still need
  // a package document the cache lacks; it asks the registry only then.
  await run('npm', ['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], dir, 8 * 60_000);
  await run('sh', [PRUNE_SCRIPT], dir, 60_000);
}

function dependencyKey(): string {
  const hash = createHash('sha256');
  for (const file of ['package.json', 'package-lock.json', 'scripts/deploy/prune-prod-deps.sh', ...INSTALL_SCRIPTS]) {
    hash.update(readFileSync(join(REPO_ROOT, file)));
  }
  hash.update(process.version);
  return hash.digest('hex').slice(0, 16);
}

/** Returns a cached production node_modules for this lockfile, installing it once. */
async function cachedProductionDependencies(log: (line: string) => void): Promise<string> {
  const cache = join(tmpdir(), `campus-agent-prod-deps-${dependencyKey()}`);
  if (existsSync(join(cache, 'node_modules'))) return join(cache, 'node_modules');
  const staging = mkdtempSync(join(tmpdir(), 'campus-agent-prod-deps-staging-'));
  log('production install: npm ci --omit=dev (cached for the next run)');
  await installProductionDependencies(staging);
  writeFileSync(join(staging, 'node_modules', '.complete'), new Date().toISOString());
  try {
    renameSync(staging, cache); // atomic: a concurrent run either sees the whole cache or none
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another run won the race; use its copy
  }
  return join(cache, 'node_modules');
}

/** Builds dist/ from the current sources and installs production dependencies in a fresh temp dir. */
export async function prepareProductionInstall(options: ProductionInstallOptions = {}): Promise<ProductionInstall> {
  const log = options.log ?? (() => undefined);
  const dir = mkdtempSync(join(tmpdir(), 'campus-agent-prod-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    log('production install: tsc -p tsconfig.build.json');
    // The `npm run build` command with another outDir: the repo's own dist/ is left to the developers.
    await run(
      process.execPath,
      [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')],
      REPO_ROOT,
      5 * 60_000,
    );
    // As the image does: the sandbox is not shipped (production never loads it).
    rmSync(join(dir, 'dist', 'src', 'sandbox'), { recursive: true, force: true });
    cpSync(join(REPO_ROOT, 'drizzle'), join(dir, 'drizzle'), { recursive: true });
    let reusedDependencies = false;
    if (options.reuseDependencies) {
      symlinkSync(await cachedProductionDependencies(log), join(dir, 'node_modules'), 'dir');
      reusedDependencies = true;
      cpSync(join(REPO_ROOT, 'package.json'), join(dir, 'package.json'));
    } else {
      log('production install: npm ci --omit=dev');
      await installProductionDependencies(dir);
    }
    return { dir, reusedDependencies, remove };
  } catch (err) {
    remove();
    throw err;
  }
}
