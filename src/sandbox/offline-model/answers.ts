/**
 * The offline model's answers, written from the tool results it got back (never from its own
 * knowledge: it has none) and the saved facts of the memory block. Markdown that reads well: names,
 * not coordinates; one time format, 12-hour as the campus writes it; a heading and a list where there
 * are several things. A failed or unreadable result becomes an honest sentence instead of a guess.
 */
import { forgetOutcome } from '../../memory/forget-tool.js';
import { rememberKept } from '../../memory/remember-tool.js';
import type { Conversation } from './conversation.js';
import type { EatsIntent, Intent, OffTopic } from './intents.js';
import { homeOf } from './dialogue.js';
import { bestSource } from './retrieve.js';
import { eatsListCall, nearPlace } from './eats-lists.js';
import { HOME } from './place-names.js';
import { readDiningDetail, readDiningList, type DiningEntry } from '../campus/dining-format.js';
import { DAY_NAMES, clock12, clock12Of, hoursOnDay } from '../campus/dining-hours.js';
import { diningBuilding, diningList, dietOf, failed, guideHits, lectureOf, mapShown, outcome, parseJson, placeHit, schedulesOf, walkMetres } from './tool-readings.js';

/** What the campus data covers, and two questions that work offline: the end of every "can't" answer. */
const COVERS = 'I answer from the campus data: places, dining, courses and the student guide';
const TRY = 'try "Where is Gates?" or "What\'s open for lunch right now?".';

/** The reply when no rule applies: one line, naming two questions that work offline. */
export const OFFLINE_INTRO = `I can't answer that from the campus data (places, dining, courses and the student guide; no language model is configured here); ${TRY}`;

/** Honest answers to what the campus data does not cover, each saying what it can do instead. */
export const OFF_TOPIC_ANSWERS: Record<OffTopic, string> = {
  weather: `I don't have weather data. ${COVERS}; if it's cold or wet out, ask what's open indoors or how far a walk is: try "What's open right now?" or "How far is Baker Hall from Gates?".`,
  creative: `Jokes, poems and stories need a language model, and this offline sandbox has none configured. ${COVERS}; ${TRY}`,
  news: `News and sports aren't in the campus data I can look up. ${COVERS}; ${TRY}`,
  'general-knowledge': `That's outside the campus data, and general knowledge needs a language model, which this offline sandbox does not have. ${COVERS}; ${TRY}`,
  homework: `I won't do graded work for you: homework, problem sets, essays and exams are yours to do, and handing in someone else's work breaks the university's academic integrity policy. I can help around it: when and where a course meets, who teaches it, its prerequisites, or a quiet place to study; try "Who teaches machine learning?" or "Where can I study quietly?".`,
};

export const TOOLS_OFF =
  "The campus tools I would need for that are turned off for this conversation, so I can't look it up.";

// Example questions name no hour or course number: the answer states only what tool data holds (issue 45).
const CAPABILITIES = [
  "Hello! I'm the campus assistant running offline, on rules over the sandbox campus data. I can help with:",
  '',
  '- **Places and directions**: "Where is Wean Hall?", "How far is Baker Hall from Gates?"',
  '- **Food**: "What\'s open right now?", "Is Nourish open on Saturday?", "Coffee near the library", "What\'s open tonight?"',
  '- **Courses**: "Who teaches machine learning?", "Any database courses?", "Courses about machine learning"',
  '- **Student guide**: "How does housing work for first-years?", "How do meal plans work?"',
  '- **Memory**: "Remember that I\'m vegetarian", "What do you know about me?"',
].join('\n');

const MAP_LINE = 'It is marked on the campus map that comes with this answer.';
const WALK_METRES_PER_MINUTE = 80;

// ---------------------------------------------------------------- places

/** Where the user lives is asked for, and no saved fact says. */
const UNKNOWN_HOME = 'I don\'t know where you live yet: tell me, for example, "Remember that I live in Stever House",';

function whereAnswer(intent: Extract<Intent, { kind: 'where' }>, conv: Conversation): string {
  if (intent.place === HOME) return `${UNKNOWN_HOME} and I'll find it on the map.`;
  const hit = placeHit(conv, intent.place);
  const map = mapShown(conv);
  const searched = conv.done.some((d) => d.name === 'maps_search_buildings');
  const searchFailed = conv.done.some((d) => d.name === 'maps_search_buildings' && failed(d.result));
  const lines: string[] = [];
  const room = /\b([A-Z]?\d{3,4}[A-Z]?)\b/i.exec(intent.place)?.[1]?.toUpperCase();
  if (hit?.type === 'building' && room) {
    // A room the map data does not list: room numbers start with their floor.
    lines.push(
      `Room **${hit.nameWithSpace} ${room}** isn't in the campus map data, but room numbers start with their floor: it should be on floor ${room[0]} of **${hit.fullNameWithSpace}** (${hit.nameWithSpace}).`,
    );
  } else if (hit?.type === 'building') {
    // What the map data knows of it: what it holds and its nearest neighbours, when it says.
    lines.push(`**${hit.fullNameWithSpace}** (${hit.nameWithSpace})${hit.description ? `: ${hit.description}.` : ' is on the main campus.'}`);
    const next = (hit.nearby ?? []).map((n) => `${n.name} (${n.code}, ${n.metres} m)`);
    if (next.length > 0) lines.push(`Next to it: ${next.slice(0, -1).join(', ')}${next.length > 1 ? ' and ' : ''}${next.at(-1)}.`);
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
  if (intent.origin === HOME || intent.destination === HOME) return `${UNKNOWN_HOME} and I'll work out the walk.`;
  const map = mapShown(conv);
  const from = placeHit(conv, intent.origin);
  const to = placeHit(conv, intent.destination);
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

/** Does this place suit the diet ("vegetarian" is also served by vegan dishes)? */
function suits(entry: DiningEntry, diet: string): boolean {
  const text = `${entry.cuisine} ${entry.description}`.toLowerCase();
  return diet === 'vegetarian' ? /vegetarian|vegan/.test(text) : text.includes(diet);
}

const COULD_NOT_CHECK_DINING = "I couldn't check the dining data just now; please try again in a moment.";

function diningItem(e: DiningEntry, options: { status: boolean; diet: string | null; day?: number | null; metres?: number | null }): string {
  const status = options.status ? (e.open ? ', open now' : ', closed now') : '';
  const fits = options.diet && suits(e, options.diet) ? ` (${options.diet} options)` : '';
  const walk = options.metres == null ? '' : options.metres === 0 ? ' · **in the same building**' : ` · **${options.metres} m**, ${walkMinutes(options.metres)}`;
  const hours = options.day != null ? `${DAY_NAMES[options.day]} ${hoursOnDay(e.hours, options.day)}` : e.hours.replace(/ \| /g, '; ');
  return `- **${e.name}**${fits}: ${e.location}${walk}${status}. ${hours}`;
}

const walkMinutes = (metres: number) => `about a ${Math.max(1, Math.round(metres / WALK_METRES_PER_MINUTE))}-minute walk`;

function moment(at: { day: number; hour: number; minute: number }): string {
  return `${DAY_NAMES[at.day]} at ${clock12(at.hour * 60 + at.minute)}`;
}

const capital = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}`;

/** Where a "near" question ranks from, and the walk to each building, when the tools said. */
function walksFrom(intent: EatsIntent, conv: Conversation): { label: string | null; metres: (entry: DiningEntry) => number | null; note: string | null } {
  const none = { label: null, metres: () => null };
  if (!intent.near) return { ...none, note: null };
  const from = nearPlace(intent, conv);
  if (!from) {
    return { ...none, note: `${UNKNOWN_HOME} and I'll rank places by the walk from there.` };
  }
  const hit = placeHit(conv, from);
  const origin = hit?.floor?.buildingCode;
  if (!hit || !origin) return { ...none, note: `I couldn't find "${from}" in the campus map data, so this list is not ranked by distance.` };
  const label = `${hit.type === 'building' ? hit.fullNameWithSpace : hit.nameWithSpace}${intent.near === HOME || from === homeOf(conv.facts) ? ' (where you live)' : ''}`;
  // Read once per building: the list is sorted by it and each item shows it.
  const byBuilding = new Map<string, number | null>();
  const metres = (e: DiningEntry) => {
    const building = diningBuilding(e.location);
    if (!byBuilding.has(building)) {
      const code = placeHit(conv, building)?.floor?.buildingCode;
      byBuilding.set(building, code ? (walkMetres(conv, origin, code) ?? null) : null);
    }
    return byBuilding.get(building)!;
  };
  return { label, metres, note: null };
}

function eatsAnswer(intent: EatsIntent, conv: Conversation): string {
  const list = eatsListCall(intent, conv);
  const result = outcome(conv, list.name, list.arguments);
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return COULD_NOT_CHECK_DINING;
  const diet = dietOf(conv);
  const byCuisine = list.name === 'eats_get_locations_by_cuisine';
  const byDiet = byCuisine && diet !== null && list.arguments.cuisine_query === diet && (intent.diet || intent.cuisine === diet);
  const cuisine = byDiet ? diet : intent.cuisine;
  let entries = readDiningList(result.result);
  // Narrowing: a cuisine at a moment keeps what both lists name; a day keeps what opens that day.
  if (byCuisine && intent.at) {
    const openThen = diningList(conv, 'eats_get_locations_open_at_time', { ...intent.at });
    if (!openThen) return COULD_NOT_CHECK_DINING;
    entries = entries.filter((e) => openThen.some((o) => o.name === e.name));
  }
  if (intent.day !== null) entries = entries.filter((e) => hoursOnDay(e.hours, intent.day!) !== null);
  if (byCuisine && intent.now) entries = entries.filter((e) => e.open);
  if (intent.only) entries = entries.filter((e) => suits(e, intent.only!));

  const lead: string[] = [];
  if (intent.diet && !diet) {
    lead.push("I don't know your diet yet: tell me, for example, \"Remember that I'm vegetarian\", and I'll take it into account.", '');
  }
  const when = intent.at ? `${moment(intent.at)}${intent.asked ? ` (${intent.asked})` : ''}` : intent.day !== null ? `on ${DAY_NAMES[intent.day]}` : byCuisine && !intent.now ? '' : 'right now';
  const what = cuisine ? `${capital(cuisine)}${intent.only ? ` with ${intent.only} options` : ''}` : '';
  if (entries.length === 0) {
    if (!cuisine && !intent.at && intent.day === null) {
      return [...lead, "Nothing on campus is open right now (campus time). Scotty's Market and the late-night spots open again later."].join('\n');
    }
    if (cuisine) return [...lead, `I didn't find a dining location on campus for "${what.toLowerCase()}"${when ? ` open ${when}` : ''}.`].join('\n');
    return [...lead, `Nothing on campus is open ${when}.`].join('\n');
  }

  const walks = walksFrom(intent, conv);
  if (walks.note) lead.push(walks.note, '');
  const sortDiet = diet !== null && !byDiet && !cuisine;
  if (sortDiet) entries = [...entries.filter((e) => suits(e, diet)), ...entries.filter((e) => !suits(e, diet))];
  if (walks.label) {
    const far = (e: DiningEntry) => walks.metres(e) ?? Number.POSITIVE_INFINITY;
    entries = [...entries].sort((a, b) => far(a) - far(b));
  }
  const where = walks.label ? `near ${walks.label}` : 'on campus';
  const heading = cuisine
    ? `### ${byDiet ? `${capital(cuisine)} options` : what} ${where}${when && when !== 'right now' ? `, open ${when}` : intent.now ? ', open now' : ''}`
    : intent.at || intent.day !== null
      ? `### Open ${when}${walks.label ? `, ${where}` : ''}`
      : `### Open ${where} right now`;
  if (byDiet) lead.push(`Since you're ${diet}, here are the places that cater for it.`, '');
  else if (sortDiet && !walks.label && entries.some((e) => suits(e, diet))) lead.push(`Since you're ${diet}, places with ${diet} options come first.`, '');
  // A ranked list answers "which is nearest": the five nearest say it; the rest are counted.
  const shown = entries.slice(0, walks.label ? 5 : 12);
  const status = byCuisine && !intent.at && intent.day === null && !intent.now;
  const items = shown.map((e) => diningItem(e, { status, diet: sortDiet || byDiet ? diet : null, day: intent.day, metres: walks.metres(e) }));
  const more = entries.length > shown.length ? ['', `…and ${entries.length - shown.length} more.`] : [];
  const nearest = walks.label ? shown.find((e) => walks.metres(e) !== null) : undefined;
  const map = nearest && mapShown(conv) ? ['', `The walk to the nearest, **${nearest.name}**, is marked on the campus map that comes with this answer.`] : [];
  return [...lead, `${heading}${walks.label ? ', nearest first' : ''}`, '', ...items, ...more, ...map].join('\n');
}

function diningInAnswer(intent: Extract<Intent, { kind: 'dining-in' }>, conv: Conversation): string {
  const all = outcome(conv, 'eats_get_all_dining_locations');
  if (!all) return TOOLS_OFF;
  if (failed(all.result)) return COULD_NOT_CHECK_DINING;
  const hit = placeHit(conv, intent.place);
  const building = hit?.type === 'building' ? hit.fullNameWithSpace! : intent.place.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
  const here = readDiningList(all.result).filter((e) => e.location.toLowerCase().includes(building.toLowerCase()));
  if (here.length === 0) return `I didn't find any dining location in ${hit ? `**${building}**` : `"${intent.place}"`}. Try "What's open right now?" to see them all.`;
  const diet = dietOf(conv);
  return [`### Dining in ${building}`, '', ...here.map((e) => diningItem(e, { status: true, diet }))].join('\n');
}

/** "When does the UC close?": a building is not a dining location; its dining places and their hours instead. */
function buildingHoursAnswer(intent: Extract<Intent, { kind: 'hours' }>, conv: Conversation): string {
  const all = outcome(conv, 'eats_get_all_dining_locations')!;
  if (failed(all.result)) return COULD_NOT_CHECK_DINING;
  const hit = placeHit(conv, intent.place);
  if (hit?.type !== 'building') {
    return `I couldn't find a dining location or a building called "${intent.place}". Try "What's open right now?" to see every dining location.`;
  }
  const building = `**${hit.fullNameWithSpace}** (${hit.nameWithSpace})`;
  const first = `I couldn't find a dining location called "${intent.place}". The campus map matches it to the building ${building}, and building opening hours aren't in the campus data.`;
  const here = readDiningList(all.result).filter((e) => e.location.toLowerCase().startsWith(hit.fullNameWithSpace!.toLowerCase()));
  if (here.length === 0) return first;
  const day = intent.day;
  return [first, '', `Dining inside it${day !== null ? ` on ${DAY_NAMES[day]}` : ''}:`, '', ...here.map((e) => diningItem(e, { status: day === null, diet: dietOf(conv), day: day !== null && hoursOnDay(e.hours, day) ? day : null }))].join('\n');
}

function hoursAnswer(intent: Extract<Intent, { kind: 'hours' }>, conv: Conversation): string {
  if (outcome(conv, 'eats_get_all_dining_locations')) return buildingHoursAnswer(intent, conv);
  const result = outcome(conv, 'eats_get_location_hours');
  if (!result) return TOOLS_OFF;
  if (failed(result.result)) return COULD_NOT_CHECK_DINING;
  const detail = readDiningDetail(result.result);
  if (!detail) return `I couldn't find a dining location called "${intent.place}". Try "What's open right now?" to see them all.`;
  const { name, open, location, days } = detail;
  const lines: string[] = [];
  if (intent.day !== null) {
    const that = days[DAY_NAMES[intent.day]!];
    lines.push(that && that !== 'Closed' ? `On ${DAY_NAMES[intent.day]}, **${name}** is open **${that}**.` : `**${name}** is closed on ${DAY_NAMES[intent.day]}.`, '');
  }
  const week = Object.entries(days).map(([day, hours]) => `- ${day}: ${hours}`);
  lines.push(`**${name}**${location ? ` (${location})` : ''} is ${open ? 'open' : 'closed'} right now. Weekly hours:`, '', ...week);
  return lines.join('\n');
}

// ---------------------------------------------------------------- courses

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
  const terms = schedulesOf(conv);
  const asked = intent.term ? terms?.find((t) => t.semester === intent.term) : undefined;
  const lecture = lectureOf(conv, intent.term);
  const name = course ? `**${course.courseID} ${course.name}**` : `**${intent.courseId}**`;
  if (intent.term && terms) {
    // The question asked comes first: is it offered that semester?
    const listed = [...new Set(terms.map((t) => `${t.semester} ${t.year}`))].join(' and ');
    lines.unshift(
      asked
        ? `Yes: ${name} is offered in ${asked.semester} ${asked.year}.`
        : `The schedule data lists ${name} only in ${listed || 'no semester'}, not in ${intent.term}; check the Schedule of Classes when the ${intent.term.toLowerCase()} schedule is published.`,
      '',
    );
  }
  if (lecture) {
    const days = lecture.days.map((d) => WEEKDAY[d] ?? d).join('/');
    facts.push(`- **Lecture (${lecture.semester} ${lecture.year}):** ${days} ${clock12Of(lecture.begin)} - ${clock12Of(lecture.end)} in ${lecture.building} ${lecture.room}`);
    const map = intent.aspects.includes('place') ? mapShown(conv) : null;
    if (map) lines.unshift(`${name} meets in **${lecture.building} ${lecture.room}**, in ${map.destination}. ${MAP_LINE}`, '');
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

function courseSearchAnswer(topic: string, conv: Conversation): string {
  const searches = conv.done.filter((d) => d.name === 'courses_search_courses_by_query');
  if (searches.length === 0) return TOOLS_OFF;
  if (searches.every((s) => failed(s.result))) return "I couldn't search the course catalog just now; please try again in a moment.";
  const found = searches.map((s) => parseJson(s.result)).find((l): l is CourseJson[] => Array.isArray(l) && l.length > 0);
  if (!found) return `I didn't find a course about "${topic}" in the catalog. Try another word, or a course number such as 15-122.`;
  const who = parseJson(outcome(conv, 'courses_fetch_course_instructors')?.result ?? '');
  const lead = Array.isArray(who) && who.length > 0 ? [`**${found[0]!.courseID} ${found[0]!.name}** is taught by ${who.join(' and ')}.`, ''] : [];
  return [...lead, `### Courses about ${topic}`, '', ...found.slice(0, 8).map((c) => `- **${c.courseID} ${c.name}** (${c.units} units): ${c.desc ?? ''}`.trim())].join('\n');
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

function guideAnswer(query: string, conv: Conversation): string {
  const hits = guideHits(conv, query);
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
  if (!rememberKept(saved.result)) return "I couldn't save that to your memory just now.";
  return `Got it, I'll remember that: "${intent.fact}".`;
}

function forgetAnswer(conv: Conversation): string {
  const forgot = outcome(conv, 'memory_forget');
  if (!forgot) return 'Memory is off for this conversation, so there is nothing to forget.';
  const said = forgetOutcome(forgot.result);
  // The tool lists what it removed; the memory list in the app shows the rest.
  if (said === 'forgot') return `Done: ${forgot.result.charAt(0).toLowerCase()}${forgot.result.slice(1)}`;
  if (said === 'nothing') return "I didn't find a saved fact matching that, so nothing was removed.";
  if (said === 'ask') return 'Several saved facts match that. Tell me exactly which one to forget (the memory list shows them).';
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
    case 'geneds':
      return genedsAnswer(intent, conv);
    case 'remember':
      return rememberAnswer(intent, conv);
    case 'forget':
      return forgetAnswer(conv);
    case 'about-me':
      return aboutMeAnswer(conv);
    case 'search': {
      const best = bestSource(intent.query, conv);
      // A question that named its source is answered from it, found or not.
      const from = best?.source ?? intent.only;
      if (from === 'guide') return guideAnswer(intent.query, conv);
      if (from === 'courses') return courseSearchAnswer(intent.query, conv);
      if (best?.source === 'place') return whereAnswer({ kind: 'where', place: intent.query }, conv);
      if (conv.done.length === 0) return TOOLS_OFF;
      // Nothing found because nothing could be searched is not "not covered".
      if (conv.done.every((d) => failed(d.result))) return "I couldn't search the campus data just now; please try again in a moment.";
      return intent.offTopic ? OFF_TOPIC_ANSWERS[intent.offTopic] : OFFLINE_INTRO;
    }
    default:
      if (intent.smallTalk === 'thanks') return "You're welcome! Ask me anything else about campus.";
      if (intent.smallTalk === 'hello') return CAPABILITIES;
      return intent.offTopic ? OFF_TOPIC_ANSWERS[intent.offTopic] : OFFLINE_INTRO;
  }
}
