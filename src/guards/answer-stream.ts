/**
 * The answer as it streams: raw model text in, verified delta text out, and at the end the final
 * answer. Chain per chunk: reasoning stripper → leak scanner (security/leak-scanner.ts: secrets in any
 * form, key shapes, tokens and system-prompt runs held back and redacted) → with a map already attached, the failure-claim sentence filter → whitespace
 * shaping (no leading or trailing blanks, one blank line between model passes). `finish` applies the
 * whole-text rules (prompt-leak refusal, failure-claim repair, tool disclosure, empty answer) and says
 * which tail, if any, can still be sent as a delta so the deltas end up equal to the answer.
 */
import { NO_MAP, type CmuMaps } from '../campus/cmu-maps.js';
import type { AnswerNotes } from './answer-notes.js';
import { discloseTools } from './disclosure.js';
import { isFailureClaim, mapPointer, mayBeFailureClaim, repairFailureClaims } from './failure-claims.js';
import { createReasoningStripper, REASONING_ENDED, type ReasoningStripper } from './reasoning.js';
import type { LeakScanner } from '../security/leak-scanner.js';
import { createSentenceFilter, type SentenceFilter } from './sentence-filter.js';

/** What an empty model answer becomes (issue 4, "Answer quality wording"); with a map, the map pointer. */
export const EMPTY_ANSWER_APOLOGY = "Sorry, I couldn't put an answer together for that. Could you rephrase your question?";

/** The refusal that replaces an answer that repeated the system prompt. One sentence. */
export const PROMPT_LEAK_REFUSAL = "Sorry, I can't share that, but I'm happy to help with questions about campus.";

export interface AnswerStreamOptions {
  /** The turn's leak scanner (`LeakPolicy.stream(systemPrompt)`). */
  scanner: LeakScanner;
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

/** Creates the answer stream of one turn. */
export function createAnswerStream(options: AnswerStreamOptions): AnswerStream {
  const secure = options.scanner;
  let stripper: ReasoningStripper = createReasoningStripper();
  let filter: SentenceFilter | null = null;
  let filterMap: CmuMaps = NO_MAP;
  let emitted = '';
  // Where the answer starts in `emitted` (after a stray closing reasoning tag, earlier text was reasoning).
  let answerStart = 0;
  let pendingSpace = '';
  let pointerSent: string | null = null;
  // Sentences the current pass's filter dropped, and all passes' (the final repair needs to know).
  let claimsDropped = 0;
  let droppedInStream = 0;
  let otherToolFailed = false;
  const dropClaim = (sentence: string) => isFailureClaim(sentence, { otherToolFailed });

  // True until the first visible text of the answer or of a new pass: leading blanks are dropped there.
  let atStart = true;

  /** Whitespace shaping: leading blanks dropped, trailing ones held until more text follows. */
  const shape = (text: string): string => {
    const body = text.replace(/\s+$/, '');
    if (!body.trim()) {
      if (!atStart) pendingSpace += text;
      return '';
    }
    const out = atStart ? (emitted.length > answerStart ? pendingSpace : '') + body.replace(/^\s+/, '') : pendingSpace + body;
    atStart = false;
    pendingSpace = text.slice(body.length);
    emitted += out;
    return out;
  };

  /** Secure text → claim filter (when on) → shaping; leads with the map pointer on the first drop. */
  const afterSecure = (text: string, final = false): string => {
    if (!filter) return shape(text);
    const kept = filter.push(text) + (final ? filter.flush() : '');
    let out = '';
    if (filter.removed > claimsDropped) {
      droppedInStream += filter.removed - claimsDropped;
      claimsDropped = filter.removed;
      if (pointerSent === null && emitted.length === answerStart) {
        pointerSent = mapPointer(filterMap);
        out += shape(`${pointerSent}\n\n`);
      }
    }
    return out + shape(kept);
  };

  const fromStripper = (pieces: ReturnType<ReasoningStripper['push']>): string => {
    let out = '';
    for (const piece of pieces) {
      if (piece === REASONING_ENDED) {
        // Everything before was reasoning: drop what is held, and start the answer afresh.
        secure.flush();
        answerStart = emitted.length;
        pendingSpace = '';
        atStart = true;
        pointerSent = null;
        droppedInStream = 0;
        claimsDropped = 0;
        if (filter) filter = createSentenceFilter(dropClaim, mayBeFailureClaim);
        continue;
      }
      out += afterSecure(secure.push(piece));
    }
    return out;
  };

  const endPass = (): string => {
    let out = fromStripper([stripper.end()]);
    out += afterSecure(secure.flush(), true);
    return out;
  };

  return {
    push: (text) => fromStripper(stripper.push(text)),

    newPass(claimFilter) {
      const out = endPass();
      stripper = createReasoningStripper();
      // Passes are separated by one blank line, whatever whitespace the model put around them.
      if (emitted.length > answerStart) pendingSpace = '\n\n';
      atStart = true;
      filterMap = claimFilter?.map ?? NO_MAP;
      otherToolFailed = claimFilter?.otherToolFailed ?? false;
      filter = filterMap.url ? createSentenceFilter(dropClaim, mayBeFailureClaim) : null;
      claimsDropped = 0;
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
        text = emitted.slice(answerStart);
        if (pointerSent !== null) text = text.slice(pointerSent.length).trimStart();
        const repair = repairFailureClaims(text, map, { otherToolFailed: facts.otherToolFailed }, droppedInStream);
        text = repair.text;
        if (repair.repaired) notes.repairedFailureClaim = true;
        text = discloseTools(text, { toolsUsed: facts.toolsUsed, query: facts.query }).text;
        if (!text.trim()) {
          // With a map the lookup worked: point at it rather than apologise.
          text = map.url ? mapPointer(map) : EMPTY_ANSWER_APOLOGY;
          notes.emptyModelOutput = true;
        }
      }
      const delta = text.startsWith(emitted) ? text.slice(emitted.length) : '';
      if (delta) emitted += delta;
      return { delta: last + delta, text, map, notes };
    },
  };
}
