/**
 * The sandbox's `eats` group: production tool names and Markdown results over the sample dining
 * locations, open/closed judged at call time in America/New_York with an injectable clock.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SANDBOX_DINING, type DiningLocation } from './data/dining.js';
import { diningDetail, diningList } from './dining-format.js';
import { DAY_NAMES, campusTime, isOpenAt } from './dining-hours.js';
import { textIndex } from './text-search.js';
import { errorResult, textResult } from './tool-results.js';

/** Cuisine questions, by cuisine first, then name and description (text-search.ts). */
const BY_CUISINE = textIndex(SANDBOX_DINING, {
  cuisine: { text: (p) => p.cuisine, boost: 3 },
  name: { text: (p) => p.name, boost: 2 },
  description: { text: (p) => p.description },
});

const includes = (text: string, query: string) => text.toLowerCase().includes(query.trim().toLowerCase());

/** Registers the six eats tools on a server; `now` is read on every call. */
export function registerEatsTools(server: McpServer, now: () => Date): void {
  const openNow = (p: DiningLocation) => {
    const { day, minute } = campusTime(now());
    return isOpenAt(p, day, minute);
  };

  server.registerTool(
    'eats_get_all_dining_locations',
    {
      description:
        'List every dining location on campus with hours and whether it is open.\n\nReturns the list formatted as clean markdown.',
    },
    async () => textResult(diningList('All Dining Locations', SANDBOX_DINING, openNow)),
  );

  server.registerTool(
    'eats_search_dining_locations',
    {
      description: 'Search dining locations by name.\n\nArgs:\n    name_query: Part of the name, e.g. "pizza".',
      inputSchema: { name_query: z.string() },
    },
    async ({ name_query }) => {
      const found = SANDBOX_DINING.filter((p) => includes(p.name, name_query));
      if (found.length === 0)
        return textResult(`# Search Results for '${name_query}'\n\nNo dining locations found matching '${name_query}'.`);
      return textResult(diningList(`Search Results for '${name_query}'`, found, openNow));
    },
  );

  server.registerTool(
    'eats_get_locations_open_now',
    {
      description: 'Dining locations open right now (campus time).\n\nReturns the list formatted as clean markdown.',
    },
    async () => {
      const open = SANDBOX_DINING.filter(openNow);
      if (open.length === 0) return textResult('No dining locations are currently open.');
      return textResult(diningList('Dining Locations Open Now', open, () => true));
    },
  );

  server.registerTool(
    'eats_get_locations_open_at_time',
    {
      description:
        'Dining locations open at a given weekday and time.\n\nArgs:\n    day: 0=Sunday .. 6=Saturday.\n    hour: 0-23.\n    minute: 0-59 (default 0).',
      inputSchema: { day: z.number().int(), hour: z.number().int(), minute: z.number().int().default(0) },
    },
    async ({ day, hour, minute }) => {
      // Range checks here rather than in the schema, so the failure reads like production's.
      if (day < 0 || day > 6) return errorResult('eats_get_locations_open_at_time', `day must be between 0 and 6, got ${day}`);
      if (hour < 0 || hour > 23) return errorResult('eats_get_locations_open_at_time', `hour must be between 0 and 23, got ${hour}`);
      if (minute < 0 || minute > 59)
        return errorResult('eats_get_locations_open_at_time', `minute must be between 0 and 59, got ${minute}`);
      const at = (p: DiningLocation) => isOpenAt(p, day, hour * 60 + minute);
      const open = SANDBOX_DINING.filter(at);
      const when = `${DAY_NAMES[day]} at ${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
      if (open.length === 0) return textResult(`No dining locations are open on ${when}.`);
      return textResult(diningList(`Dining Locations Open ${when}`, open, () => true));
    },
  );

  server.registerTool(
    'eats_get_location_hours',
    {
      description: 'Weekly hours of one dining location.\n\nArgs:\n    location_name: Name or part of it.',
      inputSchema: { location_name: z.string() },
    },
    async ({ location_name }) => {
      const place = SANDBOX_DINING.find((p) => includes(p.name, location_name));
      if (!place) return textResult(`No dining location found matching '${location_name}'.`);
      return textResult(diningDetail(place, openNow(place)));
    },
  );

  server.registerTool(
    'eats_get_locations_by_cuisine',
    {
      description: 'Dining locations serving a cuisine.\n\nArgs:\n    cuisine_query: e.g. "pizza", "coffee", "vegetarian".',
      inputSchema: { cuisine_query: z.string() },
    },
    async ({ cuisine_query }) => {
      const found = BY_CUISINE.search(cuisine_query, SANDBOX_DINING.length).map((hit) => hit.item);
      if (found.length === 0) return textResult(`No dining locations found serving '${cuisine_query}'.`);
      return textResult(diningList(`Cuisine Search Results for '${cuisine_query}'`, found, openNow));
    },
  );
}
