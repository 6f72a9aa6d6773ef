/**
 * One turn's grounding check, made one way (issue 73, item 4): the stream over the turn's evidence, with
 * "today" and the days the student's message names (a time the answer binds to no day of its own is
 * about them: "is it open tonight?"). The verify stage, the tests' support and the benches make it here.
 */
import type { Catalog } from '../../campus/catalog.js';
import { readDays } from './days.js';
import type { Evidence } from './evidence.js';
import { createGroundingStream, type GroundingStream } from './grounding-stream.js';

export interface TurnGroundingOptions {
  catalog: Catalog;
  evidence: Evidence;
  /** The campus weekday (0 Sunday) "today" and "tonight" name, or null when the prompt gives no date. */
  today: number | null;
  /** The student's message, whose days bind a time of no day of its own. */
  question?: string;
}

export function createTurnGrounding(options: TurnGroundingOptions): GroundingStream {
  const asked = options.question === undefined ? [] : readDays(options.question, options.today);
  const askedDays = asked.length > 0 ? [...new Set(asked.flatMap((d) => d.days))] : null;
  return createGroundingStream({ catalog: options.catalog, evidence: options.evidence, today: options.today, askedDays });
}
