/** The hooks behind record-imports.mjs: every resolved module URL is appended to the record file. */
import { appendFileSync } from 'node:fs';

let file = null;

export function initialize(data) {
  file = data?.file ?? null;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (file) appendFileSync(file, `${result.url}\n`);
  return result;
}
