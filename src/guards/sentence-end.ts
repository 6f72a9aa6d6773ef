/**
 * The one sentence-end rule of the answer guards (issue 60: the grounding stream and the sentence filter
 * each had one, and they disagreed on "9 p.m. on", "Oct. 15" and "…"): an end mark, then closing quotes,
 * brackets or emphasis, then a space or the line's end; a period after an abbreviation ends nothing.
 * `guards/sentence-filter.ts` reads it character by character (SentenceEnd), the grounding stream
 * backwards from a candidate end (grounding-stream.ts `endsSentence`).
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
