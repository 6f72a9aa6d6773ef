/**
 * The offline model's answers, written from the tool results it got back (never from its own
 * knowledge: it has none) and the saved facts of the memory block. Markdown that reads well: names,
 * not coordinates; one time format, 12-hour as the campus writes it; a heading and a list where there
 * are several things. A failed or unreadable result becomes an honest sentence instead of a guess.
 * Places, the guide and memory are written here; dining in dining-answers.ts, courses in
 * course-answers.ts, buses in bus-answers.ts, the lines they share in answer-parts.ts.
 */
import { forgetOutcome } from '../../memory/forget-tool.js';
import { rememberKept } from '../../memory/remember-tool.js';
import type { Conversation } from './conversation.js';
import type { Intent, OffTopic } from './intents.js';
import { bestSource } from './retrieve.js';
import { HOME } from './place-names.js';
import { failed, guideHits, mapShown, outcome, parseJson, placeHit } from './tool-readings.js';
import { MAP_LINE, notLookedUp, UNKNOWN_HOME, WALK_METRES_PER_MINUTE } from './answer-parts.js';
import { courseAnswer, courseTitleAnswer, courseSearchAnswer, genedsAnswer } from './course-answers.js';
import { diningInAnswer, eatsAnswer, hoursAnswer } from './dining-answers.js';
import { busAnswer } from './bus-answers.js';
import { selfAnswer } from './self-questions.js';

export { NOT_LOOKED_UP, toolsOff } from './answer-parts.js';

/** What the campus data covers, and two questions that work offline: the end of every "can't" answer. */
const COVERS = 'I answer from the campus data: places, dining, courses, the student guide and buses from campus';
const TRY = 'try "Where is Gates?" or "What\'s open for lunch right now?".';

/** The reply when no rule applies: one line, naming two questions that work offline. */
export const OFFLINE_INTRO = `I can't answer that from the campus data (places, dining, courses, the student guide and buses from campus; no language model is configured here); ${TRY}`;

/** Honest answers to what the campus data does not cover, each saying what it can do instead. */
export const OFF_TOPIC_ANSWERS: Record<OffTopic, string> = {
  weather: `I don't have weather data. ${COVERS}; if it's cold or wet out, ask what's open indoors or how far a walk is: try "What's open right now?" or "How far is Baker Hall from Gates?".`,
  creative: `Jokes, poems and stories need a language model, and this offline sandbox has none configured. ${COVERS}; ${TRY}`,
  news: `News and sports aren't in the campus data I can look up. ${COVERS}; ${TRY}`,
  'general-knowledge': `That's outside the campus data, and general knowledge needs a language model, which this offline sandbox does not have. ${COVERS}; ${TRY}`,
  homework: `I won't do graded work for you: homework, problem sets, essays and exams are yours to do, and handing in someone else's work breaks the university's academic integrity policy. I can help around it: when and where a course meets, who teaches it, its prerequisites, or a quiet place to study; try "Who teaches machine learning?" or "Where can I study quietly?".`,
};


// Example questions name no hour or course number: the answer states only what tool data holds (issue 45).
const CAPABILITIES = [
  "Hello! I'm the campus assistant running offline, on rules over the sandbox campus data. I can help with:",
  '',
  '- **Places and directions**: "Where is Wean Hall?", "How far is Baker Hall from Gates?"',
  '- **Food**: "What\'s open right now?", "Is Nourish open on Saturday?", "Coffee near the library", "What\'s open tonight?"',
  '- **Courses**: "Who teaches machine learning?", "Any database courses?", "Courses about machine learning"',
  '- **Student guide**: "How does housing work for first-years?", "How do meal plans work?"',
  '- **Buses**: "When\'s the next bus to Squirrel Hill?", "Can I ride the PRT with my CMU ID?"',
  '- **Memory**: "Remember that I\'m vegetarian", "What do you know about me?"',
].join('\n');


// ---------------------------------------------------------------- places


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
  if (lines.length === 0) return notLookedUp(conv, 'maps');
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

// ---------------------------------------------------------------- guide and memory

function guideAnswer(query: string, conv: Conversation): string {
  const hits = guideHits(conv, query);
  if (hits === undefined) return notLookedUp(conv, 'guide');
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
    case 'course-title':
      return courseTitleAnswer(intent, conv);
    case 'geneds':
      return genedsAnswer(intent, conv);
    case 'remember':
      return rememberAnswer(intent, conv);
    case 'forget':
      return forgetAnswer(conv);
    case 'about-me':
      return selfAnswer(intent.topic, conv.facts, conv.question);
    case 'bus':
      return busAnswer(intent, conv);
    case 'search': {
      const best = bestSource(intent.query, conv);
      // A question that named its source is answered from it, found or not.
      const from = best?.source ?? intent.only;
      if (from === 'guide') return guideAnswer(intent.query, conv);
      if (from === 'courses') return courseSearchAnswer(intent.query, conv);
      if (best?.source === 'place') return whereAnswer({ kind: 'where', place: intent.query }, conv);
      if (conv.done.length === 0) return notLookedUp(conv, null);
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
