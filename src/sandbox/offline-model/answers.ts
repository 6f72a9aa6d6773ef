/**
 * The offline model's answers, written from the tool results it got back (never from its own
 * knowledge: it has none) and the saved facts of the memory block. Markdown that reads well: names,
 * not coordinates; one time format, 12-hour as the campus writes it; a heading and a list where there
 * are several things. A failed or unreadable result becomes an honest sentence instead of a guess.
 */
import type { Conversation } from './conversation.js';
import { DAY_NAMES } from '../campus/dining-hours.js';
import { placeQuery, type Intent } from './intents.js';
import { dietOf, failed, guideHits, mapShown, outcome, parseJson, placeHit, twelveHour, twelveHourClock } from './tool-readings.js';

/** The reply when no rule applies: one line, naming two questions that work offline. */
export const OFFLINE_INTRO =
  'I can\'t answer that offline (no language model is configured here); try "Where is Gates?" or "What\'s open for lunch right now?".';

export const TOOLS_OFF =
  "The campus tools I would need for that are turned off for this conversation, so I can't look it up.";

const CAPABILITIES = [
  "Hello! I'm the campus assistant running offline, on rules over the sandbox campus data. I can help with:",
  '',
  '- **Places and directions**: "Where is Wean Hall?", "How far is Baker Hall from Gates?"',
  '- **Food**: "What\'s open right now?", "Is Nourish open on Saturday?", "Where can I get pizza?"',
  '- **Courses**: "Prerequisites for 15-213?", "Courses about machine learning", "Gen eds in Dietrich"',
  '- **Student guide**: "How does housing work for first-years?", "How do meal plans work?"',
  '- **Memory**: "Remember that I\'m vegetarian", "What do you know about me?"',
].join('\n');

const MAP_LINE = 'It is marked on the campus map that comes with this answer.';
const WALK_METRES_PER_MINUTE = 80;

// ---------------------------------------------------------------- places

function whereAnswer(intent: Extract<Intent, { kind: 'where' }>, conv: Conversation): string {
  const hit = placeHit(conv, placeQuery(intent.place));
  const map = mapShown(conv);
  const searched = conv.done.some((d) => d.name === 'maps_search_buildings');
  const searchFailed = conv.done.some((d) => d.name === 'maps_search_buildings' && failed(d.result));
  const lines: string[] = [];
  if (hit?.type === 'building') {
    lines.push(`**${hit.fullNameWithSpace}** (${hit.nameWithSpace}) is on the main campus.`);
  } else if (hit) {
    // fullNameWithSpace is "<building name> <room>"; the room part is already in nameWithSpace.
    const room = hit.nameWithSpace?.split(' ').slice(1).join(' ') ?? '';
    const full = hit.fullNameWithSpace ?? '';
    const building = room && full.endsWith(` ${room}`) ? full.slice(0, -(room.length + 1)) : full;
    const kind = hit.type && hit.type !== 'room' ? `a ${hit.type} room` : 'a room';
    lines.push(`**${hit.nameWithSpace}** is ${kind} on floor ${hit.floor?.level} of **${building}** (${hit.floor?.buildingCode}).`);
  } else if (map) {
    lines.push(`That is **${map.destination}**.`); // the service's catalog knew a name the search did not
  } else if (searchFailed) {
    return "I couldn't check the campus map data just now; please try again in a moment.";
  } else if (searched) {
    return `I couldn't find "${intent.place}" in the campus map data. Try a building name or code, such as **Wean Hall** or **GHC**.`;
  }
  if (lines.length === 0) return TOOLS_OFF;
  if (map) lines.push(MAP_LINE);
  return lines.join(' ');
}

interface PathNode {
  instruction?: string;
}

function routeAnswer(intent: Extract<Intent, { kind: 'route' }>, conv: Conversation): string {
  const map = mapShown(conv);
  const from = placeHit(conv, placeQuery(intent.origin));
  const to = placeHit(conv, placeQuery(intent.destination));
  const name = (hit: typeof from, label: string | null | undefined, raw: string) =>
    hit?.type === 'building' ? `${hit.fullNameWithSpace} (${hit.nameWithSpace})` : (label ?? (hit?.nameWithSpace || raw));
  const origin = name(from, map?.origin, intent.origin);
  const destination = name(to, map?.destination, intent.destination);
  const known = (hit: typeof from, label: string | null | undefined) => !!hit || !!label;
  if (!known(from, map?.origin) || !known(to, map?.destination)) {
    const missing = !known(from, map?.origin) ? intent.origin : intent.destination;
    if (conv.done.some((d) => d.name === 'maps_search_buildings' && failed(d.result))) {
      return "I couldn't check the campus map data just now; please try again in a moment.";
    }
    return `I couldn't find "${missing}" in the campus map data. Try a building name or code, such as **Wean Hall** or **GHC**.`;
  }
  const metres = Number(conv.done.find((d) => d.name === 'maps_distance_between' && !failed(d.result))?.result);
  const pathResult = conv.done.find((d) => d.name === 'maps_get_path' && !failed(d.result));
  const nodes = ((parseJson(pathResult?.result ?? '') as { fastest?: PathNode[] } | undefined)?.fastest ?? []).map((n) => n.instruction ?? '');
  const minutes = Number.isFinite(metres) && metres >= 0 ? Math.max(1, Math.round(metres / WALK_METRES_PER_MINUTE)) : null;
  const bold = (label: string) => label.replace(/^(.+?)( \([A-Z0-9]+\))?$/, '**$1**$2');
  const lines: string[] = [];
  if (intent.focus === 'distance' && minutes !== null) {
    lines.push(`${bold(destination)} is about **${metres} m** from ${bold(origin)}: roughly a **${minutes}-minute walk**.`);
  } else {
    lines.push(`### Walking from ${origin.replace(/ \([A-Z0-9]+\)$/, '')} to ${destination.replace(/ \([A-Z0-9]+\)$/, '')}`, '');
    if (minutes !== null) lines.push(`About **${metres} m**, roughly a **${minutes}-minute walk**.`);
  }
  if (nodes.length > 0) {
    const steps = nodes.map((step, i) =>
      i === 0 && /^start here$/i.test(step) ? `Start at ${bold(origin)}.` : i === nodes.length - 1 && /^arrive$/i.test(step) ? `Arrive at ${bold(destination)}.` : `${step}.`,
    );
    lines.push('', ...steps.map((s, i) => `${i + 1}. ${s}`));
  } else if (minutes === null) {
    lines.push('', "I couldn't get the walking path just now.");
  }
  if (map) lines.push('', 'The route is marked on the campus map that comes with this answer.');
  return lines.join('\n');
}

// ---------------------------------------------------------------- dining

interface DiningEntry {
  open: boolean;
  name: string;
  cuisine: string;
  location: string;
  hours: string;
  description: string;
}

/** `### 🟢 Name` blocks of the dining Markdown with their field lines. */
function diningEntries(markdown: string): DiningEntry[] {
  return markdown
    .split(/^### /m)
    .slice(1)
    .map((block) => {
      const [head = '', ...rest] = block.split('\n');
      const field = (label: string) => rest.find((l) => l.startsWith(`**${label}:**`))?.slice(label.length + 5).trim() ?? '';
      return {
        open: head.startsWith('🟢'),
        name: head.replace(/^(🟢|🔴)\s*/u, '').trim(),
        cuisine: field('Cuisine'),
        location: field('Location'),
        hours: field('Hours'),
        description: field('Description'),
      };
    });
}

/** Does this place suit the diet ("vegetarian" is also served by vegan dishes)? */
function suits(entry: DiningEntry, diet: string): boolean {
  const text = `${entry.cuisine} ${entry.description}`.toLowerCase();
  return diet === 'vegetarian' ? /vegetarian|vegan/.test(text) : text.includes(diet);
}

const COULD_NOT_CHECK_DINING = "I couldn't check the dining data just now; please try again in a moment.";

function diningItem(e: DiningEntry, options: { status: boolean; diet: string | null }): string {
  const status = options.status ? (e.open ? ', open now' : ', closed now') : '';
  const fits = options.diet && suits(e, options.diet) ? ` (${options.diet} options)` : '';
  return `- **${e.name}**${fits}: ${e.location}${status}. ${twelveHour(e.hours).replace(/ \| /g, '; ')}`;
}

function moment(at: { day: number; hour: number; minute: number }): string {
  return `${DAY_NAMES[at.day]} at ${twelveHourClock(`${at.hour}:${String(at.minute).padStart(2, '0')}`)}`;
}

function eatsAnswer(intent: Extract<Intent, { kind: 'eats' }>, conv: Conversation): string {
  const result = conv.done.find((d) => d.name.startsWith('eats_'));
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return COULD_NOT_CHECK_DINING;
  const diet = dietOf(conv);
  const byDiet = result.name === 'eats_get_locations_by_cuisine' && diet !== null && result.arguments.cuisine_query === diet;
  let entries = diningEntries(result.result);
  const lead: string[] = [];
  if (intent.diet && !diet) {
    lead.push("I don't know your diet yet: tell me, for example, \"Remember that I'm vegetarian\", and I'll take it into account.", '');
  }
  if (entries.length === 0) {
    if (intent.at) return [...lead, `Nothing on campus is open ${moment(intent.at)}.`].join('\n');
    if (byDiet || intent.cuisine) return [...lead, `I didn't find a dining location on campus for "${byDiet ? diet : intent.cuisine}".`].join('\n');
    return [...lead, "Nothing on campus is open right now (campus time). Scotty's Market and the late-night spots open again later."].join('\n');
  }
  const sortDiet = diet !== null && !byDiet && !intent.cuisine;
  if (sortDiet) entries = [...entries.filter((e) => suits(e, diet)), ...entries.filter((e) => !suits(e, diet))];
  const heading = byDiet
    ? `### ${diet!.charAt(0).toUpperCase()}${diet!.slice(1)} options on campus`
    : intent.cuisine
      ? `### ${intent.cuisine.charAt(0).toUpperCase()}${intent.cuisine.slice(1)} on campus`
      : intent.at
        ? `### Open ${moment(intent.at)}`
        : '### Open on campus right now';
  if (byDiet) lead.push(`Since you're ${diet}, here are the places that cater for it.`, '');
  else if (sortDiet && entries.some((e) => suits(e, diet))) lead.push(`Since you're ${diet}, places with ${diet} options come first.`, '');
  const shown = entries.slice(0, 12);
  const status = byDiet || !!intent.cuisine;
  const items = shown.map((e) => diningItem(e, { status, diet: sortDiet || byDiet ? diet : null }));
  const more = entries.length > shown.length ? ['', `…and ${entries.length - shown.length} more.`] : [];
  return [...lead, heading, '', ...items, ...more].join('\n');
}

function diningInAnswer(intent: Extract<Intent, { kind: 'dining-in' }>, conv: Conversation): string {
  const all = outcome(conv, 'eats_get_all_dining_locations');
  if (!all) return TOOLS_OFF;
  if (failed(all.result)) return COULD_NOT_CHECK_DINING;
  const hit = placeHit(conv, placeQuery(intent.place));
  const building = hit?.type === 'building' ? hit.fullNameWithSpace! : placeQuery(intent.place).replace(/\b\p{L}/gu, (c) => c.toUpperCase());
  const here = diningEntries(all.result).filter((e) => e.location.toLowerCase().includes(building.toLowerCase()));
  if (here.length === 0) return `I didn't find any dining location in ${hit ? `**${building}**` : `"${intent.place}"`}. Try "What's open right now?" to see them all.`;
  const diet = dietOf(conv);
  return [`### Dining in ${building}`, '', ...here.map((e) => diningItem(e, { status: true, diet }))].join('\n');
}

function hoursAnswer(intent: Extract<Intent, { kind: 'hours' }>, conv: Conversation): string {
  const result = outcome(conv, 'eats_get_location_hours');
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return COULD_NOT_CHECK_DINING;
  const name = /^# (.+)$/m.exec(result.result)?.[1];
  if (!name) return `I couldn't find a dining location called "${intent.place}". Try "What's open right now?" to see them all.`;
  const open = /\*\*Status:\*\* 🟢/u.test(result.result);
  const location = /^\*\*Location:\*\* (.+)$/m.exec(result.result)?.[1];
  const days = result.result.split('\n').filter((l) => /^- \w+day: /.test(l)).map(twelveHour);
  const lines: string[] = [];
  if (intent.day !== null) {
    const that = days.find((l) => l.startsWith(`- ${DAY_NAMES[intent.day!]}:`))?.split(': ')[1];
    lines.push(that && that !== 'Closed' ? `On ${DAY_NAMES[intent.day]}, **${name}** is open **${that}**.` : `**${name}** is closed on ${DAY_NAMES[intent.day]}.`, '');
  }
  lines.push(`**${name}**${location ? ` (${location})` : ''} is ${open ? 'open' : 'closed'} right now. Weekly hours:`, '', ...days);
  return lines.join('\n');
}

// ---------------------------------------------------------------- courses

interface ScheduleJson {
  year?: number;
  semester?: string;
  lectures?: Array<{ times?: Array<{ days: string[]; begin: string; end: string; building: string; room: string }> }>;
}

const WEEKDAY: Record<string, string> = { M: 'Mon', T: 'Tue', W: 'Wed', R: 'Thu', F: 'Fri', S: 'Sat', U: 'Sun' };

function courseAnswer(intent: Extract<Intent, { kind: 'course' }>, conv: Conversation): string {
  const byId = outcome(conv, 'courses_fetch_course_by_id');
  if (!byId && conv.done.length === 0) return TOOLS_OFF;
  const course = byId && !failed(byId.result) ? (parseJson(byId.result) as Record<string, unknown> | undefined) : undefined;
  if (byId && !course) {
    return /not found/i.test(byId.result) || !failed(byId.result)
      ? `I couldn't find course ${intent.courseId} in the course catalog. Check the number (for example 15-122).`
      : `I couldn't look up course ${intent.courseId} just now; please try again in a moment.`;
  }
  const lines: string[] = [];
  const facts: string[] = [];
  if (course) {
    lines.push(`### ${course.courseID} ${course.name}`, '', `${course.units} units · ${course.department}`, '', String(course.desc), '');
    facts.push(course.prereqString ? `- **Prerequisites:** ${course.prereqString}` : '- **Prerequisites:** none');
  }
  const reqs = outcome(conv, 'courses_fetch_course_requisites');
  const reqData = reqs && !failed(reqs.result) ? (parseJson(reqs.result) as { postreqs?: string[] } | undefined) : undefined;
  if (reqData?.postreqs?.length) facts.push(`- **Leads to:** ${reqData.postreqs.join(', ')}`);
  const sched = outcome(conv, 'courses_fetch_course_schedules');
  const term = sched && !failed(sched.result) ? (parseJson(sched.result) as ScheduleJson[] | undefined)?.[0] : undefined;
  const time = term?.lectures?.[0]?.times?.[0];
  if (term && time) {
    const days = time.days.map((d) => WEEKDAY[d] ?? d).join('/');
    facts.push(`- **Lecture (${term.semester} ${term.year}):** ${days} ${twelveHourClock(time.begin)} - ${twelveHourClock(time.end)} in ${time.building} ${time.room}`);
  }
  const who = outcome(conv, 'courses_fetch_course_instructors');
  const names = who && !failed(who.result) ? (parseJson(who.result) as string[] | undefined) : undefined;
  if (names?.length) facts.push(`- **Taught by:** ${names.join(', ')}`);
  if (lines.length === 0 && facts.length === 0) return `I couldn't look up course ${intent.courseId} just now; please try again in a moment.`;
  return [...lines, ...facts].join('\n').trim();
}

interface CourseJson {
  courseID: string;
  name: string;
  units: string;
  desc?: string;
  tags?: string[];
}

function courseSearchAnswer(intent: Extract<Intent, { kind: 'course-search' }>, conv: Conversation): string {
  const searches = conv.done.filter((d) => d.name === 'courses_search_courses_by_query');
  if (searches.length === 0) return TOOLS_OFF;
  if (searches.every((s) => failed(s.result))) return "I couldn't search the course catalog just now; please try again in a moment.";
  const found = searches.map((s) => parseJson(s.result)).find((l): l is CourseJson[] => Array.isArray(l) && l.length > 0);
  if (!found) return `I didn't find a course about "${intent.topic}" in the catalog. Try another word, or a course number such as 15-122.`;
  return [`### Courses about ${intent.topic}`, '', ...found.slice(0, 8).map((c) => `- **${c.courseID} ${c.name}** (${c.units} units): ${c.desc ?? ''}`.trim())].join('\n');
}

const SCHOOL_NAMES: Record<string, string> = {
  DC: 'Dietrich College',
  SCS: 'the School of Computer Science',
  MCS: 'Mellon College of Science',
  CIT: 'the College of Engineering',
  TSB: 'the Tepper School of Business',
  CFA: 'the College of Fine Arts',
};

function genedsAnswer(intent: Extract<Intent, { kind: 'geneds' }>, conv: Conversation): string {
  const result = conv.done.find((d) => d.name.startsWith('courses_fetch_geneds'));
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return "I couldn't check the gen-ed courses just now; please try again in a moment.";
  const list = parseJson(result.result);
  const school = intent.school ? (SCHOOL_NAMES[intent.school] ?? intent.school) : null;
  const scope = [intent.department ? `${intent.department} ` : '', 'gen eds', school ? ` in ${school}` : ''].join('');
  if (!Array.isArray(list) || list.length === 0) return `I didn't find any ${scope} in the course catalog.`;
  const items = (list as CourseJson[]).slice(0, 10).map((c) => `- **${c.courseID} ${c.name}** (${c.units} units): ${(c.tags ?? []).join(', ')}`);
  const note = intent.school ? [] : ['', 'Gen-ed requirements differ by school: ask, for example, "What gen eds can I take in Dietrich?"'];
  return [`### ${scope.charAt(0).toUpperCase()}${scope.slice(1)}`, '', ...items, ...note].join('\n');
}

// ---------------------------------------------------------------- guide and memory

function guideAnswer(intent: Extract<Intent, { kind: 'guide' }>, conv: Conversation): string {
  const hits = guideHits(conv, intent.query);
  if (hits === undefined) return TOOLS_OFF;
  const search = outcome(conv, 'guide_search_guide');
  if (search && failed(search.result)) return "I couldn't search the student guide just now; please try again in a moment.";
  if (hits.length === 0) return "I didn't find anything about that in the student guide.";
  const section = outcome(conv, 'guide_get_section', { chunk_id: hits[0]!.chunk_id });
  const parsed = section && !failed(section.result) ? (parseJson(section.result) as { heading_path?: string[]; url?: string; content?: string; error?: string } | undefined) : undefined;
  const related = hits.slice(1).map((h) => `- ${(h.heading_path ?? []).join(' › ')}`);
  const relatedLines = related.length ? ['', '**Related in the guide:**', ...related] : [];
  if (parsed?.content && !parsed.error) {
    const body = parsed.content.replace(/^#+ .+\n+/, '').trim();
    const title = (parsed.heading_path ?? []).join(' › ');
    return [`### ${title}`, '', body, '', `Source: [${title}](${parsed.url})`, ...relatedLines].join('\n');
  }
  return ['From the student guide:', '', ...hits.map((h) => `- **${(h.heading_path ?? []).join(' › ')}**: ${h.snippet}`)].join('\n');
}

function rememberAnswer(intent: Extract<Intent, { kind: 'remember' }>, conv: Conversation): string {
  const saved = outcome(conv, 'memory_remember');
  if (!saved) return "Memory is off for this conversation (sign in to let me remember things), so I can't save that.";
  if (failed(saved.result) || /\b(not saved|could not|couldn't|failed)\b/i.test(saved.result)) {
    return "I couldn't save that to your memory just now.";
  }
  return `Got it, I'll remember that: "${intent.fact}".`;
}

function forgetAnswer(conv: Conversation): string {
  const forgot = outcome(conv, 'memory_forget');
  if (!forgot) return 'Memory is off for this conversation, so there is nothing to forget.';
  if (/^Forgot/.test(forgot.result)) return forgot.result.replace(/^Forgot this fact:/, 'Done, I forgot:');
  if (/^(Nothing|No saved fact|Memory is already empty)/.test(forgot.result)) return "I didn't find a saved fact matching that, so nothing was removed.";
  if (/confirm/i.test(forgot.result)) return 'Several saved facts match that. Tell me exactly which one to forget (the memory list shows them).';
  return "I couldn't change your memory just now.";
}

function aboutMeAnswer(conv: Conversation): string {
  if (conv.facts.length === 0) return 'I don\'t have anything saved about you yet. Tell me, for example, "Remember that I\'m vegetarian".';
  return ["Here's what I remember about you:", '', ...conv.facts.map((f) => `- ${f}`)].join('\n');
}

/** The final answer for an intent once its tools have run. */
export function writeAnswer(intent: Intent, conv: Conversation): string {
  switch (intent.kind) {
    case 'where':
      return whereAnswer(intent, conv);
    case 'route':
      return routeAnswer(intent, conv);
    case 'eats':
      return eatsAnswer(intent, conv);
    case 'dining-in':
      return diningInAnswer(intent, conv);
    case 'hours':
      return hoursAnswer(intent, conv);
    case 'course':
      return courseAnswer(intent, conv);
    case 'course-search':
      return courseSearchAnswer(intent, conv);
    case 'geneds':
      return genedsAnswer(intent, conv);
    case 'guide':
      return guideAnswer(intent, conv);
    case 'remember':
      return rememberAnswer(intent, conv);
    case 'forget':
      return forgetAnswer(conv);
    case 'about-me':
      return aboutMeAnswer(conv);
    default:
      if (intent.smallTalk === 'thanks') return "You're welcome! Ask me anything else about campus.";
      if (intent.smallTalk === 'hello') return CAPABILITIES;
      return OFFLINE_INTRO;
  }
}
