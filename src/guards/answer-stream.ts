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
 */
import { NO_MAP, type CmuMaps } from '../campus/cmu-maps.js';
import type { AnswerNotes } from './answer-notes.js';
import { discloseTools } from './disclosure.js';
import { isFailureClaim, mapPointer, mayBeFailureClaim, repairFailureClaims } from './failure-claims.js';
import { createReasoningStripper, REASONING_ENDED, type ReasoningStripper } from './reasoning.js';
import type { LeakScanner } from '../security/leak-scanner/index.js';
import { createSentenceFilter, type SentenceFilter } from './sentence-filter.js';
import { groundingNote } from './grounding/grounding-note.js';
import type { GroundingCounts, GroundingStream } from './grounding/grounding-stream.js';

/** What an empty model answer becomes (issue 4, "Answer quality wording"); with a map, the map pointer. */
export const EMPTY_ANSWER_APOLOGY = "Sorry, I couldn't put an answer together for that. Could you rephrase your question?";

/** The refusal that replaces an answer that repeated the system prompt. One sentence. */
export const PROMPT_LEAK_REFUSAL = "Sorry, I can't share that, but I'm happy to help with questions about campus.";

export interface AnswerStreamOptions {
  /** The turn's leak scanner (`LeakPolicy.stream(systemPrompt)`). */
  scanner: LeakScanner;
  /** The turn's grounding check, over its evidence. */
  grounding: GroundingStream;
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
  /** Where the answer starts in `emitted` (after a stray closing reasoning tag, earlier text was reasoning). */
  answerStart = 0;
  private pending = '';
  /** Until the first visible text of the answer or of a new pass: leading blanks are dropped there. */
  private atStart = true;

  shape(text: string): string {
    const body = text.replace(/\s+$/, '');
    if (!body.trim()) {
      if (!this.atStart) this.pending += text;
      return '';
    }
    const out = this.atStart ? (this.wrote ? this.pending : '') + body.replace(/^\s+/, '') : this.pending + body;
    this.atStart = false;
    this.pending = text.slice(body.length);
    this.emitted += out;
    return out;
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

  /** Secure text through the filter (when on) and the shaper. */
  pass(text: string, shaper: Shaper, final: boolean): string {
    const filter = this.filter;
    if (!filter) return shaper.shape(text);
    const kept = filter.push(text) + (final ? filter.flush() : '');
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

/** Creates the answer stream of one turn: reasoning stripper → leak scanner → claim filter → shaper. */
export function createAnswerStream(options: AnswerStreamOptions): AnswerStream {
  const secure = options.scanner;
  const grounding = options.grounding;
  let stripper: ReasoningStripper = createReasoningStripper();
  const shaper = new Shaper();
  const claims = new ClaimFilter();

  const fromStripper = (pieces: ReturnType<ReasoningStripper['push']>): string => {
    let out = '';
    for (const piece of pieces) {
      if (piece === REASONING_ENDED) {
        // Everything before was reasoning: drop what is held, and start the answer afresh.
        secure.flush();
        grounding.reset();
        shaper.restart();
        claims.restart();
        continue;
      }
      out += claims.pass(grounding.push(secure.push(piece)), shaper, false);
    }
    return out;
  };

  const endPass = (): string => fromStripper([stripper.end()]) + claims.pass(grounding.push(secure.flush()) + grounding.flush(), shaper, true);

  return {
    push: (text) => fromStripper(stripper.push(text)),

    newPass(claimFilter) {
      const out = endPass();
      stripper = createReasoningStripper();
      shaper.newPass();
      claims.newPass(claimFilter);
      return out;
    },

    finish(facts) {
      const last = endPass();
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
      if (delta) shaper.emitted += delta;
      return { delta: last + delta, text, map, notes, grounding: { checked: grounding.checked, unverified: grounding.unverified } };
    },
  };
}
