/**
 * `maps_show_map`: the service's own tool (never the tool server's) that puts a campus map beside the
 * answer. The model names a destination and optionally an origin, each a code, name, nickname or room;
 * the catalog resolves them, and a valid call emits a `map_request` (the verify stage keeps the last
 * one of the turn). An unknown destination gives guidance and no map; an unknown or identical origin
 * falls back to a location map. Results never echo the arguments: they may carry the user's words.
 */
import { z } from 'zod';
import type { MapRequestEvent } from './cmu-maps.js';
import { toolParameters, type LocalTool, type LocalToolResult } from '../tools/local-tool.js';
import { SHOW_MAP_TOOL } from '../tools/tool-groups.js';
import type { Building, Catalog } from './catalog.js';
import { buildCampusMap } from './map-link.js';

/** What `maps_show_map` needs: the catalog to resolve names and the base of map links. */
export interface ShowMapToolOptions {
  catalog: Catalog;
  /** `CAMPUS_MAP_BASE_URL`, without a trailing slash. */
  mapBaseUrl: string;
}

// Generous bounds: a code, a name or a short phrase; anything longer is not a building reference.
export const showMapArgs = z
  .object({
    destination: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .describe('Building to show: a code (GHC), a name (Wean Hall), a nickname (the UC) or a room (GHC 4301).'),
    origin: z
      .string()
      .trim()
      .max(200)
      .nullish()
      .transform((s) => (s ? s : null))
      .describe('Optional starting building for directions, in the same forms as destination.'),
  });

const label = (b: Building) => `${b.name} (${b.code})`;
const ATTACHED = 'Map attached: ';
const ROUTE = 'the route from ';

/**
 * What a result of this tool says was put on the map: the labels ("Wean Hall (WEH)") and their codes.
 * For the offline model, which reads results by rule; null when no map was attached.
 */
export function readMapAttached(content: string): { destination: string; origin: string | null; codes: { destination: string; origin: string | null } } | null {
  if (!content.startsWith(ATTACHED)) return null;
  const body = content.slice(ATTACHED.length);
  const route = body.startsWith(ROUTE) ? /^(.+? \([A-Z0-9]+\)) to (.+? \([A-Z0-9]+\))\./.exec(body.slice(ROUTE.length)) : null;
  const destination = route?.[2] ?? /^(.+? \([A-Z0-9]+\))/.exec(body)?.[1];
  if (!destination) return null;
  const origin = route?.[1] ?? null;
  const code = (l: string) => /\(([A-Z0-9]+)\)$/.exec(l)![1]!;
  return { destination, origin, codes: { destination: code(destination), origin: origin && code(origin) } };
}

const NO_DESTINATION =
  'No map attached: the destination is not a building in the campus catalog. Call maps_show_map again ' +
  'with a building code (such as GHC) or a building name, or answer without a map.';

const BAD_ARGS = 'No map attached: maps_show_map needs a "destination" string (a building code or name) and an optional "origin".';

const MAP_NOTE = 'The user sees the map beside your answer; do not write map links or say the map is unavailable.';

/** Creates the `maps_show_map` local tool over a catalog. */
export function createShowMapTool({ catalog, mapBaseUrl }: ShowMapToolOptions): LocalTool<MapRequestEvent> {
  return {
    name: SHOW_MAP_TOOL,
    kind: 'map',
    // First line under 80 characters: the system prompt lists it, and a model quoting a prompt line
    // that long would trip the prompt-leak guard.
    description:
      'Put a campus building, or the route between two, on the map beside your answer.\n' +
      'Use it whenever the user asks where a building is or how to get somewhere on campus.',
    parameters: toolParameters(showMapArgs),
    async run(args): Promise<LocalToolResult<MapRequestEvent>> {
      const parsed = showMapArgs.safeParse(args);
      if (!parsed.success) return { content: BAD_ARGS };
      const destination = catalog.resolve(parsed.data.destination);
      if (!destination) return { content: NO_DESTINATION };
      const origin = parsed.data.origin === null ? null : catalog.resolve(parsed.data.origin);
      const map = buildCampusMap(mapBaseUrl, destination, origin);
      let content: string;
      if (map.mode === 'directions' && origin) {
        content = `${ATTACHED}${ROUTE}${label(origin)} to ${label(destination)}. ${MAP_NOTE}`;
      } else if (parsed.data.origin !== null && !origin) {
        content = `${ATTACHED}${label(destination)} (location only: the origin is not a building in the campus catalog). ${MAP_NOTE}`;
      } else {
        content = `${ATTACHED}${label(destination)}. ${MAP_NOTE}`;
      }
      return { content, events: [{ type: 'map_request', map }] };
    },
  };
}
