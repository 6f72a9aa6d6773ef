/**
 * The sandbox's `maps` group, mirroring the production tool names, arguments and result formats of
 * CAMPUS_TOOLS.md over the sample buildings. (`maps_show_map` is the service's own tool, not here.)
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { distanceMetres, possibleLocations, resolvePoint, searchPlaces, type Point } from './places.js';
import { errorResult, jsonResult } from './tool-results.js';

function pathNode(p: Point, id: string, instruction: string) {
  return { floor: p.floor, coordinate: { latitude: p.latitude, longitude: p.longitude }, id, instruction };
}

/** Registers the four maps tools on a server. */
export function registerMapsTools(server: McpServer): void {
  server.registerTool(
    'maps_search_buildings',
    {
      description:
        'Search campus buildings, rooms and places by name, code or room number.\n\nArgs:\n    query: Text to search for, e.g. "Gates" or "GHC 4401".\n\nReturns a JSON object with a "results" list of matching places.',
      inputSchema: { query: z.string() },
    },
    async ({ query }) => jsonResult({ results: searchPlaces(query) }),
  );

  server.registerTool(
    'maps_get_path',
    {
      description:
        'Find a walking path between two places on campus.\n\nArgs:\n    start_id: Building code, room id or "lat,lon" of the start.\n    end_id: Building code, room id or "lat,lon" of the destination.',
      inputSchema: { start_id: z.string(), end_id: z.string() },
    },
    async ({ start_id, end_id }) => {
      const start = resolvePoint(start_id);
      const end = resolvePoint(end_id);
      if (!start) return errorResult('maps_get_path', `Unknown location: ${start_id}`);
      if (!end) return errorResult('maps_get_path', `Unknown location: ${end_id}`);
      const metres = distanceMetres(start, end);
      const mid: Point = {
        latitude: (start.latitude + end.latitude) / 2,
        longitude: (start.longitude + end.longitude) / 2,
        label: 'outdoors',
        floor: 'outside',
      };
      const fastest = [
        pathNode(start, start_id, 'Start here'),
        pathNode(mid, 'outside-1', `Walk about ${metres} m toward ${end.label}`),
        pathNode(end, end_id, 'Arrive'),
      ];
      return jsonResult({ fastest, outdoor: fastest, indoor: null });
    },
  );

  server.registerTool(
    'maps_list_possible_locations',
    {
      description:
        'List the names of places that match a query, to disambiguate before searching.\n\nArgs:\n    query: Partial name of a building or room.',
      inputSchema: { query: z.string() },
    },
    async ({ query }) => jsonResult(possibleLocations(query)),
  );

  server.registerTool(
    'maps_distance_between',
    {
      description:
        'Straight-line distance in metres between two places; -1 when either is unknown.\n\nArgs:\n    start_id: Building code, room id or "lat,lon".\n    end_id: Building code, room id or "lat,lon".',
      inputSchema: { start_id: z.string(), end_id: z.string() },
    },
    async ({ start_id, end_id }) => {
      const start = resolvePoint(start_id);
      const end = resolvePoint(end_id);
      // The production server never errors here: unknown endpoints are -1 (CAMPUS_TOOLS.md).
      return jsonResult(start && end ? distanceMetres(start, end) : -1);
    },
  );
}
