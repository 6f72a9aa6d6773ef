/**
 * The tool call a food question starts from, shared by the planner (what to call) and the answer
 * writer (which result to read), so the two never disagree: the cuisine (or saved diet) search, the
 * list at a moment, the whole week's list for a day, or what is open now. And the place a "near"
 * question ranks from.
 */
import type { Conversation } from './conversation.js';
import type { EatsIntent } from './intents.js';
import { homeOf } from './dialogue.js';
import { HOME } from './place-names.js';
import { dietOf } from './tool-readings.js';

export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

export const call = (name: string, args: Record<string, unknown> = {}): PlannedCall => ({ name, arguments: args });

/** The dining list an eats intent starts from: the cuisine (or saved diet) search, a moment, a whole day, or now. */
export function eatsListCall(intent: EatsIntent, conv: Conversation): PlannedCall {
  const diet = dietOf(conv);
  const cuisine = intent.diet && diet ? diet : intent.cuisine;
  if (cuisine) return call('eats_get_locations_by_cuisine', { cuisine_query: cuisine });
  if (intent.at) return call('eats_get_locations_open_at_time', { ...intent.at });
  if (intent.day !== null) return call('eats_get_all_dining_locations');
  return call('eats_get_locations_open_now');
}

/** The place a "near" question ranks from: a place name, or where the user lives; null when unknown. */
export const nearPlace = (intent: EatsIntent, conv: Conversation): string | null =>
  intent.near === HOME ? homeOf(conv.facts) : intent.near;

