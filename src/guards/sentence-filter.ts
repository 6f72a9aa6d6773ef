/**
 * Removes sentences from Markdown, streaming or whole: the failure-claim repair and the tool-disclosure
 * guard both drop single sentences. Structure is kept: a list marker or quote prefix stays with the
 * first kept sentence of its line (a line left with no sentence vanishes, with one blank line after it),
 * and headings, table rows and fenced code pass through untouched. Streaming, only the sentence being
 * written is held back; a finished sentence is judged and released at once. Linear in the text's
 * length, whatever the chunking (issue 12).
 */
import { ABBREVIATION_WINDOW, endsWithAbbreviation, isCjkEndMark, isCloser, isEndMark } from './sentence-end.js';

/** A streaming sentence remover (see `createSentenceFilter`). */
export interface SentenceFilter {
  /** Feeds text; returns what is now final. */
  push(text: string): string;
  /** End of text: judges the last sentence and returns the rest. */
  flush(): string;
  /** Number of sentences dropped so far. */
  readonly removed: number;
}

// List markers, ordered-list numbers and block quotes at the start of a line.
const LINE_PREFIX = /^[ \t]*(?:(?:[-*+]|\d{1,3}[.)])[ \t]+|>[ \t]?)*/;
// Lines that are structure, not prose: headings, table rows, fences.
const VERBATIM_LINE = /^[ \t]*(?:#{1,6}(?:[ \t]|$)|\||```|~~~)/;
const FENCE = /^[ \t]*(?:```|~~~)/;

/**
 * The opening-words test sees at most this many characters of a sentence: openers are a few words, so
 * a sentence still undecided this far in stays held until its end without being asked again.
 */
const MAY_DROP_WINDOW = 160;

// End of a sentence (sentence-end.ts, the one rule): an end mark, closing quotes/brackets/emphasis,
// then spaces or tabs, then more text (any non-whitespace character), on the same line. Recognised
// character by character here. Chinese and Japanese end marks need no space.
const isSpaceOrTab = (c: number) => c === 0x20 || c === 0x09;
/** JavaScript's `\s` (and `trim()`): white space and line terminators. */
function isWhitespace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 ||
    c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
  );
}

/** Where a possible end of the sentence has got: an end mark (and closers) read, then the spaces after it. */
type EndState = 'none' | 'marked' | 'spacing';

/**
 * The end of the current sentence as it is recognised, one character at a time: an end mark, closing
 * quotes, brackets or emphasis, then spaces or tabs, then more text on the same line. An abbreviation's
 * period ends nothing; after a CJK end mark the next sentence may follow without a space.
 */
class SentenceEnd {
  state: EndState = 'none';
  /** The sentence's length up to its end mark and closers. */
  body = 0;
  private abbreviation = false;
  private unspaced = false;

  reset(): void {
    this.state = 'none';
  }

  /** Reads `c`, the character after the first `length` of the sentence: true when the sentence ended before it. */
  endsBefore(c: number, length: number): boolean {
    if (this.state === 'spacing') {
      if (isSpaceOrTab(c)) return false;
      if (!isWhitespace(c) && !this.abbreviation) return true;
      this.state = 'none';
    } else if (this.state === 'marked') {
      if (isCloser(c)) this.body = length + 1;
      else if (isSpaceOrTab(c)) this.state = 'spacing';
      else if (this.unspaced && !isWhitespace(c)) return true;
      else this.state = 'none';
    }
    return false;
  }

  /** The end mark `c` was counted as the sentence's `length`-th character; `lastChars` end with it. */
  mark(c: number, length: number, lastChars: string): void {
    this.state = 'marked';
    this.body = length;
    this.unspaced = isCjkEndMark(c);
    this.abbreviation = endsWithAbbreviation(lastChars);
  }
}

/** The sentence being read: its unreleased text and how much of it is out. */
class Sentence {
  /** Its text from `releasedCount` on (all of it while not committed). */
  held = '';
  length = 0;
  releasedCount = 0;
  /** Length up to its last non-whitespace character (0: nothing but whitespace yet). */
  lastNonSpace = 0;
  /** Its last characters before the piece being read (for the abbreviation test). */
  tail = '';
  /** Released unjudged because `mayDrop` ruled it out; what is released is gone. */
  committed = false;
  /** `mayDrop` saw MAY_DROP_WINDOW characters and still said maybe: held to the end. */
  undecided = false;
  readonly end = new SentenceEnd();

  reset(): void {
    this.held = '';
    this.length = 0;
    this.releasedCount = 0;
    this.lastNonSpace = 0;
    this.tail = '';
    this.committed = false;
    this.undecided = false;
    this.end.reset();
  }

  /** Adds `piece` (already looked at) to the unreleased text. */
  keep(piece: string): void {
    if (!piece) return;
    this.held += piece;
    this.tail = piece.length >= ABBREVIATION_WINDOW ? piece.slice(-ABBREVIATION_WINDOW) : (this.tail + piece).slice(-ABBREVIATION_WINDOW);
  }
}

/** Where the filter is in the current line. */
type LineState =
  /** Before the line's first characters: its kind (prose or verbatim) is not known yet. */
  | 'start'
  /** A heading, table row, fence or a line inside fenced code: passed through as it is. */
  | 'verbatim'
  /** Prose: read sentence by sentence. */
  | 'prose';

/**
 * Creates a filter that drops every sentence for which `drop` returns true. `mayDrop`, when given,
 * is asked about the unfinished sentence: once it says the sentence cannot turn out to be dropped
 * (its opening words rule that out), the sentence is released as it streams instead of held whole.
 *
 * Linear in the text: every character is looked at once, as it arrives; the state between pushes is
 * the line's state, the sentence's unreleased text, and how far a possible sentence end has got. A
 * held sentence is kept as pushed pieces and read whole only when it is judged.
 */
export function createSentenceFilter(
  drop: (sentence: string) => boolean,
  mayDrop?: (partial: string) => boolean,
): SentenceFilter {
  /** Text not yet looked at. */
  let input = '';
  let removed = 0;
  let lineState: LineState = 'start';
  let inFence = false;
  // The line: its list or quote prefix (until a sentence of it is kept), the space after the last
  // sentence, whether a sentence of it was kept or removed, and whether a blank line after a line
  // removed whole is still to be skipped.
  const line = { prefix: '', space: '', kept: false, removed: false, skipBlank: false };
  const sentence = new Sentence();

  /** What goes before the first text of a sentence: the inter-sentence space or the line's prefix. */
  const lead = (): string => {
    const out = line.kept ? line.space : line.prefix;
    line.kept = true;
    line.prefix = '';
    return out;
  };

  const judge = (text: string): string => {
    if (drop(text.trim())) {
      removed++;
      line.removed = true;
      return '';
    }
    return lead() + text;
  };

  /** The sentence is complete; `text` is its unreleased part (the whole sentence when not committed). */
  const finishSentence = (text: string): string => {
    if (!sentence.committed) return judge(text);
    return (sentence.releasedCount === 0 ? lead() : '') + text;
  };

  const endLine = (content: string): string => {
    let out = content ? finishSentence(content) : '';
    const blank = !line.kept && !line.removed && line.prefix.trim() === '';
    if (line.removed && !line.kept) line.skipBlank = true;
    else if (blank && line.skipBlank) line.skipBlank = false;
    else {
      if (!line.kept) out += line.prefix;
      out += '\n';
      line.skipBlank = false;
    }
    lineState = 'start';
    return out;
  };

  /**
   * Reads prose from `input` up to the end of the line or of the input. Returns the output and whether
   * a line ended (the caller then classifies the next line).
   */
  const readProse = (): { out: string; lineEnded: boolean } => {
    let out = '';
    let from = 0; // start of the piece of `input` not yet added to the sentence
    const { end } = sentence;
    /** The sentence ends before input[i]: its text up to the end mark and closers, then the spaces. */
    const endBefore = (i: number) => {
      const text = sentence.held + input.slice(from, i);
      const body = end.body - sentence.releasedCount;
      out += finishSentence(text.slice(0, body));
      line.space = text.slice(body);
      sentence.reset();
      from = i;
    };
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c === 0x0a) {
        out += endLine(sentence.held + input.slice(from, i));
        input = input.slice(i + 1);
        sentence.reset();
        return { out, lineEnded: true };
      }
      if (end.endsBefore(c, sentence.length)) endBefore(i);
      sentence.length++;
      if (!isWhitespace(c)) sentence.lastNonSpace = sentence.length;
      if (end.state === 'none' && isEndMark(c)) {
        const window = input.slice(Math.max(from, i + 1 - ABBREVIATION_WINDOW), i + 1);
        end.mark(c, sentence.length, window.length >= ABBREVIATION_WINDOW ? window : (sentence.tail + window).slice(-ABBREVIATION_WINDOW));
      }
    }
    sentence.keep(input.slice(from));
    input = '';
    return { out, lineEnded: false };
  };

  /** At the end of the input: release the sentence now if its opening words rule out a drop. */
  const releaseEarly = (): string => {
    if (!mayDrop || sentence.lastNonSpace === 0) return '';
    if (!sentence.committed) {
      if (sentence.undecided) return '';
      const { held } = sentence;
      if (mayDrop(held.length > MAY_DROP_WINDOW ? held.slice(0, MAY_DROP_WINDOW) : held)) {
        if (sentence.length >= MAY_DROP_WINDOW) sentence.undecided = true;
        return '';
      }
      sentence.committed = true;
    }
    // Everything up to its last non-whitespace character leaves now; trailing spaces wait.
    const upTo = sentence.lastNonSpace - sentence.releasedCount;
    if (upTo <= 0) return '';
    const out = (sentence.releasedCount === 0 ? lead() : '') + sentence.held.slice(0, upTo);
    sentence.held = sentence.held.slice(upTo);
    sentence.releasedCount = sentence.lastNonSpace;
    return out;
  };

  /** Classifies the line `input` starts; false when too little of it has arrived to tell. */
  const startLine = (final: boolean): boolean => {
    const nl = input.indexOf('\n');
    if (nl === -1 && !final && input.length < 4) return false;
    if (!input) return false;
    line.kept = false;
    line.removed = false;
    line.space = '';
    const text = nl === -1 ? input : input.slice(0, nl);
    const verbatim = inFence || VERBATIM_LINE.test(text);
    if (FENCE.test(text)) inFence = !inFence;
    lineState = verbatim ? 'verbatim' : 'prose';
    if (!verbatim) {
      line.prefix = LINE_PREFIX.exec(input)![0];
      input = input.slice(line.prefix.length);
      sentence.reset();
    }
    return true;
  };

  const step = (final: boolean): string => {
    let out = '';
    for (;;) {
      if (lineState === 'start' && !startLine(final)) return out;
      if (lineState === 'verbatim') {
        const nl = input.indexOf('\n');
        const upto = nl === -1 ? input.length : nl + 1;
        out += input.slice(0, upto);
        input = input.slice(upto);
        line.skipBlank = false;
        if (nl === -1) return out;
        lineState = 'start';
        continue;
      }
      const read = readProse();
      out += read.out;
      if (read.lineEnded) continue;
      if (final) {
        out += sentence.length > 0 ? finishSentence(sentence.held) : line.kept ? '' : line.prefix;
        sentence.reset();
        return out;
      }
      return out + releaseEarly();
    }
  };

  return {
    push(text) {
      input += text;
      return step(false);
    },
    flush() {
      return step(true);
    },
    get removed() {
      return removed;
    },
  };
}

/** Drops sentences from a complete text; returns the text and how many were dropped. */
export function dropSentences(text: string, drop: (sentence: string) => boolean): { text: string; removed: number } {
  const f = createSentenceFilter(drop);
  const out = f.push(text) + f.flush();
  return { text: out, removed: f.removed };
}
