/**
 * The Markdown the production `eats_*` tools answer with (CAMPUS_TOOLS.md "Dining list format"):
 * a titled list grouped by cuisine with open/closed markers, and the detail view of one place.
 */
import type { DiningLocation } from './data/dining.js';
import { DAY_NAMES, clock12Of, compactHours, detailedHours } from './dining-hours.js';

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

/** One place of a list `diningList` wrote, read back (for the offline model, which reads results by rule). */
export interface DiningEntry {
  open: boolean;
  name: string;
  cuisine: string;
  location: string;
  /** The compact week: `Monday - Friday: 7:30 AM - 2:00 PM | Saturday: …` (dining-hours.ts `hoursOnDay` reads one day). */
  hours: string;
  description: string;
}

const field = (lines: readonly string[], label: string) => lines.find((l) => l.startsWith(`**${label}:**`))?.slice(label.length + 5).trim() ?? '';

/** The places of a `diningList`. */
export function readDiningList(markdown: string): DiningEntry[] {
  return markdown
    .split(/^### /m)
    .slice(1)
    .map((block) => {
      const [head = '', ...rest] = block.split('\n');
      const [open, location, hours] = [head.startsWith('🟢'), field(rest, 'Location'), field(rest, 'Hours')];
      return { open, name: head.replace(/^(🟢|🔴)\s*/u, '').trim(), cuisine: field(rest, 'Cuisine'), location, hours, description: field(rest, 'Description') };
    });
}

/** A `diningDetail`: its place, whether open, where, and each day's hours in 12-hour form (`Closed` as it is); null for "not found". */
export function readDiningDetail(markdown: string): { name: string; open: boolean; location: string; days: Record<string, string> } | null {
  const lines = markdown.split('\n');
  const name = /^# (.+)$/.exec(lines[0] ?? '')?.[1];
  if (!name) return null;
  const days = Object.fromEntries(
    lines.flatMap((l) => {
      const m = /^- (\w+day): (.+)$/.exec(l);
      return m && (DAY_NAMES as readonly string[]).includes(m[1]!) ? [[m[1]!, m[2]!.split(' - ').map(clock12Of).join(' - ')]] : [];
    }),
  );
  return { name, open: field(lines, 'Status').startsWith('🟢'), location: field(lines, 'Location'), days };
}
