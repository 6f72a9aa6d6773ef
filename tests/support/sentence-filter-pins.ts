/**
 * The sentence-filter pins, computed: every push's output of the sentence filter over the corpus
 * (sentence-filter-corpus.ts) at chunk sizes 1, 2, 3, 5, 7, 64 and whole, with and without the
 * opening-words test, and of the answer stream with a map attached at 1, 3 and 64. The pins test
 * compares these with tests/fixtures/sentence-filter-pins.json; `npm run pins:record`
 * (scripts/record-sentence-pins.ts) writes that file from them, after a change meant to alter them.
 */
import { buildCampusMap } from '../../src/campus/map-link.js';
import { loadCatalog } from '../../src/campus/catalog.js';
import { createAnswerStream } from '../../src/guards/answer-stream.js';
import { isFailureClaim, mayBeFailureClaim } from '../../src/guards/failure-claims.js';
import { createSentenceFilter } from '../../src/guards/sentence-filter.js';
import { baseLeakPolicy } from '../../src/security/leak-policy.js';
import { SENTENCE_CORPUS } from './sentence-filter-corpus.js';
import { groundingOver } from './verify.js';

export interface FilterPin {
  text: string;
  mayDrop: boolean;
  size: number;
  outputs: string[];
  removed: number;
}

export interface AnswerPin {
  text: string;
  size: number;
  outputs: string[];
  final: { delta: string; text: string };
}

export interface Pins {
  recordedFrom: string;
  pins: FilterPin[];
  answers: AnswerPin[];
}

/** 100,000: the whole text in one push. */
export const FILTER_SIZES = [1, 2, 3, 5, 7, 64, 100_000];
export const ANSWER_SIZES = [1, 3, 64];

const drop = (s: string) => isFailureClaim(s, { otherToolFailed: false });

/** The sentence filter's outputs for one text, chunk size and mode. */
export function filterPin(text: string, size: number, mayDrop: boolean): FilterPin {
  const f = createSentenceFilter(drop, mayDrop ? mayBeFailureClaim : undefined);
  const outputs: string[] = [];
  for (let i = 0; i < text.length; i += size) outputs.push(f.push(text.slice(i, i + size)));
  outputs.push(f.flush());
  return { text, mayDrop, size, outputs, removed: f.removed };
}

/**
 * The answer stream's outputs for one text and chunk size, with a map attached. Grounding runs with the
 * text itself as evidence (every atom confirmed), so the pins hold what the stream releases when.
 */
export function answerPin(text: string, size: number): AnswerPin {
  const map = buildCampusMap('https://maps.example/', loadCatalog(null).get('WEH')!);
  const answer = createAnswerStream({ scanner: baseLeakPolicy.stream('You are the campus assistant of a university.'), grounding: groundingOver(text) });
  const outputs = [answer.newPass({ map, otherToolFailed: false })];
  for (let i = 0; i < text.length; i += size) outputs.push(answer.push(text.slice(i, i + size)));
  const final = answer.finish({ map, toolsUsed: ['maps_show_map'], otherToolFailed: false, query: 'Where is Wean?' });
  return { text, size, outputs, final: { delta: final.delta, text: final.text } };
}

/** Every pin of the corpus, in the fixture's order. */
export function computePins(recordedFrom: string): Pins {
  return {
    recordedFrom,
    pins: SENTENCE_CORPUS.flatMap((text) => [false, true].flatMap((mayDrop) => FILTER_SIZES.map((size) => filterPin(text, size, mayDrop)))),
    answers: SENTENCE_CORPUS.flatMap((text) => ANSWER_SIZES.map((size) => answerPin(text, size))),
  };
}
