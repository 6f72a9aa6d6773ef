/**
 * Where the grounding stream may cut what it holds (grounding-stream.ts): how much of a segment with no
 * claim trigger yet may leave, and where an over-long held segment is judged.
 */
import { isLetter, isNumberWord, isSpace, mayLeadIn, numberBefore } from './triggers.js';

/** How much of an untriggered `buf` may leave: all but a trailing word that could begin a claim. */
export function safePoint(buf: string): number {
  let end = buf.length;
  // A word still arriving: held only while it could grow into a month, a season, noon or midnight.
  let start = end;
  while (start > 0 && isLetter(buf[start - 1]!)) start--;
  if (start < end) {
    if (mayLeadIn(buf, start, end, true)) return start;
    // "twelve un…", "fifth fl…": the number waits until its next word shows it is units or a floor, or not.
    const number = numberBefore(buf, start, end);
    return number >= 0 ? number : end;
  }
  // A finished month, season or number in words (maybe "Oct.", "twelve-"), or a "(" or "+", waits for what follows it.
  while (end > 0 && (buf[end - 1] === ' ' || buf[end - 1] === '\t' || buf[end - 1] === '-')) end--;
  const last = buf[end - 1];
  if (last === '(' || last === '+') return end - 1;
  const dotted = last === '.';
  if (dotted) end--;
  start = end;
  while (start > 0 && isLetter(buf[start - 1]!)) start--;
  // "Oct." waits for its day; "One." is no number of units.
  return mayLeadIn(buf, start, end, false) && !(dotted && isNumberWord(buf.slice(start, end))) ? start : buf.length;
}

/** A cut for an over-long held segment: the last space with no digit within 16 characters. */
export function forcedCut(buf: string): number {
  for (let i = buf.length - 17; i > 16; i--) {
    if (isSpace(buf[i]!) && !/\d/.test(buf.slice(i - 16, i + 17))) return i;
  }
  return buf.length - 64;
}
