/**
 * The one sentence-end rule of the answer guards (issue 60: the grounding stream and the sentence filter
 * each had one, and they disagreed on "9 p.m. on", "Oct. 15" and "…"): an end mark, then closing quotes,
 * brackets or emphasis, then a space or the line's end; a period after an abbreviation ends nothing.
 * `guards/sentence-filter.ts` reads it character by character (SentenceEnd), the grounding stream
 * backwards from a candidate end (`endsSentenceAt`), and grounding's binders ask whether the stretch
 * between a value and the days or subjects before it crosses one (`crossesSentence`; issue 73: days.ts
 * and subject-facts.ts each had a pattern of their own, which took "9 p.m. on" for a sentence's end).
 */

/**
 * A period after these is no sentence end ("S. Craig", "e.g. GHC", "Dr. Smith", "9 p.m. on", "Oct. 15").
 * Tested on the last ABBREVIATION_WINDOW characters up to the period: longer than any abbreviation with
 * its period (7), so `^` can only match at the text's real start.
 */
const ABBREVIATION = /(?:^|[\s(])(?:[ap]\.m|[A-Za-z]|e\.g|i\.e|vs|St|Dr|Mr|Mrs|Ms|Ave|No|Prof|Rm|approx|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)\.$/;
export const ABBREVIATION_WINDOW = 12;

/** Does `text` (ending with a period) end with an abbreviation's period? */
export function endsWithAbbreviation(text: string): boolean {
  return ABBREVIATION.test(text.length > ABBREVIATION_WINDOW ? text.slice(-ABBREVIATION_WINDOW) : text);
}

/** Chinese and Japanese end marks (。！？．): the next sentence may follow without a space. */
export const isCjkEndMark = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff0e;
/** . ! ? … and the CJK marks. */
export const isEndMark = (c: number) => c === 0x2e || c === 0x21 || c === 0x3f || c === 0x2026 || isCjkEndMark(c);
/** " ' ” ’ ) ] * _ and 」 』 ） 】: what may follow an end mark inside the sentence. */
export const isCloser = (c: number) =>
  c === 0x22 || c === 0x27 || c === 0x201d || c === 0x2019 || c === 0x29 || c === 0x5d || c === 0x2a || c === 0x5f ||
  c === 0x300d || c === 0x300f || c === 0xff09 || c === 0x3011;

/**
 * Does the white space at `i` end a sentence of `text`: an end mark before it (closers skipped), not an
 * abbreviation's period? `context` is what came before `text` (for an abbreviation cut at its start).
 */
export function endsSentenceAt(text: string, i: number, context = ''): boolean {
  let j = i - 1;
  while (j >= 0 && isCloser(text.charCodeAt(j))) j--;
  if (j < 0) return false;
  const mark = text.charCodeAt(j);
  if (!isEndMark(mark)) return false;
  if (mark !== 0x2e) return true;
  return !endsWithAbbreviation((context + text.slice(Math.max(0, j + 1 - ABBREVIATION_WINDOW), j + 1)).slice(-ABBREVIATION_WINDOW));
}

const isSpaceCode = (c: number) => c === 0x20 || c === 0x09 || c === 0x0d || c === 0xa0;

/**
 * Does `text` (the stretch between two marks of one answer) cross a sentence end or a line break? The
 * same rule as the stream's; with `clauses`, a semicolon before white space counts too (a list of
 * values pairs only with the subjects of its own clause).
 */
export function crossesSentence(text: string, clauses = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) return true;
    if (!isSpaceCode(c) || i === 0) continue;
    if (clauses && text.charCodeAt(i - 1) === 0x3b) return true;
    if (endsSentenceAt(text, i)) return true;
  }
  return false;
}
