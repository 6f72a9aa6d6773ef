/**
 * Tool groups: the `<group>_<action>` naming of CAMPUS_TOOLS.md, the labels the front end uses for the
 * Settings toggles, and the normalisation of `disabled_tools` entries (ids or labels) to group ids.
 */
/** Tool groups the service knows (CAMPUS_TOOLS.md "Naming"). */
export const TOOL_GROUPS = ['maps', 'courses', 'eats', 'guide', 'bus'] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/** The front end's labels for the groups (CAMPUS_TOOLS.md "Naming"). */
export const GROUP_LABELS: Readonly<Record<ToolGroup, string>> = {
  maps: 'CMUMaps',
  courses: 'CMUCourses',
  eats: 'CMUEats',
  guide: 'CMU Guide',
  bus: 'CMU Bus',
};

/** The service's own map tool: never taken from the tool server. */
export const SHOW_MAP_TOOL = 'maps_show_map';

function isToolGroup(value: string): value is ToolGroup {
  return (TOOL_GROUPS as readonly string[]).includes(value);
}

/** The known group of a tool name, or null for a group the service does not know (a group the tool server adds later). */
export function toolGroupOf(name: string): ToolGroup | null {
  const prefix = name.split('_', 1)[0] ?? '';
  return isToolGroup(prefix) ? prefix : null;
}

/**
 * `disabled_tools` entries to group ids: `maps`, `CMUMaps`, `cmu_maps`, `CMU Guide`, `CMU Bus` all normalise by
 * lower-casing, dropping non-letters and a leading `cmu`. Unknown entries are ignored; order kept,
 * duplicates dropped.
 */
export function normalizeDisabledTools(entries: readonly string[]): ToolGroup[] {
  const out: ToolGroup[] = [];
  for (const entry of entries) {
    const key = entry.toLowerCase().replace(/[^a-z]/g, '').replace(/^cmu/, '');
    if (isToolGroup(key) && !out.includes(key)) out.push(key);
  }
  return out;
}
