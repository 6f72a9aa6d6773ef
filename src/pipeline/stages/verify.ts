/**
 * Verify stage: between execute and deliver, every piece of model text is checked by deterministic
 * code before it leaves as a `delta` (guards/answer-stream.ts: reasoning stripped, secrets in any form
 * and credentials redacted by the leak policy, system-prompt runs held back and refused, false
 * map-failure claims dropped, hours, rooms, course numbers, phones, prices, dates, routes and waits no
 * evidence of the turn holds marked "not confirmed": guards/grounding/).
 * It keeps the last valid `map_request` of the turn (none when maps are disabled), records which tools
 * ran, passes every other event through, and at the end emits the `map` event (once, if a map
 * survived) and the one `answer` event deliver builds `done` from.
 *
 * The turn's evidence for grounding: the student's message and the files attached to it, the history
 * sent, the system prompt (the campus date and time, the user's recalled facts), the week of dates from
 * that date, the service's configured phone numbers, and every tool result as it arrives (raw, before
 * truncation for the model). An attachment the model did not get is named at the answer's start.
 */
import { createAnswerStream } from '../../guards/answer-stream.js';
import { createEvidence, createTurnGrounding, type Evidence } from '../../guards/grounding/index.js';
import type { Catalog } from '../../campus/catalog.js';
import { readSystemPrompt } from '../../prompt/system-prompt.js';
import { createInvisibleTagFilter } from '../../security/invisible-tags.js';
import type { LeakPolicy } from '../../security/leak-policy.js';
import type { Stage, TurnContext } from '../stage.js';
import { NO_MAP, type CmuMaps } from '../../campus/cmu-maps.js';
import type { TurnEvent } from '../events.js';
import { unreadNote } from '../attachments.js';

export interface VerifyOptions {
  /** The service's leak policy (security/leak-policy.ts). */
  leaks: LeakPolicy;
  /** The building catalog: buildings of rooms in answers and results. */
  catalog: Catalog;
  /** Text of the service's own facts that answers may state (the configured crisis and police numbers). */
  serviceFacts: readonly string[];
  /** MAX_ANSWER_CHARS: the most an answer may hold, marks and notes included. */
  maxAnswerChars: number;
  /** CAMPUS_MAP_BASE_URL: links to its host stay links, as do those to hosts the turn's tools gave. */
  mapBaseUrl: string;
}

/** The hosts of the http(s) URLs in a tool's result: an answer may link to them. */
function hostsIn(text: string, into: Set<string>): void {
  for (const m of text.matchAll(/https?:\/\/[^\s"'<>()\]\\]+/gi)) {
    try {
      into.add(new URL(m[0]).host.toLowerCase());
    } catch {
      // Not a URL after all.
    }
  }
}

/** How many days after the prompt's date count as dates the answer may name beside their weekday ("this Friday, December 4"). */
const DATES_AHEAD = 7;

/** The campus weekday (0 Sunday) of the prompt's date (`YYYY-MM-DD`), or null when the prompt has none. */
const weekdayOf = (date: string | null): number | null => (date ? new Date(`${date}T12:00:00Z`).getUTCDay() : null);

/** Evidence known before the model runs: the request, the prompt (its campus `date`) and the service's own facts. */
function turnEvidence(options: VerifyOptions, ctx: TurnContext, date: string | null, today: number | null): Evidence {
  const evidence = createEvidence(options.catalog, () => today);
  evidence.addQuestion(ctx.request.query);
  for (const turn of ctx.request.history) evidence.addWords(turn.content);
  // A file the student attached is their own document: what it states may be repeated, as a tool's result may.
  for (const file of ctx.request.seen?.files ?? []) evidence.addToolResult(file.text);
  evidence.addText(ctx.systemPrompt);
  if (date) evidence.addCalendar(date, DATES_AHEAD);
  for (const fact of options.serviceFacts) evidence.addServiceFact(fact);
  return evidence;
}

export function createVerifyStage(options: VerifyOptions): Stage {
  return async function* verify(events, ctx) {
    // The plan already leaves the map out when the request disabled the maps group.
    const mapsAllowed = ctx.plan.showMap;
    // Ask upstream for its first event before preparing the prompt index, so the index is built while
    // the model call is in flight instead of delaying it.
    const upstream = events[Symbol.asyncIterator]();
    const first = upstream.next();
    // The prompt's campus date, read once: the week of dates the answer may name, and the weekday
    // "today" and "tonight" bind to.
    const date = readSystemPrompt(ctx.systemPrompt).date;
    const today = weekdayOf(date);
    const evidence = turnEvidence(options, ctx, date, today);
    // A time the answer binds to no day of its own is about the days the student asked about ("open tonight?").
    const grounding = createTurnGrounding({ catalog: options.catalog, evidence, today, question: ctx.request.query });
    // Links an answer may keep: the campus map's, and those to hosts this turn's tools gave (render-safe.ts).
    const linkHosts = new Set<string>();
    hostsIn(options.mapBaseUrl, linkHosts);
    const links = { allowed: (url: URL) => (url.protocol === 'https:' || url.protocol === 'http:') && linkHosts.has(url.host.toLowerCase()) };
    const answer = createAnswerStream({ scanner: options.leaks.stream(ctx.systemPrompt), grounding, maxChars: options.maxAnswerChars, links });
    // Invisible tag characters (hidden text) never reach the answer.
    const tags = createInvisibleTagFilter();
    // An attachment the model does not get is named first, in the service's words (pipeline/attachments.ts).
    const note = unreadNote(ctx.request.seen?.unread ?? []);
    if (note) {
      evidence.addWords(note);
      const delta = answer.push(note);
      if (delta) yield { type: 'delta', text: delta };
    }
    let map: CmuMaps = NO_MAP;
    const toolsUsed: string[] = [];
    let otherToolFailed = false;
    // A failed turn (error event) or one answered upstream gets no answer from here.
    let finished = false;
    let drained = false;

    try {
      read: for (let step = await first; !step.done; step = await upstream.next()) {
        const e = step.value;
        switch (e.type) {
          case 'text': {
            const delta = answer.push(tags.push(e.text));
            if (delta) yield { type: 'delta', text: delta };
            if (answer.full) {
              // What leaves filled the cap (marks count): the model is read no further (leaving the loop
              // ends upstream, which aborts the call and charges what was used).
              ctx.outcome.cut = true;
              break read;
            }
            break;
          }
          case 'cut':
            answer.cut(e.by);
            break;
          case 'pass': {
            const delta = answer.newPass(map.url ? { map, otherToolFailed } : null);
            if (delta) yield { type: 'delta', text: delta };
            break;
          }
          case 'map_request':
            if (mapsAllowed) map = e.map;
            break;
          case 'tool':
            if (e.result !== undefined) {
              evidence.addToolResult(e.result);
              hostsIn(e.result, linkHosts);
            }
            if (!toolsUsed.includes(e.outcome.name)) toolsUsed.push(e.outcome.name);
            if (!e.outcome.ok && e.outcome.kind !== 'map') otherToolFailed = true;
            yield e;
            break;
          case 'error':
          case 'answer':
            finished = true;
            yield e;
            break;
          default:
            yield e satisfies TurnEvent;
        }
      }
      // Left at the cap, upstream still has the model's call open: it is ended below.
      drained = !answer.full;
    } finally {
      // The consumer stopped early (client gone): end upstream too, so it aborts the model call.
      if (!drained) await upstream.return?.();
    }
    // A turn the service ended (deadline, shutdown) gets its error from deliver: no empty-answer apology
    // or held tail before it, which a client that keeps streamed text would keep as the answer.
    if (finished || ctx.signal.aborted) return;

    const final = answer.finish({ map, toolsUsed, otherToolFailed, query: ctx.request.query });
    ctx.metrics.groundingClaims(grounding.byClass);
    if (final.delta) yield { type: 'delta', text: final.delta };
    if (final.map.url) yield { type: 'map', map: final.map };
    yield { type: 'answer', text: final.text, map: final.map, notes: final.notes, grounding: final.grounding };
  };
}
