/**
 * The real entry point with CAMPUS_BUILDINGS_FILE: a malformed catalog stops startup (exit non-zero,
 * a message naming the file and the problem); a valid one is used for maps_show_map.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnService, startServiceProcess } from './support/spawn-service.js';

const dir = mkdtempSync(join(tmpdir(), 'campus-startup-'));

describe('starting with CAMPUS_BUILDINGS_FILE', () => {
  it('refuses to start with a malformed catalog file, naming the file and the problem', async () => {
    const file = join(dir, 'broken-buildings.json');
    writeFileSync(file, '{"GHC": "Gates", "WEH": 42}');
    const service = startServiceProcess({ entry: 'source', env: { CAMPUS_BUILDINGS_FILE: file } });
    const exit = await service.exited;
    expect(exit.code).not.toBe(0);
    expect(service.stderr).toContain(`building catalog ${file}`);
    expect(service.stderr).toContain('entry "WEH"');
    expect(service.stdout).not.toContain('"msg":"listening"');
  });

  it('uses a valid catalog file and the configured map base for maps_show_map', async () => {
    const file = join(dir, 'buildings.json');
    writeFileSync(file, JSON.stringify({ GHC: 'Gates Computing Complex', WEH: { name: 'Wean Hall', aliases: ['wean'] } }));
    const service = await spawnService({
      entry: 'source',
      env: { CAMPUS_BUILDINGS_FILE: file, CAMPUS_MAP_BASE_URL: 'https://maps.example.edu/campus/' },
    });
    try {
      const res = await fetch(`${service.url}/agent/respond`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: 'Where is Gates?' }),
      });
      const body = await res.json();
      expect(body.cmu_maps).toMatchObject({
        url: 'https://maps.example.edu/campus/GHC?dst=GHC',
        mode: 'location',
        dest: 'GHC',
        dest_label: 'Gates Computing Complex',
      });
    } finally {
      await service.stop();
    }
  });

  it('refuses to start when the file is missing', async () => {
    const file = join(dir, 'missing.json');
    const service = startServiceProcess({ entry: 'source', env: { CAMPUS_BUILDINGS_FILE: file } });
    expect((await service.exited).code).not.toBe(0);
    expect(service.stderr).toContain(`building catalog ${file}: cannot be read (ENOENT)`);
  });
});
