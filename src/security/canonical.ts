/**
 * The canonical form the leak policy compares in: Unicode compatibility forms folded (NFKD, so
 * fullwidth `ｓｋ` and mathematical `𝐬𝐤` are `sk`, and accents drop off), look-alike letters of other
 * scripts folded to the Latin letter they imitate (the Unicode TR39 confusables prototypes, so
 * Cyrillic `ѕк` is `sk`), lower case, and only letters and digits kept. Everything else (spaces,
 * newlines, zero-width characters, Markdown `**`, dashes, dots) is dropped, so "S K - o r", "s​k‑or"
 * and "**sk**-or" all read `skor`.
 *
 * Leetspeak is folded too: a digit reads as the letter it stands for (0 o, 1 l, 2 z, 3 e, 4 a, 5 s,
 * 6 b, 7 t, 8 b, 9 g) and `i` reads as `l` (1, i and l are one shape), so `5k-0r` is `skor` as well.
 * Both sides of every comparison are folded the same way, so folding only ever adds matches. Whether
 * a symbol came from a digit is kept in DIGIT_FLAG: the leak rule counts digits (leak-scanner/reading.ts).
 */
import { createRequire } from 'node:module';

/** Symbols of the canonical alphabet; SEPARATOR never occurs in text (it divides indexed strings). */
export const ALPHABET_SIZE = 37;
export const SEPARATOR = 36;

/** Set on a symbol that came from a digit (the symbol itself is `symbol & SYMBOL_MASK`). */
export const DIGIT_FLAG = 64;
export const SYMBOL_MASK = 63;

/** The letter-or-digit class of an ASCII code unit (0-9 digits, 10-35 letters), or -1: raw shapes, not folded. */
export function asciiSymbol(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  if (code >= 65 && code <= 90) return code - 55;
  return -1;
}

// Leetspeak: each digit's symbol is the letter's; `i` (18) folds onto `l` (21) with `1`.
const LETTER = (ch: string) => ch.charCodeAt(0) - 87;
const FOLD = Int8Array.from({ length: 36 }, (_, s) => s);
[...'olzeasbtbg'].forEach((ch, digit) => (FOLD[digit] = LETTER(ch)));
FOLD[LETTER('i')] = LETTER('l');

/** The canonical symbol of an ASCII code unit (folded, DIGIT_FLAG on digits), or -1 when it is not a letter or digit. */
export function canonicalSymbol(code: number): number {
  const s = asciiSymbol(code);
  if (s < 0) return -1;
  return s < 10 ? FOLD[s]! | DIGIT_FLAG : FOLD[s]!;
}

// TR39 prototypes of non-ASCII characters (Unicode's confusables.txt, as the unhomoglyph package keeps
// it), loaded the first time a character outside ASCII is read: most answers never need the table.
let prototypes: Record<string, string> | null = null;
function prototypeOf(ch: string): string {
  prototypes ??= createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
  return (ch.charCodeAt(0) > 0x7f && prototypes[ch]) || ch;
}

/** The canonical symbols a non-ASCII code point stands for (often none). */
function foldedSymbols(codePoint: number): number[] {
  let skeleton = '';
  for (const ch of String.fromCodePoint(codePoint).normalize('NFKD')) skeleton += prototypeOf(ch);
  const folded = skeleton.normalize('NFKD').toLowerCase();
  const out: number[] = [];
  for (let i = 0; i < folded.length; i++) {
    const s = canonicalSymbol(folded.charCodeAt(i));
    if (s >= 0) out.push(s);
  }
  return out;
}

// Non-ASCII code points seen so far and their symbols; answers reuse few (dashes, quotes, accents).
const FOLDED = new Map<number, number[]>();
const FOLDED_LIMIT = 4096;

function symbolsOf(codePoint: number): number[] {
  let s = FOLDED.get(codePoint);
  if (!s) {
    s = foldedSymbols(codePoint);
    if (FOLDED.size < FOLDED_LIMIT) FOLDED.set(codePoint, s);
  }
  return s;
}

/**
 * Reads text chunk by chunk and calls `emit(symbol, offset)` for each canonical symbol (DIGIT_FLAG set
 * when it came from a digit), `offset` being the absolute index of the character it came from. A surrogate pair split across chunks is joined.
 */
export interface CanonicalReader {
  push(text: string, offset: number, emit: (symbol: number, at: number) => void): void;
  reset(): void;
}

export function createCanonicalReader(): CanonicalReader {
  let high = -1;
  let highAt = 0;
  return {
    push(text, offset, emit) {
      for (let i = 0; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code < 128) {
          high = -1;
          const s = canonicalSymbol(code);
          if (s >= 0) emit(s, offset + i);
          continue;
        }
        if (code >= 0xd800 && code <= 0xdbff) {
          high = code;
          highAt = offset + i;
          continue;
        }
        let point = code;
        let at = offset + i;
        if (code >= 0xdc00 && code <= 0xdfff && high >= 0) {
          point = (high - 0xd800) * 0x400 + (code - 0xdc00) + 0x10000;
          at = highAt;
        }
        high = -1;
        for (const s of symbolsOf(point)) emit(s, at);
      }
    },
    reset() {
      high = -1;
    },
  };
}

/** The canonical form of a whole string, as symbols (without DIGIT_FLAG). */
export function canonicalSymbols(text: string): number[] {
  const out: number[] = [];
  createCanonicalReader().push(text, 0, (s) => out.push(s & SYMBOL_MASK));
  return out;
}
