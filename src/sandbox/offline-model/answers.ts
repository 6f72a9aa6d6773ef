/**
 * The offline model's answers, written from the tool results it got back (never from its own
 * knowledge: it has none). Each writer reads one tool's production result format; a failed or
 * unreadable result becomes an honest sentence instead of a guess.
 */
import type { Intent } from './intents.js';
import type { ToolOutcomeSeen } from './conversation.js';

/** The reply when no rule applies. */
export const OFFLINE_INTRO =
  "I'm the offline sandbox model: no language model is configured, so I answer by simple rules over the " +
  'sandbox campus tools. Try "Where is Gates?", "What can I eat right now?", "What are the prerequisites ' +
  'for 15-213?" or "Please remember that I am vegetarian". A real model needs LLM_GATEWAY_API_KEY.';

export const TOOLS_OFF =
  "The campus tools I would need for that are turned off for this conversation, so I can't look it up.";

/** Pipeline guidance for a failed call, or the tool server's own error result. */
function failed(result: string): boolean {
  return /^Error calling tool /.test(result) || /lookup is unavailable right now/.test(result);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const find = (done: ToolOutcomeSeen[], name: string) => done.find((d) => d.name === name);

function whereAnswer(intent: Extract<Intent, { kind: 'where' }>, done: ToolOutcomeSeen[]): string {
  const map = find(done, 'maps_show_map');
  const mapShown = !!map && /^Map attached/.test(map.result);
  const search = find(done, 'maps_search_buildings');
  const lines: string[] = [];
  const parsed = search && !failed(search.result) ? (parseJson(search.result) as { results?: unknown[] } | undefined) : undefined;
  const first = parsed?.results?.[0] as
    | { nameWithSpace?: string; fullNameWithSpace?: string; type?: string; labelPosition?: { latitude?: number; longitude?: number }; floor?: { buildingCode?: string; level?: string } }
    | undefined;
  if (first) {
    const lat = first.labelPosition?.latitude?.toFixed(5);
    const lon = first.labelPosition?.longitude?.toFixed(5);
    if (first.type === 'building') {
      lines.push(`**${first.fullNameWithSpace}** (${first.nameWithSpace}) is on campus at ${lat}, ${lon}.`);
    } else {
      // fullNameWithSpace is "<building name> <room>"; the room part is already in nameWithSpace.
      const room = first.nameWithSpace?.split(' ').slice(1).join(' ') ?? '';
      const full = first.fullNameWithSpace ?? '';
      const building = room && full.endsWith(` ${room}`) ? full.slice(0, -(room.length + 1)) : full;
      lines.push(`**${first.nameWithSpace}** is on floor ${first.floor?.level} of ${building} (${first.floor?.buildingCode}), at ${lat}, ${lon}.`);
    }
  } else if (search && failed(search.result)) {
    lines.push("I couldn't check the campus map data just now.");
  } else if (mapShown) {
    // The tool server found nothing, but the service's catalog knew the name (a nickname such as "the UC").
    const label = /^Map attached: (?:the route from .+? to )?(.+? \([A-Z0-9]+\))/.exec(map.result)?.[1];
    if (label) lines.push(`That is **${label}**.`);
  } else if (search) {
    lines.push(`I couldn't find "${intent.place}" in the campus map data. Try a building name or code, such as Wean Hall or GHC.`);
  }
  if (mapShown) {
    lines.push(intent.origin ? `The map beside this answer shows the walking route from ${intent.origin}.` : "I've marked it on the map beside this answer.");
  }
  if (lines.length === 0) return TOOLS_OFF;
  return lines.join(' ');
}

interface DiningEntry {
  open: boolean;
  name: string;
  location: string;
  hours: string;
}

/** `### 🟢 Name` blocks of the dining Markdown with their Location and Hours lines. */
function diningEntries(markdown: string): DiningEntry[] {
  return markdown
    .split(/^### /m)
    .slice(1)
    .map((block) => {
      const [head = '', ...rest] = block.split('\n');
      const field = (label: string) => rest.find((l) => l.startsWith(`**${label}:**`))?.slice(label.length + 5).trim() ?? '';
      return { open: head.startsWith('🟢'), name: head.replace(/^(🟢|🔴)\s*/u, '').trim(), location: field('Location'), hours: field('Hours') };
    });
}

function eatsAnswer(intent: Extract<Intent, { kind: 'eats' }>, done: ToolOutcomeSeen[]): string {
  const result = done.find((d) => d.name.startsWith('eats_'));
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return "I couldn't check the dining data just now; please try again in a moment.";
  const entries = diningEntries(result.result);
  if (entries.length === 0 && intent.at) return result.result.split('\n')[0]!; // "No dining locations are open on …"
  if (entries.length === 0) {
    return intent.cuisine
      ? `I didn't find any dining location on campus for "${intent.cuisine}".`
      : 'No dining locations on campus are open right now (campus time). Scotty’s Market and the late-night spots open again later.';
  }
  const shown = entries.slice(0, 8);
  const when = intent.at ? /^# Dining Locations Open (.+)$/m.exec(result.result)?.[1] : undefined;
  const head = intent.cuisine
    ? `Places for ${intent.cuisine} on campus:`
    : when
      ? `Open on campus ${when}:`
      : "Here's what is open on campus right now:";
  const items = shown.map((e) => `- ${intent.cuisine ? (e.open ? '🟢 ' : '🔴 ') : ''}**${e.name}**, ${e.location} (${e.hours})`);
  const more = entries.length > shown.length ? [`…and ${entries.length - shown.length} more.`] : [];
  return [head, '', ...items, ...more].join('\n');
}

/** The parts of a `courses_fetch_course_schedules` entry the answer uses. */
interface ScheduleJson {
  year?: number;
  semester?: string;
  lectures?: Array<{ times?: Array<{ days: string[]; begin: string; end: string; building: string; room: string }> }>;
}

function hoursAnswer(intent: Extract<Intent, { kind: 'hours' }>, done: ToolOutcomeSeen[]): string {
  const result = find(done, 'eats_get_location_hours');
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return "I couldn't check the dining data just now; please try again in a moment.";
  const name = /^# (.+)$/m.exec(result.result)?.[1];
  if (!name) return `I couldn't find a dining location called "${intent.place}".`;
  const open = /\*\*Status:\*\* 🟢/u.test(result.result);
  const location = /^\*\*Location:\*\* (.+)$/m.exec(result.result)?.[1];
  const days = result.result.split('\n').filter((l) => /^- \w+day: /.test(l));
  return [`**${name}**${location ? ` (${location})` : ''} is ${open ? 'open' : 'closed'} right now. Weekly hours:`, '', ...days].join('\n');
}

function courseAnswer(intent: Extract<Intent, { kind: 'course' }>, done: ToolOutcomeSeen[]): string {
  const byId = find(done, 'courses_fetch_course_by_id');
  if (!byId && done.length === 0) return TOOLS_OFF;
  const course = byId && !failed(byId.result) ? (parseJson(byId.result) as Record<string, unknown> | undefined) : undefined;
  if (byId && !course) return `I couldn't find course ${intent.courseId} in the course catalog. Check the number (for example 15-122).`;
  const parts: string[] = [];
  if (course) {
    parts.push(`**${course.courseID} ${course.name}** (${course.units} units, ${course.department}). ${course.desc}`);
    parts.push(course.prereqString ? `Prerequisites: ${course.prereqString}.` : 'It has no prerequisites.');
  }
  const reqs = find(done, 'courses_fetch_course_requisites');
  const reqData = reqs && !failed(reqs.result) ? (parseJson(reqs.result) as { postreqs?: string[] } | undefined) : undefined;
  if (reqData?.postreqs?.length) parts.push(`It leads to: ${reqData.postreqs.join(', ')}.`);
  const sched = find(done, 'courses_fetch_course_schedules');
  const schedData = sched && !failed(sched.result) ? (parseJson(sched.result) as ScheduleJson[] | undefined) : undefined;
  const term = schedData?.[0];
  const time = term?.lectures?.[0]?.times?.[0];
  if (term && time) parts.push(`In ${term.semester} ${term.year} the lecture meets ${time.days.join('')} ${time.begin}-${time.end} in ${time.building} ${time.room}.`);
  const who = find(done, 'courses_fetch_course_instructors');
  const names = who && !failed(who.result) ? (parseJson(who.result) as string[] | undefined) : undefined;
  if (names?.length) parts.push(`Taught by ${names.join(', ')}.`);
  return parts.join(' ') || `I couldn't look up course ${intent.courseId} just now.`;
}

function rememberAnswer(intent: Extract<Intent, { kind: 'remember' }>, done: ToolOutcomeSeen[]): string {
  const saved = find(done, 'memory_remember');
  if (!saved) return "Memory is off for this conversation (sign in to let me remember things), so I can't save that.";
  if (failed(saved.result) || /\b(not saved|could not|couldn't|failed)\b/i.test(saved.result)) {
    return "I couldn't save that to your memory just now.";
  }
  return `Got it, I'll remember that: "${intent.fact}".`;
}

function forgetAnswer(done: ToolOutcomeSeen[]): string {
  const forgot = find(done, 'memory_forget');
  if (!forgot) return "Memory is off for this conversation, so there is nothing to forget.";
  if (/^Forgot/.test(forgot.result)) return forgot.result.replace(/^Forgot this fact:/, 'Done, I forgot:');
  if (/^(Nothing|No saved fact|Memory is already empty)/.test(forgot.result)) return "I didn't find a saved fact matching that, so nothing was removed.";
  if (/confirm/i.test(forgot.result)) return 'Several saved facts match that. Tell me exactly which one to forget (the memory list shows them).';
  return "I couldn't change your memory just now.";
}

function guideAnswer(done: ToolOutcomeSeen[]): string {
  const search = find(done, 'guide_search_guide');
  if (!search) return TOOLS_OFF;
  const hits = failed(search.result) ? undefined : (parseJson(search.result) as Array<{ heading_path?: string[]; snippet?: string }> | undefined);
  if (!hits?.length) return "I didn't find anything about that in the student guide.";
  return ['From the student guide:', '', ...hits.slice(0, 3).map((h) => `- **${(h.heading_path ?? []).join(' › ')}**: ${h.snippet}`)].join('\n');
}

/** The final answer for an intent once its tools have run. */
export function writeAnswer(intent: Intent, done: ToolOutcomeSeen[]): string {
  switch (intent.kind) {
    case 'where':
      return whereAnswer(intent, done);
    case 'eats':
      return eatsAnswer(intent, done);
    case 'hours':
      return hoursAnswer(intent, done);
    case 'course':
      return courseAnswer(intent, done);
    case 'remember':
      return rememberAnswer(intent, done);
    case 'forget':
      return forgetAnswer(done);
    case 'guide':
      return guideAnswer(done);
    default:
      if (intent.smallTalk === 'thanks') return "You're welcome! (I'm the offline sandbox model, answering by rules over the sandbox campus tools.)";
      if (intent.smallTalk === 'hello') return `Hello! ${OFFLINE_INTRO}`;
      return OFFLINE_INTRO;
  }
}
