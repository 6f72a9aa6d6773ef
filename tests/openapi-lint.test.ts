/**
 * Issue 63: the committed OpenAPI document as integrators' tools read it. Redocly's `recommended` rules
 * (`@redocly/openapi-core`, the library under `redocly lint`) and Spectral's `spectral:oas` ruleset
 * (`@stoplight/spectral-core` with `@stoplight/spectral-rulesets`, what `spectral lint` runs) each find
 * no error and no warning in `openapi.json`. Both run in process on the file CI checks out; no rule is
 * turned off.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './support/spawn-service.js';

const FILE = join(REPO_ROOT, 'openapi.json');
const text = readFileSync(FILE, 'utf8');

describe('the API document under the linters integrators run', () => {
  it("Redocly's recommended rules: no error, no warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: FILE, config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it("Spectral's spectral:oas rules: no error, no warning", async () => {
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results = await spectral.run(new spectralCore.Document(text, Json, FILE));
    // Severity 0 is an error, 1 a warning (2 information, 3 a hint).
    const found = results.filter((r) => r.severity <= 1).map((r) => `${r.severity} ${r.code}: ${r.message} at ${r.path.join('.')}`);
    expect(found).toEqual([]);
  });
});
