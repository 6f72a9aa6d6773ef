/**
 * The production tool server's tools (CAMPUS_TOOLS.md, "Tools" and "bus": 28 names in five groups) all
 * belong to a group the service knows, so each is bound by the planner's hints and can be switched off
 * in Settings; none is left to the ungrouped path (bound only when a turn binds every group).
 */
import { describe, expect, it } from 'vitest';
import { GROUP_LABELS, normalizeDisabledTools, TOOL_GROUPS, toolGroupOf } from '../src/tools/tool-groups.js';

/** What the production server publishes, as CAMPUS_TOOLS.md lists it. */
const PRODUCTION_TOOLS = [
  'maps_search_buildings',
  'maps_get_path',
  'maps_list_possible_locations',
  'maps_distance_between',
  'courses_fetch_course_by_id',
  'courses_fetch_courses_by_ids',
  'courses_fetch_course_requisites',
  'courses_search_courses_by_query',
  'courses_fetch_course_instructors',
  'courses_fetch_course_schedules',
  'courses_fetch_geneds_tool',
  'courses_fetch_geneds_for_department_tool',
  'eats_get_all_dining_locations',
  'eats_search_dining_locations',
  'eats_get_locations_open_now',
  'eats_get_locations_open_at_time',
  'eats_get_location_hours',
  'eats_get_locations_by_cuisine',
  'guide_search_guide',
  'guide_get_section',
  'guide_get_page',
  'guide_list_pages',
  'guide_refresh_index',
  'bus_get_bus_predictions',
  'bus_get_stop_predictions',
  'bus_get_next_bus',
  'bus_search_bus_predictions',
  'bus_get_cmu_prt_rider_guide',
];

describe('the production tool list', () => {
  it('maps every one of its 28 tools to a known group', () => {
    expect(PRODUCTION_TOOLS).toHaveLength(new Set(PRODUCTION_TOOLS).size);
    expect(PRODUCTION_TOOLS.filter((name) => toolGroupOf(name) === null)).toEqual([]);
    // Every known group is published, and each has the label the front end's Settings send.
    expect([...new Set(PRODUCTION_TOOLS.map(toolGroupOf))]).toEqual(['maps', 'courses', 'eats', 'guide', 'bus']);
    expect(normalizeDisabledTools(TOOL_GROUPS.map((g) => GROUP_LABELS[g]))).toEqual([...TOOL_GROUPS]);
  });

  it('would fail on a tool of a group the service does not know', () => {
    expect([...PRODUCTION_TOOLS, 'parking_find_spots'].filter((name) => toolGroupOf(name) === null)).toEqual(['parking_find_spots']);
  });
});
