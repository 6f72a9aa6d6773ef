/**
 * What the project's docs name that must exist: paths (in code spans and relative Markdown links),
 * npm scripts (`npm run x`) and environment variables (UPPER_SNAKE names in code spans). A claim is
 * stale when its path is not in the tree, its script is not in package.json, or its variable is read
 * nowhere in the code (src, tests, bench, scripts, .ci, the Dockerfile, the tools' config files).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';

/** The docs that are checked: README.md, DEPLOY.md and the design notes. */
export function checkedDocs(root: string): string[] {
  const design = join(root, 'docs', 'design');
  return ['README.md', 'DEPLOY.md', ...readdirSync(design).filter((f) => f.endsWith('.md')).map((f) => join('docs', 'design', f))];
}

const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage']);

/** Every file of the tree, relative to `root`. */
function treeFiles(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (SKIP.has(name)) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) visit(path);
      else out.push(relative(root, path));
    }
  };
  visit(root);
  return out;
}

/** What the checks compare against, read once. */
export interface Tree {
  root: string;
  basenames: Set<string>;
  scripts: Set<string>;
  /** The code's text, where an environment variable must be read. */
  code: string;
}

export function readTree(root: string): Tree {
  const files = treeFiles(root);
  const codeFiles = files.filter((f) => /^(src|tests|bench|scripts|\.ci)\//.test(f) || /^(Dockerfile|package\.json|[\w-]+\.config\.ts)$/.test(f));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return {
    root,
    basenames: new Set(files.map((f) => basename(f))),
    scripts: new Set([...Object.keys(pkg.scripts), 'test', 'start', 'ci', 'install']),
    // The docs test's own planted names do not count as read.
    code: codeFiles.filter((f) => !/(?:doc-claims|docs\.test)\.ts$/.test(f)).map((f) => readFileSync(join(root, f), 'utf8')).join('\n'),
  };
}

const TREE_PATH = /^(?:\.\/)?(?:src|tests|bench|scripts|docs|drizzle|\.ci)\/[\w./-]*[\w/]$/;
const FILE_NAME = /^[\w.-]+\.(?:ts|mjs|js|md|json|sql|yml|yaml)$/;
const ENV_NAME = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

/** The stale claims of one doc's text (`doc` is its path relative to the root, for relative links). */
export function staleClaims(doc: string, text: string, tree: Tree): string[] {
  const stale: string[] = [];
  // A compiled name (`otel.js`) stands for its source (`otel.ts`).
  const fileExists = (name: string) => tree.basenames.has(name) || tree.basenames.has(name.replace(/\.js$/, '.ts'));
  const pathExists = (path: string) => existsSync(join(tree.root, path)) || existsSync(join(tree.root, dirname(doc), path));
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    for (const raw of span!.split(/[\s,()[\]{}'"=]+/)) {
      // A trailing full stop or colon belongs to the sentence; `file.ts:12` names a line of it.
      const token = raw.replace(/[.:;]+$/, '').replace(/:\d+(?:-\d+)?$/, '');
      if (TREE_PATH.test(token)) {
        if (!token.includes('*') && !pathExists(token)) stale.push(`path ${token}`);
      } else if (FILE_NAME.test(token) && !token.startsWith('.') && !fileExists(token)) stale.push(`file ${token}`);
    }
    const script = /^npm (?:run )?([\w:.-]+)/.exec(span!);
    if (script && !tree.scripts.has(script[1]!)) stale.push(`npm script ${script[1]}`);
    for (const [name] of span!.matchAll(ENV_NAME)) if (!tree.code.includes(name)) stale.push(`variable ${name}`);
  }
  // Relative Markdown links: [text](path) or [text](path#anchor).
  for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
    if (/^[a-z]+:/.test(target!)) continue;
    if (!pathExists(target!)) stale.push(`link ${target}`);
  }
  return [...new Set(stale)];
}
