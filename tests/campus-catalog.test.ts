/**
 * Building catalog: alias resolution and prose mentions, table-driven over the built-in catalog and
 * over the same buildings loaded from a catalog file (the `CAMPUS_BUILDINGS_FILE` path, in the
 * university's `{"CODE": "Name"}` shape, written by the test: the project's tests carry their own
 * fixtures), plus the malformed-file errors.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CatalogError, loadCatalog, type Catalog } from '../src/campus/catalog.js';

const builtIn = loadCatalog(null);
/** The built-in buildings as a catalog file of codes and names (aliases come from the code's CMU table). */
const catalogFile = join(mkdtempSync(join(tmpdir(), 'catalog-file-')), 'buildings.json');
writeFileSync(catalogFile, JSON.stringify(Object.fromEntries(builtIn.list().map((b) => [b.code, b.name])), null, 2));

const catalogs: Array<[string, Catalog]> = [
  ['catalog file', loadCatalog(catalogFile)],
  ['built-in', builtIn],
];

// [input, expected code or null]
const RESOLVE_CASES: Array<[string, string | null]> = [
  ['GHC', 'GHC'],
  ['ghc', 'GHC'],
  ['Gates', 'GHC'],
  ['Gates & Hillman Centers', 'GHC'],
  ['gates and hillman centers', 'GHC'],
  ['Gates Hillman', 'GHC'],
  ['the UC', 'CUC'],
  ['UC', 'CUC'],
  ['University Center', 'CUC'],
  ['Cohon University Center', 'CUC'],
  ['TSB', 'TEP'],
  ['Tepper', 'TEP'],
  ['Maggie Mo', 'MM'],
  ["Maggie Mo's", 'MM'],
  ['Margaret Morrison', 'MM'],
  ['Sorrells', 'WEH'],
  ['Sorrells Library', 'WEH'],
  ['Wean', 'WEH'],
  ['Wean Hall', 'WEH'],
  // rooms resolve to the building
  ['GHC 4301', 'GHC'],
  ['Wean 5310', 'WEH'],
  ['GHC4401', 'GHC'],
  ['PH 100', 'PH'],
  // names without trailing generic words
  ['Scott Hall', 'SC'],
  ['scott', 'SC'],
  ['Porter', 'PH'],
  ['Doherty', 'DH'],
  ['Newell-Simon', 'NSH'],
  ['Morewood', 'MOR'],
  // two-letter codes resolve when given alone (a tool argument), not in prose
  ['PH', 'PH'],
  ['SC', 'SC'],
  // codes starting with a digit
  ['2SC', '2SC'],
  ['3sc', '3SC'],
  ['4SC', '4SC'],
  ['ROS1', 'ROS1'],
  // ambiguous names point at several buildings: no guess
  ['Greek Quad', null],
  ['Roselawn Terrace', null],
  ['Posner', null],
  ['Hamerschlag', null],
  ['Hamerschlag Hall', 'HH'],
  ['Hamerschlag House', 'HAM'],
  // everyday words and the university itself are not buildings
  ['Carnegie Mellon', null],
  ['the library', null],
  ['hunt', null],
  ['pizza', null],
  ['', null],
  // a phrase resolves to the building it mentions
  ['Gates Hillman Center 4th floor', 'GHC'],
  ['room 5310 in Wean Hall', 'WEH'],
];

describe.each(catalogs)('resolve over the %s catalog', (_label, catalog) => {
  it.each(RESOLVE_CASES)('%j → %s', (input, code) => {
    expect(catalog.resolve(input)?.code ?? null).toBe(code);
  });

  it('gets by code case-insensitively and lists every building', () => {
    expect(catalog.get('weh')?.name).toBe('Wean Hall');
    expect(catalog.get('XYZ')).toBeNull();
    expect(catalog.list()).toHaveLength(74);
  });
});

// [prose, expected "CODE[matched text]" list]
const MENTION_CASES: Array<[string, string[]]> = [
  ['Meet me at the UC, then GHC 4301 and Wean 5310.', ['CUC[the UC]', 'GHC[GHC 4301]', 'WEH[Wean 5310]']],
  ['The PH of the water at SC is fine, HH.', []],
  ['ph levels and sc notes', []],
  ['Class is in PH 100 today.', ['PH[PH 100]']],
  ['I had ham and mud pie with Don.', []],
  ['Walk from Maggie Mo’s to the Gates & Hillman Centers.', ['MM[Maggie Mo’s]', 'GHC[Gates & Hillman Centers]']],
  ['Carnegie Mellon University is in Pittsburgh.', []],
  ['2SC and 3SC are on Craig Street.', ['2SC[2SC]', '3SC[3SC]']],
  ['The Cohon University Center has food.', ['CUC[Cohon University Center]']],
  ['Head to Hamerschlag Hall, not Hamerschlag House.', ['HH[Hamerschlag Hall]', 'HAM[Hamerschlag House]']],
  ['The Greek Quad is lovely.', []],
  ['Wean Hall 5th floor', ['WEH[Wean Hall]']],
];

describe.each(catalogs)('mentions in prose over the %s catalog', (_label, catalog) => {
  it.each(MENTION_CASES)('%j', (prose, expected) => {
    const found = catalog.mentions(prose).map((m) => `${m.building.code}[${prose.slice(m.start, m.end)}]`);
    expect(found).toEqual(expected);
  });

  it('reports the room number of a mention', () => {
    const [m] = catalog.mentions('See you in GHC 4401.');
    expect(m?.room).toBe('4401');
    expect(catalog.mentions('See you in GHC.')[0]?.room).toBeNull();
  });
});

describe('catalog files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
  const write = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('accepts entries with an aliases list, and drops an alias that names two buildings', () => {
    const file = write(
      'aliases.json',
      JSON.stringify({
        LIB: { name: 'Main Library', aliases: ['the stacks', 'the reading room'] },
        SCI: { name: 'Science Tower', aliases: ['the reading room'] },
        ART: 'Art Barn',
      }),
    );
    const c = loadCatalog(file);
    expect(c.resolve('the stacks')?.code).toBe('LIB');
    expect(c.resolve('the reading room')).toBeNull();
    expect(c.resolve('Art Barn')?.code).toBe('ART');
    expect(c.resolve('barn')?.code).toBe('ART');
  });

  it('does not give CMU nicknames to another campus that reuses a code', () => {
    const c = loadCatalog(write('other.json', JSON.stringify({ GHC: 'Green Hill Commons' })));
    expect(c.resolve('Gates')).toBeNull();
    expect(c.resolve('Green Hill Commons')?.code).toBe('GHC');
  });

  it.each([
    ['bad.json', '{"GHC": "Gates",', /building catalog .*bad\.json: not valid JSON/],
    ['array.json', '["GHC"]', /array\.json: expected a JSON object/],
    ['number.json', '{"GHC": 5}', /number\.json: entry "GHC": must be a name string/],
    ['empty-name.json', '{"GHC": "  "}', /empty-name\.json: entry "GHC"/],
    ['code.json', '{"G H C": "Gates"}', /code\.json: code "G H C" must be 1-16 letters or digits/],
    ['dupe.json', '{"GHC": "Gates", "ghc": "Gates again"}', /dupe\.json: code "ghc" appears twice/],
    ['none.json', '{}', /none\.json: has no buildings/],
  ])('%s stops loading with a clear CatalogError', (name, text, message) => {
    const file = write(name, text);
    expect(() => loadCatalog(file)).toThrow(CatalogError);
    expect(() => loadCatalog(file)).toThrow(message);
  });

  it('names a missing file', () => {
    const file = join(dir, 'missing.json');
    expect(() => loadCatalog(file)).toThrow(/missing\.json: cannot be read \(ENOENT\)/);
  });
});
