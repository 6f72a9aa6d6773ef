/**
 * The Markdown the production `eats_*` tools answer with (CAMPUS_TOOLS.md "Dining list format"):
 * a titled list grouped by cuisine with open/closed markers, and the detail view of one place.
 */
import type { DiningLocation } from './data/dining.js';
import { compactHours, detailedHours } from './dining-hours.js';

/** `# Title`, the counts line, then `## Cuisine (n)` groups of `### 🟢|🔴 Name` entries. */
export function diningList(title: string, places: readonly DiningLocation[], isOpen: (p: DiningLocation) => boolean): string {
  const openCount = places.filter(isOpen).length;
  const lines = [`# ${title}`, '', `**${places.length} locations found** • **${openCount} currently open**`];
  const byCuisine = new Map<string, DiningLocation[]>();
  for (const p of places) byCuisine.set(p.cuisine, [...(byCuisine.get(p.cuisine) ?? []), p]);
  for (const [cuisine, group] of [...byCuisine].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push('', `## ${cuisine} (${group.length})`);
    for (const p of group) {
      lines.push(
        '',
        `### ${isOpen(p) ? '🟢' : '🔴'} ${p.name}`,
        `**Cuisine:** ${p.cuisine}`,
        `**Location:** ${p.location}`,
        `**Hours:** ${compactHours(p)}`,
        `**Description:** ${p.description}`,
      );
    }
  }
  return lines.join('\n');
}

/** One place with its status and `**Detailed Hours:**` bullets. */
export function diningDetail(place: DiningLocation, open: boolean): string {
  return [
    `# ${place.name}`,
    '',
    `**Status:** ${open ? '🟢 Open now' : '🔴 Closed now'}`,
    `**Cuisine:** ${place.cuisine}`,
    `**Location:** ${place.location}`,
    `**Description:** ${place.description}`,
    '',
    '**Detailed Hours:**',
    ...detailedHours(place),
  ].join('\n');
}
