/**
 * Reading a building catalog file (`CAMPUS_BUILDINGS_FILE`): the university's flat `{"CODE": "Name"}`
 * object, where an entry may instead be `{"name": "...", "aliases": ["..."]}`. Read once at startup,
 * synchronously; anything malformed is a `CatalogError` naming the file and the problem, so a bad file
 * stops startup instead of silently shipping an empty or partial campus.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { CatalogEntry } from './builtin-catalog.js';

/** A catalog file that cannot be used; the message names the file and what is wrong with it. */
export class CatalogError extends Error {
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`building catalog ${file}: ${problem}`);
    this.name = 'CatalogError';
  }
}

// Codes become URL path segments and prose tokens: letters and digits only (2SC, GHC, ROS1).
const CODE = /^[A-Za-z0-9]{1,16}$/;

const entrySchema = z.union([
  z.string().trim().min(1, 'name is empty'),
  z.object({
    name: z.string().trim().min(1, 'name is empty'),
    aliases: z.array(z.string().trim().min(1, 'alias is empty')).optional(),
  }),
]);

const fileSchema = z.record(z.string(), entrySchema);

/** Parses catalog JSON text into entries; `file` only names the source in errors. */
export function parseCatalogJson(text: string, file: string): CatalogEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CatalogError(file, `not valid JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new CatalogError(file, 'expected a JSON object of {"CODE": "Name"} entries');
  }
  const parsed = fileSchema.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 3).map((i) => {
      const where = i.path.length > 0 ? `entry "${String(i.path[0])}"` : 'file';
      return `${where}: must be a name string or {"name": string, "aliases": string[]}`;
    });
    throw new CatalogError(file, [...new Set(issues)].join('; '));
  }
  const entries: CatalogEntry[] = [];
  const seen = new Set<string>();
  for (const [code, value] of Object.entries(parsed.data)) {
    if (!CODE.test(code)) throw new CatalogError(file, `code "${code}" must be 1-16 letters or digits`);
    const upper = code.toUpperCase();
    if (seen.has(upper)) throw new CatalogError(file, `code "${code}" appears twice (codes are case-insensitive)`);
    seen.add(upper);
    entries.push(
      typeof value === 'string'
        ? { code, name: value, aliases: [] }
        : { code, name: value.name, aliases: value.aliases ?? [] },
    );
  }
  if (entries.length === 0) throw new CatalogError(file, 'has no buildings');
  return entries;
}

/** Reads and parses a catalog file synchronously (startup only). */
export function readCatalogFile(file: string): CatalogEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    throw new CatalogError(file, `cannot be read (${code})`);
  }
  return parseCatalogJson(text, file);
}
