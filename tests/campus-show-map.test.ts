/**
 * `maps_show_map` and the `cmu_maps` payload: exact CONTRACT.md shapes for location and directions,
 * percent-encoded codes, the configured base URL, and no map for an unknown destination.
 */
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../src/campus/catalog.js';
import { buildCampusMap } from '../src/campus/map-link.js';
import { createShowMapTool } from '../src/campus/show-map-tool.js';
import type { LocalToolContext } from '../src/tools/local-tool.js';
import { testConfig } from './support/deps.js';

const catalog = loadCatalog(null);
const base = 'https://maps.example.edu/campus';
const tool = createShowMapTool({ catalog, mapBaseUrl: base });
const ctx: LocalToolContext = { signal: new AbortController().signal };

describe('buildCampusMap', () => {
  it('builds a location map exactly as CONTRACT.md', () => {
    expect(buildCampusMap(base, catalog.get('WEH')!)).toEqual({
      url: `${base}/WEH?dst=WEH`,
      mode: 'location',
      target: 'WEH',
      target_label: 'Wean Hall',
      src: null,
      src_label: null,
      dest: 'WEH',
      dest_label: 'Wean Hall',
    });
  });

  it('builds a directions map exactly as CONTRACT.md', () => {
    expect(buildCampusMap(base, catalog.get('WEH')!, catalog.get('GHC')!)).toEqual({
      url: `${base}/WEH?src=GHC&dst=WEH`,
      mode: 'directions',
      target: 'WEH',
      target_label: 'Wean Hall',
      src: 'GHC',
      src_label: 'Gates & Hillman Centers',
      dest: 'WEH',
      dest_label: 'Wean Hall',
    });
  });

  it('falls back to a location map when the origin is the destination', () => {
    expect(buildCampusMap(base, catalog.get('WEH')!, catalog.get('WEH')!).mode).toBe('location');
  });

  it('percent-encodes codes', () => {
    const map = buildCampusMap(base, { code: 'A&B', name: 'Odd' }, { code: 'C D', name: 'Odder' });
    expect(map.url).toBe(`${base}/A%26B?src=C%20D&dst=A%26B`);
  });

  it('uses the default base URL from the configuration', () => {
    const url = buildCampusMap(testConfig().campus.mapBaseUrl, catalog.get('2SC')!).url;
    expect(url).toBe('https://maps.scottylabs.org/2SC?dst=2SC');
  });
});

describe('maps_show_map', () => {
  it('is a map tool with a required destination and an optional origin', () => {
    expect(tool.name).toBe('maps_show_map');
    expect(tool.kind).toBe('map');
    expect(tool.parameters.required).toEqual(['destination']);
    expect(Object.keys(tool.parameters.properties)).toEqual(['destination', 'origin']);
  });

  it.each([
    [{ destination: 'GHC' }, `${base}/GHC?dst=GHC`, 'Gates & Hillman Centers (GHC)'],
    [{ destination: 'the UC' }, `${base}/CUC?dst=CUC`, 'Cohon University Center (CUC)'],
    [{ destination: 'Wean 5310' }, `${base}/WEH?dst=WEH`, 'Wean Hall (WEH)'],
    [{ destination: 'Wean Hall', origin: 'Gates' }, `${base}/WEH?src=GHC&dst=WEH`, 'from Gates & Hillman Centers (GHC) to Wean Hall (WEH)'],
    [{ destination: 'WEH', origin: 'TSB' }, `${base}/WEH?src=TEP&dst=WEH`, 'from Tepper Building (TEP)'],
    [{ destination: 'WEH', origin: 'WEH' }, `${base}/WEH?dst=WEH`, 'Wean Hall (WEH)'],
    [{ destination: 'WEH', origin: 'Narnia' }, `${base}/WEH?dst=WEH`, 'origin is not a building'],
    [{ destination: 'WEH', origin: '' }, `${base}/WEH?dst=WEH`, 'Wean Hall (WEH)'],
    [{ destination: 'WEH', origin: null }, `${base}/WEH?dst=WEH`, 'Wean Hall (WEH)'],
  ])('%j → a map request and a confirmation naming the building(s)', async (args, url, named) => {
    const result = await tool.run(args, ctx);
    expect(result.content).toContain(named);
    expect(result.events).toHaveLength(1);
    const [event] = result.events!;
    expect(event?.type).toBe('map_request');
    if (event?.type === 'map_request') expect(event.map.url).toBe(url);
  });

  it.each([
    [{ destination: 'XYZ' }],
    [{ destination: 'Greek Quad' }],
    [{ destination: '' }],
    [{ origin: 'GHC' }],
    [{ destination: 42 }],
    ['GHC'],
    [null],
  ])('%j → guidance and no map', async (args) => {
    const result = await tool.run(args, ctx);
    expect(result.content).toMatch(/^No map attached/);
    expect(result.events ?? []).toEqual([]);
  });

  it('never echoes the arguments back to the model', async () => {
    const result = await tool.run({ destination: 'my secret diary entry' }, ctx);
    expect(result.content).not.toContain('diary');
  });
});
