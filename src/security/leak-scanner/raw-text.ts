/**
 * What the raw readers (key words, bearer tokens, the encoded runs) see: the held text between absolute
 * offsets, and the character classes they read it by.
 */
import { asciiSymbol } from '../canonical.js';
import type { Findings } from './reading.js';

// Character classes of the raw readers, by ASCII code: key characters, token characters, whitespace.
export const isKeyChar = (c: number) => asciiSymbol(c) >= 0 || c === 95 || c === 45;
export const isTokenChar = (c: number) => isKeyChar(c) || c === 46 || c === 126 || c === 43 || c === 47 || c === 61;
export const isSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

/** What the raw readers see of the held text. */
export interface RawText {
  findings: Findings;
  /** The held text between two absolute offsets. */
  text(from: number, to: number): string;
}
