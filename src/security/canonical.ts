/**
 * The canonical form the leak policy compares in: Unicode compatibility forms folded (NFKC, so
 * fullwidth `ｓｋ` and mathematical `𝐬𝐤` are `sk`), lower case, and only the letters a-z and digits
 * 0-9 kept. Everything else (spaces, newlines, zero-width characters, Markdown `**`, dashes, dots)
 * is dropped, so "S K - o r", "s​k‑or" and "**sk**-or" all read `skor`. Symbols are 0-9 for the digits
 * and 10-35 for the letters.
 */

/** Symbols of the canonical alphabet; SEPARATOR never occurs in text (it divides indexed strings). */
export const ALPHABET_SIZE = 37;
export const SEPARATOR = 36;

/** The canonical symbol of an ASCII code unit, or -1 when it is not a letter or digit. */
export function asciiSymbol(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 122) return code - 87;
  if (code >= 65 && code <= 90) return code - 55;
  return -1;
}

/** The canonical symbols a non-ASCII code point stands for (often none). */
function foldedSymbols(codePoint: number): number[] {
  const folded = String.fromCodePoint(codePoint).normalize('NFKC').toLowerCase();
  const out: number[] = [];
  for (let i = 0; i < folded.length; i++) {
    const s = asciiSymbol(folded.charCodeAt(i));
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
 * Reads text chunk by chunk and calls `emit(symbol, offset)` for each canonical symbol, `offset` being
 * the absolute index of the character it came from. A surrogate pair split across chunks is joined.
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
          const s = asciiSymbol(code);
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

/** The canonical form of a whole string, as symbols. */
export function canonicalSymbols(text: string): number[] {
  const out: number[] = [];
  createCanonicalReader().push(text, 0, (s) => out.push(s));
  return out;
}

/** The canonical form of a whole string, as text (a-z0-9). */
export function canonicalText(text: string): string {
  return canonicalSymbols(text)
    .map((s) => (s < 10 ? String.fromCharCode(48 + s) : String.fromCharCode(87 + s)))
    .join('');
}
