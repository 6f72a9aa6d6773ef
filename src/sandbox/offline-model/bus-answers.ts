/**
 * The offline model's bus answers, written from the bus tools' results only: the next bus (or the one
 * after it) with its stop and direction, the buses there when none matches, and how to ride PRT with a
 * CMU ID. Minutes and the time the predictions were read come from the result as it is.
 */
import type { BusIntent } from './bus-intents.js';
import type { Conversation } from './conversation.js';
import { call, type PlannedCall } from './eats-lists.js';
import { failed, outcome, parseJson } from './tool-readings.js';

interface Match {
  route: string;
  destination: string;
  minutes: number;
}
interface StopRef {
  stop_id: string;
  name: string;
  direction: string;
}
interface NextBusResult {
  status?: string;
  message?: string;
  error?: { message?: string };
  retrieved_at?: { local_display?: string };
  results?: Array<{ status: string; stop: StopRef; match: Match | null; message?: string; available?: Match[] }>;
}
interface StopPredictions {
  predictions?: Array<{ route: string; destination: string; arrivals: Array<{ minutes: number }> }>;
}

const COULD_NOT_CHECK = "I couldn't check the bus predictions just now; please try again in a moment.";

/** The next-bus call for this intent: only the filters the question gave. */
export function nextBusCall(intent: BusIntent): PlannedCall {
  return call('bus_get_next_bus', { ...(intent.route && { route: intent.route }), ...(intent.place && { place: intent.place }) });
}

/** The calls a bus question needs, given what already ran. */
export function busCalls(intent: BusIntent, conv: Conversation): PlannedCall[] {
  if (intent.pass) return [call('bus_get_cmu_prt_rider_guide')];
  const next = nextBusCall(intent);
  if (intent.nth === 1) return [next];
  // The bus after the next: the stop's predictions, once the next-bus result said which stop.
  const stop = soonest(readNext(conv, next))?.stop.stop_id;
  return [next, ...(stop ? [call('bus_get_stop_predictions', { stop_id: stop })] : [])];
}

/** The matched result with the soonest bus: the one a "next bus" answer leads with. */
function soonest(result: NextBusResult | undefined) {
  return result?.results?.filter((r) => r.match).sort((a, b) => a.match!.minutes - b.match!.minutes)[0];
}

function readNext(conv: Conversation, next: PlannedCall): NextBusResult | undefined {
  const done = outcome(conv, next.name, next.arguments);
  if (!done || failed(done.result)) return undefined;
  return parseJson(done.result) as NextBusResult | undefined;
}

const inMinutes = (m: number) => (m <= 1 ? 'in about a minute' : `in ${m} minutes`);
const toward = (direction: string) => (direction === 'inbound' ? 'inbound, toward Oakland and Downtown' : 'outbound, toward Squirrel Hill and beyond');

function passAnswer(conv: Conversation): string {
  const done = outcome(conv, 'bus_get_cmu_prt_rider_guide');
  const guide = done && !failed(done.result) ? (parseJson(done.result) as { benefit?: string; credential?: string; steps?: string[]; important_notes?: string[] } | undefined) : undefined;
  if (!guide?.benefit) return COULD_NOT_CHECK.replace('bus predictions', 'PRT rider guide');
  return [
    '**Riding PRT with your CMU ID**',
    '',
    `${guide.benefit} ${guide.credential ?? ''}`.trim(),
    '',
    ...(guide.steps ?? []).map((s, i) => `${i + 1}. ${s}`),
    ...(guide.important_notes?.length ? ['', '**Good to know**', ...guide.important_notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
}

/** The answer to a bus question from the results. */
export function busAnswer(intent: BusIntent, conv: Conversation): string {
  if (intent.pass) return passAnswer(conv);
  const next = nextBusCall(intent);
  const done = outcome(conv, next.name, next.arguments);
  if (!done || failed(done.result)) return COULD_NOT_CHECK;
  const result = parseJson(done.result) as NextBusResult | undefined;
  if (!result) return COULD_NOT_CHECK;
  if (result.status === 'input_error') return `I couldn't look that up: ${result.error?.message ?? 'the bus tools did not understand the request'} Buses here stop at Forbes Ave & Morewood Ave.`;
  const asOf = result.retrieved_at?.local_display ? ` (predictions as of ${result.retrieved_at.local_display})` : '';
  if (result.status === 'empty') return `**Forbes Ave & Morewood Ave**${asOf}: ${result.message ?? 'no buses are predicted at these stops right now.'}`;
  const lines: string[] = [];
  const results = result.results ?? [];
  // "The one after that": at the stop of the bus the conversation was about, the soonest.
  const shown = intent.nth > 1 ? [soonest(result)].filter((r) => r !== undefined) : results;
  const anyMatch = shown.some((r) => r.match);
  for (const r of shown) {
    const where = `**${r.stop.name}**, ${toward(r.stop.direction)}`;
    if (!r.match) {
      // A route that runs only the other way is left out; a stop with nothing that fits says what runs there.
      if (intent.route && anyMatch) continue;
      lines.push(`- ${where}: no ${intent.route ?? 'matching bus'} is predicted in the next hour.`);
      for (const a of r.available ?? []) lines.push(`  - **${a.route}** to ${a.destination} ${inMinutes(a.minutes)}.`);
      continue;
    }
    if (intent.nth > 1) {
      const stop = outcome(conv, 'bus_get_stop_predictions', { stop_id: r.stop.stop_id });
      const groups = stop && !failed(stop.result) ? (parseJson(stop.result) as StopPredictions | undefined)?.predictions : undefined;
      const later = groups?.find((g) => g.route === r.match!.route)?.arrivals[intent.nth - 1];
      lines.push(
        later
          ? `- The ${r.match.route} to ${r.match.destination} after that one reaches ${where} ${inMinutes(later.minutes)}.`
          : `- No later ${r.match.route} is predicted at ${where} within the next hour.`,
      );
      continue;
    }
    lines.push(`- **${r.match.route}** to ${r.match.destination} reaches ${where} ${inMinutes(r.match.minutes)}.`);
  }
  const heading = intent.nth > 1 ? '**The bus after that**' : intent.route ? `**Next ${intent.route}**` : intent.place ? `**Next bus toward ${intent.place}**` : '**Next buses from campus**';
  return [`${heading}${asOf}`, '', ...lines, '', 'Predictions change by the minute; ride free with your CMU ID.'].join('\n');
}
