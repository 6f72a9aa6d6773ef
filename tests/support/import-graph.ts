/**
 * The project's import graph read from source text: every relative `import`/`export … from` and dynamic
 * `import('…')` of a `.ts` file under a root, resolved to files. Used by the architecture test to find
 * cycles (file and folder level) and imports that reach up into a higher room.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export interface ImportEdge {
  from: string;
  to: string;
  /** `import('…')`: loaded only when that code runs. */
  dynamic: boolean;
  /** `import type` / `export type`: erased at run time. */
  typeOnly: boolean;
}

const STATIC = /^\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]/gm;
const SIDE_EFFECT = /^\s*import\s+['"]([^'"]+)['"]/gm;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function listTs(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listTs(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Edges between files under `root` (paths relative to `base`), external packages left out. */
export function importGraph(root: string, base: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of listTs(root)) {
    const text = readFileSync(file, 'utf8');
    const from = relative(base, file);
    const add = (spec: string, dynamic: boolean, typeOnly: boolean) => {
      if (!spec.startsWith('.')) return;
      const to = relative(base, resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
      edges.push({ from, to, dynamic, typeOnly });
    };
    for (const m of text.matchAll(STATIC)) add(m[3]!, false, m[2] !== undefined);
    for (const m of text.matchAll(SIDE_EFFECT)) add(m[1]!, false, false);
    for (const m of text.matchAll(DYNAMIC)) add(m[1]!, true, false);
  }
  return edges;
}

/** Every elementary cycle found by depth-first search over `edges` (each reported once, as a path). */
export function findCycles(edges: readonly { from: string; to: string }[]): string[][] {
  const out = new Map<string, string[]>();
  for (const e of edges) out.set(e.from, [...(out.get(e.from) ?? []), e.to]);
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of out.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of out.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

/** The folder ("room") of a file under src: `src/memory/recall.ts` → `memory`; top-level files → their name. */
export function roomOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, '');
}

/**
 * Imports that reach up: an edge from a room to a room declared higher in `order` (lowest first), as
 * `from -> to` lines naming both files. A room missing from `order` is reported too, so a new folder
 * must be given its place.
 */
export function upwardImports(edges: readonly ImportEdge[], order: readonly string[]): string[] {
  const rank = new Map(order.map((room, i) => [room, i]));
  const out: string[] = [];
  for (const e of edges) {
    const from = roomOf(e.from);
    const to = roomOf(e.to);
    if (from === to) continue;
    const a = rank.get(from);
    const b = rank.get(to);
    if (a === undefined || b === undefined) out.push(`${e.from} -> ${e.to}: room ${a === undefined ? from : to} has no place in the order`);
    else if (b > a) out.push(`${e.from} -> ${e.to}: ${from} is below ${to}`);
  }
  return out;
}
