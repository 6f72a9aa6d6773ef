/**
 * The answer as it streams: raw model text in, verified delta text out, and at the end the final
 * answer. Chain per chunk: reasoning stripper → leak scanner (security/leak-scanner/: secrets in any
 * form, key shapes, tokens and system-prompt runs held back and redacted) → grounding (grounding/:
 * hours, rooms, course numbers, phones, prices, dates, routes and waits no evidence holds are marked
 * "not confirmed" before they leave) → with a map already attached, the failure-claim sentence filter →
 * whitespace shaping (no leading or trailing blanks, one blank line between model passes). `finish`
 * applies the whole-text rules (prompt-leak refusal, failure-claim repair, tool disclosure, the
 * grounding note, empty answer) and says which tail, if any, can still be sent as a delta so the deltas
 * end up equal to the answer.
 *
 * The answer cap (MAX_ANSWER_CHARS) bounds what the student receives, marks and notes included: the text
 * that leaves stops `TAIL_ROOM` characters short of the cap (grounding marks can make an answer several
 * times the model's text, issue 61), and the room left holds what `finish` may add (the cut note, the
 * grounding note, a map pointer or the tools sentence). Once the text is full, `full` tells the verify
 * stage to stop reading the model.
 */
import { NO_MAP, type CmuMaps } from '../campus/cmu-maps.js';
import type { AnswerNotes } from './answer-notes.js';
import { discloseTools } from './disclosure.js';
import { isFailureClaim, mapPointer, mayBeFailureClaim, repairFailureClaims } from './failure-claims.js';
import { createReasoningStripper, REASONING_ENDED, type ReasoningStripper } from './reasoning.js';
import type { LeakScanner } from '../security/leak-scanner/index.js';
import { createSentenceFilter, type SentenceFilter } from './sentence-filter.js';
import { RenderSafe, type LinkPolicy } from './render-safe.js';
import { groundingNote, LONGEST_GROUNDING_NOTE, type GroundingCounts, type GroundingStream } from './grounding/index.js';

/** What an empty model answer becomes (issue 4, "Answer quality wording"); with a map, the map pointer. */
export const EMPTY_ANSWER_APOLOGY = "Sorry, I couldn't put an answer together for that. Could you rephrase your question?";

/** Ends an answer cut at its length limit (the answer cap, or the last pass's `max_tokens`). */
export const ANSWER_CUT_NOTE = '\n\n*(This answer was cut short because it reached its length limit.)*';

/** Ends an answer a spending limit stopped (daily-budget.ts: the model turned out to cost more than configured). */
export const SPEND_CUT_NOTE = "\n\n*(This answer was stopped early because today's spending limit was reached; it resets at 00:00 UTC.)*";

/**
 * What `finish` may add after the streamed text, at most: the cut note, the grounding note (each with its
 * blank line), and a map pointer or the tools sentence (each far shorter than the 400 given them). The
 * text streamed stops this far short of the cap, so the whole answer is within it.
 */
export const TAIL_ROOM = Math.max(ANSWER_CUT_NOTE.length, SPEND_CUT_NOTE.length) + 2 + LONGEST_GROUNDING_NOTE + 400;

/** The refusal that replaces an answer that repeated the system prompt. One sentence. */
export const PROMPT_LEAK_REFUSAL = "Sorry, I can't share that, but I'm happy to help with questions about campus.";

export interface AnswerStreamOptions {
  /** The turn's leak scanner (`LeakPolicy.stream(systemPrompt)`). */
  scanner: LeakScanner;
  /** The turn's grounding check, over its evidence. */
  grounding: GroundingStream;
  /** MAX_ANSWER_CHARS: the most the final answer may hold, notes included (unbounded when absent). */
  maxChars?: number;
  /** Which links stay links (render-safe.ts); absent: none but `mailto:`. */
  links?: LinkPolicy;
}

/** What the turn did, known by the end: the final map, the tools called, the user's question. */
export interface AnswerFacts {
  /** The map to attach (NO_MAP when none or maps are disabled). */
  map: CmuMaps;
  /** Tool names called this turn, first-use order, no duplicates. */
  toolsUsed: string[];
  /** True when a tool other than the map tool failed (its failure may be honestly reported). */
  otherToolFailed: boolean;
  query: string;
}

export interface FinalAnswer {
  /** Text still to send as a delta (the answer extends what was sent), possibly empty. */
  delta: string;
  text: string;
  map: CmuMaps;
  notes: AnswerNotes;
  grounding: GroundingCounts;
}

export interface AnswerStream {
  /** Raw model text in; delta text out (maybe empty). */
  push(text: string): string;
  /**
   * A new model pass starts: the previous pass is complete, so everything held is released. With a
   * map already attached, `claimFilter` drops failure-claim sentences of the new pass as they stream.
   */
  newPass(claimFilter: { map: CmuMaps; otherToolFailed: boolean } | null): string;
  /** The answer was cut upstream (the read cap or the last pass's `max_tokens`; `'spend'`: a spending limit): it ends with the note that says which. */
  cut(by?: 'spend'): void;
  /** True once the text reached the cap: nothing more is sent, and the model need not be read further. */
  readonly full: boolean;
  /** End of the turn: the final answer and the last delta. */
  finish(facts: AnswerFacts): FinalAnswer;
}

/**
 * Whitespace shaping of the text that leaves: leading blanks of the answer (and of a new pass) dropped,
 * trailing ones held until more text follows, one blank line between passes. It owns `emitted`, the
 * text sent as deltas so far, and where the answer starts in it.
 */
class Shaper {
  emitted = '';
  /** True once `emitted` reached `limit`: everything after is dropped. */
  full = false;
  /** Where the answer starts in `emitted` (after a stray closing reasoning tag, earlier text was reasoning). */
  answerStart = 0;
  private pending = '';
  /** Until the first visible text of the answer or of a new pass: leading blanks are dropped there. */
  private atStart = true;

  /** `limit`: the most `emitted` may hold (the cap less the room for what `finish` adds). */
  constructor(private readonly limit: number) {}

  shape(text: string): string {
    if (this.full) return '';
    const body = text.replace(/\s+$/, '');
    if (!body.trim()) {
      if (!this.atStart) this.pending += text;
      return '';
    }
    const out = this.atStart ? (this.wrote ? this.pending : '') + body.replace(/^\s+/, '') : this.pending + body;
    this.atStart = false;
    this.pending = text.slice(body.length);
    if (this.emitted.length + out.length > this.limit) return this.fill(out);
    this.emitted += out;
    return out;
  }

  /** The part of `out` that fits the limit, ended at a space when one is near, then nothing more. */
  private fill(out: string): string {
    let end = this.limit - this.emitted.length;
    const space = out.lastIndexOf(' ', end);
    if (space > end - 80 && space > 0) end = space;
    // Never half of a surrogate pair.
    const c = out.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    const kept = out.slice(0, Math.max(0, end)).trimEnd();
    this.full = true;
    this.pending = '';
    this.emitted += kept;
    return kept;
  }

  /** The service's own closing text (the cut note): after the answer, not held, not limited. */
  close(note: string): string {
    this.pending = '';
    const out = this.wrote ? note : note.trimStart();
    this.emitted += out;
    return out;
  }

  /** The final answer's text past what was streamed (a repair, a note): sent with the last delta. */
  append(delta: string): void {
    this.emitted += delta;
  }

  /** True once the answer has visible text. */
  get wrote(): boolean {
    return this.emitted.length > this.answerStart;
  }

  /** Everything before was reasoning: the answer starts afresh here. */
  restart(): void {
    this.answerStart = this.emitted.length;
    this.pending = '';
    this.atStart = true;
  }

  /** A new pass: separated from the last by one blank line, whatever whitespace the model put around them. */
  newPass(): void {
    if (this.wrote) this.pending = '\n\n';
    this.atStart = true;
  }

  /** The answer as sent so far. */
  get answer(): string {
    return this.emitted.slice(this.answerStart);
  }
}

/**
 * With a map attached, failure-claim sentences of a pass are dropped as they stream; on the first drop
 * of the answer the map pointer leads it. Counts what it dropped (the final repair needs to know).
 */
class ClaimFilter {
  private filter: SentenceFilter | null = null;
  private map: CmuMaps = NO_MAP;
  private otherToolFailed = false;
  /** Sentences the current pass's filter dropped. */
  private dropped = 0;
  /** Sentences dropped while streaming, over the answer's passes. */
  droppedInStream = 0;
  /** The map pointer, once sent ahead of the answer. */
  pointerSent: string | null = null;
  private readonly dropClaim = (sentence: string) => isFailureClaim(sentence, { otherToolFailed: this.otherToolFailed });

  /** A new pass: on with a map attached, else off. */
  newPass(claimFilter: { map: CmuMaps; otherToolFailed: boolean } | null): void {
    this.map = claimFilter?.map ?? NO_MAP;
    this.otherToolFailed = claimFilter?.otherToolFailed ?? false;
    this.filter = this.map.url ? this.newFilter() : null;
    this.dropped = 0;
  }

  /** Everything before was reasoning: nothing of it was dropped or pointed at. */
  restart(): void {
    this.pointerSent = null;
    this.droppedInStream = 0;
    this.dropped = 0;
    if (this.filter) this.filter = this.newFilter();
  }

  /** Secure text through the filter (when on), made safe for the renderer, and the shaper. */
  pass(text: string, shaper: Shaper, final: boolean, render: RenderSafe): string {
    const filter = this.filter;
    if (!filter) return shaper.shape(final ? render.push(text) + render.flush() : render.push(text));
    const passed = filter.push(text) + (final ? filter.flush() : '');
    const kept = final ? render.push(passed) + render.flush() : render.push(passed);
    let out = '';
    if (filter.removed > this.dropped) {
      this.droppedInStream += filter.removed - this.dropped;
      this.dropped = filter.removed;
      if (this.pointerSent === null && !shaper.wrote) {
        this.pointerSent = mapPointer(this.map);
        out += shaper.shape(`${this.pointerSent}\n\n`);
      }
    }
    return out + shaper.shape(kept);
  }

  private newFilter(): SentenceFilter {
    return createSentenceFilter(this.dropClaim, mayBeFailureClaim);
  }
}

/** Creates the answer stream of one turn: reasoning stripper → leak scanner → grounding → claim filter → renderer-safe text → shaper. */
export function createAnswerStream(options: AnswerStreamOptions): AnswerStream {
  const secure = options.scanner;
  const grounding = options.grounding;
  let stripper: ReasoningStripper = createReasoningStripper();
  const shaper = new Shaper(Math.max(0, (options.maxChars ?? Infinity) - TAIL_ROOM));
  // The answer was cut (upstream, or at the cap here): it ends with the note that says why.
  let cut: string | null = null;
  const claims = new ClaimFilter();
  const render = new RenderSafe(options.links ?? { allowed: () => false });

  const fromStripper = (pieces: ReturnType<ReasoningStripper['push']>): string => {
    let out = '';
    for (const piece of pieces) {
      if (piece === REASONING_ENDED) {
        // Everything before was reasoning: drop what is held, and start the answer afresh.
        secure.flush();
        grounding.reset();
        shaper.restart();
        claims.restart();
        render.reset();
        continue;
      }
      out += claims.pass(grounding.push(secure.push(piece)), shaper, false, render);
    }
    return out;
  };

  const endPass = (): string => fromStripper([stripper.end()]) + claims.pass(grounding.push(secure.flush()) + grounding.flush(), shaper, true, render);

  return {
    push: (text) => fromStripper(stripper.push(text)),

    cut(by) {
      cut = by === 'spend' ? SPEND_CUT_NOTE : ANSWER_CUT_NOTE;
    },

    get full() {
      return shaper.full;
    },

    newPass(claimFilter) {
      const out = endPass();
      stripper = createReasoningStripper();
      shaper.newPass();
      claims.newPass(claimFilter);
      return out;
    },

    finish(facts) {
      let last = endPass();
      if ((cut || shaper.full) && !secure.leaked) last += shaper.close(cut ?? ANSWER_CUT_NOTE);
      const notes: AnswerNotes = {};
      if (secure.redacted) notes.redacted = true;
      let map = facts.map;
      let text: string;
      if (secure.leaked) {
        text = PROMPT_LEAK_REFUSAL;
        map = NO_MAP;
        notes.refused = 'prompt_leak';
      } else {
        text = shaper.answer;
        if (claims.pointerSent !== null) text = text.slice(claims.pointerSent.length).trimStart();
        const repair = repairFailureClaims(text, map, { otherToolFailed: facts.otherToolFailed }, claims.droppedInStream);
        text = repair.text;
        if (repair.repaired) notes.repairedFailureClaim = true;
        text = discloseTools(text, { toolsUsed: facts.toolsUsed, query: facts.query }).text;
        if (!text.trim()) {
          // With a map the lookup worked: point at it rather than apologise.
          text = map.url ? mapPointer(map) : EMPTY_ANSWER_APOLOGY;
          notes.emptyModelOutput = true;
        } else {
          // Told once, at the end, that details were marked and where to check them.
          const note = groundingNote(grounding.unconfirmed);
          if (note) {
            text = `${text}\n\n${note}`;
            notes.unconfirmedDetails = true;
          }
        }
      }
      const delta = text.startsWith(shaper.emitted) ? text.slice(shaper.emitted.length) : '';
      if (delta) shaper.append(delta);
      return { delta: last + delta, text, map, notes, grounding: { checked: grounding.checked, unverified: grounding.unverified } };
    },
  };
}
