/**
 * One pass of the offline model: from the request, decide the next step of the turn. Either the tool
 * calls its rules call for that have not run yet (only tools actually offered: disabled groups stay
 * disabled), or, when there is nothing left to call, the answer written from the results.
 */
import { TOOLS_OFF, writeAnswer } from './answers.js';
import { readConversation, type Conversation } from './conversation.js';
import { detectIntent, type Intent } from './intents.js';

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export type NextStep = { kind: 'tool_calls'; calls: PlannedCall[] } | { kind: 'text'; text: string };

/** The first building code in a `maps_search_buildings` result, if any. */
function foundCode(conv: Conversation): string | null {
  const search = conv.done.find((d) => d.name === 'maps_search_buildings');
  try {
    const parsed = JSON.parse(search?.result ?? '') as { results?: Array<{ floor?: { buildingCode?: string } }> };
    return parsed.results?.[0]?.floor?.buildingCode ?? null;
  } catch {
    return null;
  }
}

/** Calls the rules want for this intent, given what already ran; in order. */
function wantedCalls(intent: Intent, conv: Conversation): PlannedCall[] {
  switch (intent.kind) {
    case 'remember':
      return [{ name: 'memory_remember', arguments: { fact: intent.fact } }];
    case 'forget':
      // "Forget everything" is explicit, so it is confirmed in the same call.
      return [{ name: 'memory_forget', arguments: intent.fact === null ? { all: true, confirm: true } : { query: intent.fact } }];
    case 'course': {
      const id = { course_id: intent.courseId };
      const aspect = { prereqs: 'courses_fetch_course_requisites', schedule: 'courses_fetch_course_schedules', instructors: 'courses_fetch_course_instructors' } as const;
      return [{ name: 'courses_fetch_course_by_id', arguments: id }, ...intent.aspects.map((a) => ({ name: aspect[a], arguments: id }))];
    }
    case 'eats':
      if (intent.at) return [{ name: 'eats_get_locations_open_at_time', arguments: { ...intent.at } }];
      return intent.cuisine
        ? [{ name: 'eats_get_locations_by_cuisine', arguments: { cuisine_query: intent.cuisine } }]
        : [{ name: 'eats_get_locations_open_now', arguments: {} }];
    case 'hours':
      return [{ name: 'eats_get_location_hours', arguments: { location_name: intent.place } }];
    case 'guide':
      return [{ name: 'guide_search_guide', arguments: { query: intent.query, limit: 3 } }];
    case 'where': {
      const calls: PlannedCall[] = [{ name: 'maps_search_buildings', arguments: { query: intent.place } }];
      // The map waits for the search (when there is one) so it can use the code the tool server found;
      // the service's catalog also resolves names and nicknames, so the raw place is the fallback.
      const searchPending = conv.offered.has('maps_search_buildings') && !conv.done.some((d) => d.name === 'maps_search_buildings');
      if (!searchPending) {
        const destination = foundCode(conv) ?? intent.place;
        calls.push({ name: 'maps_show_map', arguments: intent.origin ? { destination, origin: intent.origin } : { destination } });
      }
      return calls;
    }
    default:
      return [];
  }
}

/** Decides the reply to one chat-completions request body. */
export function nextStep(body: { messages?: unknown; tools?: unknown }): NextStep {
  const conv = readConversation(body);
  const intent = detectIntent(conv.question);
  const wanted = wantedCalls(intent, conv);
  const offered = wanted.filter((c) => conv.offered.has(c.name));
  const pending = offered.filter((c) => !conv.done.some((d) => d.name === c.name));
  if (pending.length > 0) return { kind: 'tool_calls', calls: pending };
  const memoryIntent = intent.kind === 'remember' || intent.kind === 'forget';
  if (wanted.length > 0 && offered.length === 0 && !memoryIntent) return { kind: 'text', text: TOOLS_OFF };
  return { kind: 'text', text: writeAnswer(intent, conv.done) };
}
