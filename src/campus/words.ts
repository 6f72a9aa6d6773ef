/**
 * Word-level normalisation shared by the building catalog's alias index and its prose scanner, so a
 * name and a sentence that mentions it are cut into the same words: lowercased, accents folded, `&`
 * read as "and", possessive "'s" dropped, every other punctuation mark a word break.
 */

/** One word of a text with its place in the original string (for spans in prose). */
export interface Word {
  /** Normalised form: lowercase, no accents. */
  norm: string;
  /** As written (case kept), used to tell a code written in capitals from an ordinary word. */
  raw: string;
  start: number;
  end: number;
}

// Letters and digits form words; "&" is a word of its own (read "and"); a trailing 's is swallowed.
const WORD = /[\p{L}\p{N}]+(?:['’][sS](?![\p{L}\p{N}]))?|&/gu;

function normWord(raw: string): string {
  if (raw === '&') return 'and';
  return raw
    .replace(/['’][sS]$/, '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();
}

/** Cuts `text` into normalised words with their offsets. */
export function words(text: string): Word[] {
  const out: Word[] = [];
  for (const m of text.matchAll(WORD)) {
    const raw = m[0];
    out.push({ norm: normWord(raw), raw, start: m.index, end: m.index + raw.length });
  }
  return out;
}

/** The normalised key of a phrase: its words joined by single spaces ("Gates & Hillman" → "gates and hillman"). */
export function phraseKey(text: string): string {
  return words(text)
    .map((w) => w.norm)
    .join(' ');
}

/** A room number as written after a building: "4301", "5310", "4401A", "A12" is not one (too ambiguous). */
export function isRoomNumber(word: string): boolean {
  // "4401", "136A", and a letter before the number ("A104", Hamerschlag Hall's lettered rooms; "A15",
  // "A18A": Baker and Porter Halls' lower floors, issue 73).
  return /^(?:\d{3,4}[a-z]?|[a-z]\d{2,4}[a-z]?)$/i.test(word);
}
