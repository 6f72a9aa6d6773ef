/**
 * The offline model's dining answers: what is open (now, at a time, near a place, for a diet), the
 * dining places inside a building, and hours, written from the dining tools' results.
 */
import type { Conversation } from './conversation.js';
import type { EatsIntent, Intent } from './intents.js';
import { homeOf } from './dialogue.js';
import { eatsListCall, nearPlace } from './eats-lists.js';
import { HOME } from './place-names.js';
import { readDiningDetail, readDiningList, type DiningEntry } from '../campus/dining-format.js';
import { DAY_NAMES, clock12, hoursOnDay } from '../campus/dining-hours.js';
import { diningBuilding, diningList, dietOf, failed, mapShown, outcome, placeHit, walkMetres } from './tool-readings.js';
import { UNKNOWN_HOME, WALK_METRES_PER_MINUTE, notLookedUp } from './answer-parts.js';
import { nearestOpensLine, opensNextLine } from './opens-next.js';

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

export function eatsAnswer(intent: EatsIntent, conv: Conversation): string {
  const list = eatsListCall(intent, conv);
  const result = outcome(conv, list.name, list.arguments);
  if (!result) return notLookedUp(conv, 'eats');
  if (failed(result.result)) return COULD_NOT_CHECK_DINING;
  const diet = dietOf(conv);
  const byCuisine = list.name === 'eats_get_locations_by_cuisine';
  const byDiet = byCuisine && diet !== null && list.arguments.cuisine_query === diet && (intent.diet || intent.cuisine === diet);
  const cuisine = byDiet ? diet : intent.cuisine;
  const listed = readDiningList(result.result);
  let entries = listed;
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
    // Open now, and nothing is: what opens next, and when, by the campus clock (issue 78).
    const now = conv.minute === null ? '' : ` (${clock12(conv.minute)} campus time)`;
    // Near a place: the nearest that opens next, by the walk the tools gave.
    const walks = walksFrom(intent, conv);
    const opening = (places: readonly DiningEntry[]) => {
      const next = opensNextLine(places, conv.today, conv.minute);
      const nearest = walks.label ? nearestOpensLine(places, conv.today, conv.minute, walks.label, walks.metres, WALK_METRES_PER_MINUTE) : null;
      return [...(nearest ? ['', nearest] : []), ...(next ? ['', next] : [])];
    };
    if (!cuisine && !intent.at && intent.day === null) {
      return [...lead, `Nothing on campus is open right now${now}.`, ...opening(diningList(conv, 'eats_get_all_dining_locations') ?? [])].join('\n');
    }
    if (cuisine) {
      const next = intent.now || when === 'right now' ? opening(listed) : [];
      return [...lead, `I didn't find a dining location on campus for "${what.toLowerCase()}"${when ? ` open ${when}` : ''}${when === 'right now' ? now : ''}.`, ...next].join('\n');
    }
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

export function diningInAnswer(intent: Extract<Intent, { kind: 'dining-in' }>, conv: Conversation): string {
  const all = outcome(conv, 'eats_get_all_dining_locations');
  if (!all) return notLookedUp(conv, 'eats');
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
  const here = readDiningList(all.result).filter((e) => e.location.toLowerCase().startsWith(hit.fullNameWithSpace!.toLowerCase()));
  if (here.length === 0) {
    return `I couldn't find a dining location called "${intent.place}". The campus map matches it to the building ${building}, and building opening hours aren't in the campus data.`;
  }
  // "When does the UC close?": the places inside and their hours, led by the last one to close that day.
  const day = intent.day ?? conv.today;
  const closing = here
    .map((e) => ({ name: e.name, range: day === null ? null : hoursOnDay(e.hours, day) }))
    .map((c) => ({ ...c, close: c.range ? closingOf(c.range) : null }))
    .filter((c): c is { name: string; range: string; close: { minute: number; text: string } } => c.close !== null)
    .sort((a, b) => b.close.minute - a.close.minute);
  const when = intent.day !== null ? ` on ${DAY_NAMES[intent.day]}` : ' today';
  const lead = closing[0]
    ? `${building} has ${here.length} dining place${here.length === 1 ? '' : 's'}; the last to close${when} is **${closing[0].name}**, at ${closing[0].close.text}.`
    : `${building} has ${here.length} dining place${here.length === 1 ? '' : 's'}, none open${when}.`;
  return [
    lead,
    '',
    ...here.map((e) => diningItem(e, { status: intent.day === null, diet: dietOf(conv), day: intent.day !== null && hoursOnDay(e.hours, intent.day) ? intent.day : null })),
    '',
    "_The building's own opening hours aren't in the campus data; these are its dining places' hours._",
  ].join('\n');
}

/** The closing time of a day's range ("7:00 AM - 2:00 AM"), in minutes from that day's midnight (past midnight counts on). */
function closingOf(range: string): { minute: number; text: string } | null {
  const m = /(\d{1,2}):(\d{2}) (AM|PM)\s*-\s*((\d{1,2}):(\d{2}) (AM|PM))/.exec(range);
  if (!m) return null;
  const at = (h: string, mm: string, half: string) => ((Number(h) % 12) + (half === 'PM' ? 12 : 0)) * 60 + Number(mm);
  const open = at(m[1]!, m[2]!, m[3]!);
  const close = at(m[5]!, m[6]!, m[7]!);
  return { minute: close <= open ? close + 24 * 60 : close, text: m[4]! };
}

export function hoursAnswer(intent: Extract<Intent, { kind: 'hours' }>, conv: Conversation): string {
  if (outcome(conv, 'eats_get_all_dining_locations')) return buildingHoursAnswer(intent, conv);
  const result = outcome(conv, 'eats_get_location_hours');
  if (!result) return notLookedUp(conv, 'eats');
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
