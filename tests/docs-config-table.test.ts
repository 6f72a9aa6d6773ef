/**
 * The README's configuration table against the schema (issue 50): every variable the service and its
 * local tools read is in the table, the table names no variable they do not read, and every default the
 * schema holds as a plain value (a number, a word, a URL) is the one the table quotes. The check proves
 * it can fail: a default changed in the schema only (planted below) is caught.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { variableDefaults } from '../src/config.js';
import { REPO_ROOT } from './support/spawn-service.js';

interface Row {
  names: string[];
  defaults: string[];
}

/** The rows of the README's "Configuration" table: the variables of the first cell, the second cell split at ` / `. */
function configTable(readme: string): Row[] {
  const section = readme.slice(readme.indexOf('\n## Configuration'), readme.indexOf('\n## ', readme.indexOf('\n## Configuration') + 5));
  return section
    .split('\n')
    .filter((line) => /^\| `[A-Z0-9_]+`/.test(line))
    .map((line) => {
      const [first = '', second = ''] = line.split(' | ');
      return { names: [...first.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!), defaults: second.split(' / ') };
    });
}

/** What is wrong with the table, one line each. */
function tableProblems(readme: string, defaults: Record<string, unknown>): string[] {
  const rows = configTable(readme);
  const listed = rows.flatMap((r) => r.names);
  const problems = [
    ...Object.keys(defaults).filter((v) => !listed.includes(v)).map((v) => `${v}: read by the schema, missing from the table`),
    ...listed.filter((v) => !(v in defaults)).map((v) => `${v}: in the table, not read by the schema`),
  ];
  for (const row of rows) {
    row.names.forEach((name, i) => {
      const value = defaults[name];
      if (typeof value !== 'number' && typeof value !== 'string' && typeof value !== 'boolean') return;
      const cell = row.defaults.length === row.names.length ? row.defaults[i]! : row.defaults.join(' / ');
      const quoted = [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      if (!quoted.includes(String(value))) problems.push(`${name}: the schema's default is ${String(value)}, the table says ${cell.trim()}`);
    });
  }
  return problems;
}

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

describe("the README's configuration table", () => {
  it('lists every variable the schema reads, and only those, each plain default as the schema has it', () => {
    expect(tableProblems(README, variableDefaults())).toEqual([]);
  });

  it('fails on a default changed in the schema only, and on a variable the table lacks', () => {
    const defaults = variableDefaults();
    expect(tableProblems(README, { ...defaults, PORT: 5056 })).toEqual(['PORT: the schema\'s default is 5056, the table says `5055`']);
    expect(tableProblems(README, { ...defaults, NEW_SETTING: 1 })).toEqual(['NEW_SETTING: read by the schema, missing from the table']);
  });
});
