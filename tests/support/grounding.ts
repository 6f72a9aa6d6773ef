/**
 * One answer through the grounding check as the verify stage runs it, without the rest of the stage:
 * the turn's evidence (the student's question, the prompt, the tool results), the days the question
 * names, and the grounding stream fed in pieces as a model streams. The grounding tests share it.
 */
import { createEvidence, createTurnGrounding } from '../../src/guards/grounding/index.js';
import { CATALOG } from './verify.js';

export interface GroundOptions {
  /** Tool results, in the production shapes. */
  results: readonly string[];
  /** The campus weekday (0 Sunday) "today" names. */
  today: number;
  /** The student's message: evidence, and the days it names bind a time of no day of its own. */
  question?: string;
  /** Text evidence such as the prompt's campus date. */
  prompt?: string;
  /** Characters per pushed piece, or `words`: a word a piece with the space before it, as a model's tokens come; the whole answer in one piece when absent. */
  chunk?: number | 'words';
}

export interface Grounded {
  text: string;
  checked: number;
  unverified: number;
  /** Of the unverified, those true elsewhere in the evidence (another day, place, section, direction). */
  misbound: number;
  /** Of the kept, those whose days were not understood (their value true on some day of their place). */
  ambiguous: number;
}

export function groundAnswer(answer: string, options: GroundOptions): Grounded {
  const { today, question } = options;
  const evidence = createEvidence(CATALOG, () => today);
  if (question !== undefined) evidence.addQuestion(question);
  if (options.prompt !== undefined) evidence.addText(options.prompt);
  for (const result of options.results) evidence.addToolResult(result);
  const g = createTurnGrounding({ catalog: CATALOG, evidence, today, ...(question !== undefined && { question }) });
  let text = '';
  if (options.chunk === 'words') for (const piece of answer.split(/(?=\s)/)) text += g.push(piece);
  else {
    const size = options.chunk ?? Math.max(1, answer.length);
    for (let i = 0; i < answer.length; i += size) text += g.push(answer.slice(i, i + size));
  }
  text += g.flush();
  const misbound = [...g.byClass.values()].reduce((n, c) => n + c.misbound, 0);
  const ambiguous = [...g.byClass.values()].reduce((n, c) => n + c.ambiguous, 0);
  return { text, checked: g.checked, unverified: g.unverified, misbound, ambiguous };
}
