import { GROUP_LABELS, type ToolGroup } from '../../tools/tool-groups.js';
import type { Conversation } from './conversation.js';

/**
 * What the offline model's answers share: the lines for tools switched off or not called, the map line, the walking
 * pace and the line for a home no saved fact names.
 */

export const MAP_LINE = 'It is marked on the campus map that comes with this answer.';
export const WALK_METRES_PER_MINUTE = 80;

/** Where the user lives is asked for, and no saved fact says. */
export const UNKNOWN_HOME = 'I don\'t know where you live yet: tell me, for example, "Remember that I live in Stever House",';

/**
 * The answer when the question needs tool groups the user turned off (the system prompt says which): it
 * names them and where to turn them back on. Said only then (issue 78): a tool the service did not offer
 * for other reasons is not a switch the user flipped.
 */
export function toolsOff(groups: Iterable<ToolGroup>): string {
  const names = [...groups].map((g) => GROUP_LABELS[g]);
  const which = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are` : `${names[0] ?? 'That data'} is`;
  return `${which} turned off for this conversation, so I can't look that up; you can turn it back on in Settings.`;
}

/** No tool for the question was offered and the user turned none off: said plainly, with what works. */
export const NOT_LOOKED_UP =
  'I couldn\'t look that up in the campus data this time. I answer from the campus data: places, dining, courses, the student guide and buses from campus; try "Where is Gates?", "What\'s open for lunch right now?" or "Where can I study late?".';

/**
 * The answer when the question's tools (of `group`, or of any group when null) were not called: the
 * groups the user turned off that it needs, or the plain fallback.
 */
export function notLookedUp(conv: Pick<Conversation, 'switchedOff'>, group: ToolGroup | null): string {
  const off = group === null ? [...conv.switchedOff] : conv.switchedOff.has(group) ? [group] : [];
  return off.length > 0 ? toolsOff(off) : NOT_LOOKED_UP;
}
