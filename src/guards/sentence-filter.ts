/**
 * Removes sentences from Markdown, streaming or whole: the failure-claim repair and the tool-disclosure
 * guard both drop single sentences. Structure is kept: a list marker or quote prefix stays with the
 * first kept sentence of its line (a line left with no sentence vanishes, with one blank line after it),
 * and headings, table rows and fenced code pass through untouched. Streaming, only the sentence being
 * written is held back; a finished sentence is judged and released at once. Linear in the text's
 * length, whatever the chunking (issue 12).
 */

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
// A period after these is not the end of a sentence ("S. Craig", "e.g. GHC", "Dr. Smith"). Tested on
// the sentence's last ABBREVIATION_WINDOW characters up to the period: longer than any abbreviation
// with its period (7), so `^` can only match at the sentence's real start.
const ABBREVIATION = /(?:^|[\s(])(?:[A-Z]|e\.g|i\.e|vs|St|Dr|Mr|Mrs|Ms|Ave|No|Prof|Rm|approx)\.$/;
const ABBREVIATION_WINDOW = 10;

/**
 * The opening-words test sees at most this many characters of a sentence: openers are a few words, so
 * a sentence still undecided this far in stays held until its end without being asked again.
 */
const MAY_DROP_WINDOW = 160;

// End of a sentence: an end mark, closing quotes/brackets/emphasis, then spaces or tabs, then more
// text (any non-whitespace character), on the same line. Recognised character by character. Chinese
// and Japanese end marks (。！？．) need no space: the next sentence follows at once.
const isCjkEndMark = (c: number) => c === 0x3002 || c === 0xff01 || c === 0xff1f || c === 0xff0e; // 。！？．
const isEndMark = (c: number) => c === 0x2e || c === 0x21 || c === 0x3f || c === 0x2026 || isCjkEndMark(c); // . ! ? … and CJK
const isCloser = (c: number) =>
  c === 0x22 || c === 0x27 || c === 0x201d || c === 0x2019 || c === 0x29 || c === 0x5d || c === 0x2a || c === 0x5f || // " ' ” ’ ) ] * _
  c === 0x300d || c === 0x300f || c === 0xff09 || c === 0x3011; // 」 』 ） 】
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

/**
 * Creates a filter that drops every sentence for which `drop` returns true. `mayDrop`, when given,
 * is asked about the unfinished sentence: once it says the sentence cannot turn out to be dropped
 * (its opening words rule that out), the sentence is released as it streams instead of held whole.
 *
 * Linear in the text: every character is looked at once, as it arrives; the state between pushes is
 * the line's kind, the sentence's unreleased text, and how far a possible sentence end has got. A
 * held sentence is kept as pushed pieces and read whole only when it is judged.
 */
export function createSentenceFilter(
  drop: (sentence: string) => boolean,
  mayDrop?: (partial: string) => boolean,
): SentenceFilter {
  /** Text not yet looked at. */
  let input = '';
  let atLineStart = true;
  let verbatim = false;
  let inFence = false;
  let prefix = '';
  let space = '';
  let lineKept = false;
  let lineRemoved = false;
  let skipBlank = false;
  let removed = 0;

  // The current sentence: `held` is its text from `releasedCount` on (all of it while not committed).
  let held = '';
  let length = 0;
  let releasedCount = 0;
  /** Length up to its last non-whitespace character (0: nothing but whitespace yet). */
  let lastNonSpace = 0;
  /** Its last characters before the piece being read (for the abbreviation test). */
  let tail = '';
  /** Released unjudged because `mayDrop` ruled it out; what is released is gone. */
  let committed = false;
  /** `mayDrop` saw MAY_DROP_WINDOW characters and still said maybe: held to the end. */
  let undecided = false;
  // A possible end: 0 none, 1 after the end mark and closers, 2 in the spaces after them.
  let endPhase = 0;
  let endBody = 0;
  let endIsAbbreviation = false;
  // The end mark was a CJK one: the next sentence may start without a space.
  let endUnspaced = false;

  const startSentence = () => {
    held = '';
    length = 0;
    releasedCount = 0;
    lastNonSpace = 0;
    tail = '';
    committed = false;
    undecided = false;
    endPhase = 0;
  };

  /** What goes before the first text of a sentence: the inter-sentence space or the line's prefix. */
  const lead = (): string => {
    const out = lineKept ? space : prefix;
    lineKept = true;
    prefix = '';
    return out;
  };

  const judge = (sentence: string): string => {
    if (drop(sentence.trim())) {
      removed++;
      lineRemoved = true;
      return '';
    }
    return lead() + sentence;
  };

  /** The sentence is complete; `text` is its unreleased part (the whole sentence when not committed). */
  const finishSentence = (text: string): string => {
    if (!committed) return judge(text);
    return (releasedCount === 0 ? lead() : '') + text;
  };

  const endLine = (content: string): string => {
    let out = content ? finishSentence(content) : '';
    const blank = !lineKept && !lineRemoved && prefix.trim() === '';
    if (lineRemoved && !lineKept) skipBlank = true;
    else if (blank && skipBlank) skipBlank = false;
    else {
      if (!lineKept) out += prefix;
      out += '\n';
      skipBlank = false;
    }
    atLineStart = true;
    return out;
  };

  /** Adds `piece` (already looked at) to the sentence's unreleased text. */
  const keep = (piece: string) => {
    if (!piece) return;
    held += piece;
    tail = piece.length >= ABBREVIATION_WINDOW ? piece.slice(-ABBREVIATION_WINDOW) : (tail + piece).slice(-ABBREVIATION_WINDOW);
  };

  /**
   * Reads prose from `input` up to the end of the line or of the input. Returns the output and whether
   * a line ended (the caller then classifies the next line).
   */
  const readProse = (): { out: string; lineEnded: boolean } => {
    let out = '';
    let from = 0; // start of the piece of `input` not yet added to `held`
    /** The sentence ends before input[i]: its text up to the end mark and closers, then the spaces. */
    const endBefore = (i: number) => {
      const text = held + input.slice(from, i);
      const body = endBody - releasedCount;
      out += finishSentence(text.slice(0, body));
      space = text.slice(body);
      startSentence();
      from = i;
    };
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i);
      if (c === 0x0a) {
        out += endLine(held + input.slice(from, i));
        input = input.slice(i + 1);
        startSentence();
        return { out, lineEnded: true };
      }
      if (endPhase === 2 && !isSpaceOrTab(c)) {
        if (!isWhitespace(c) && !endIsAbbreviation) endBefore(i);
        else endPhase = 0;
      } else if (endPhase === 1) {
        if (isCloser(c)) endBody = length + 1;
        else if (isSpaceOrTab(c)) endPhase = 2;
        else if (endUnspaced && !isWhitespace(c)) endBefore(i);
        else endPhase = 0;
      }
      length++;
      if (!isWhitespace(c)) lastNonSpace = length;
      if (endPhase === 0 && isEndMark(c)) {
        endPhase = 1;
        endBody = length;
        endUnspaced = isCjkEndMark(c);
        const start = Math.max(from, i + 1 - ABBREVIATION_WINDOW);
        const window = input.slice(start, i + 1);
        endIsAbbreviation = ABBREVIATION.test(window.length >= ABBREVIATION_WINDOW ? window : (tail + window).slice(-ABBREVIATION_WINDOW));
      }
    }
    keep(input.slice(from));
    input = '';
    return { out, lineEnded: false };
  };

  /** At the end of the input: release the sentence now if its opening words rule out a drop. */
  const releaseEarly = (): string => {
    if (!mayDrop || lastNonSpace === 0) return '';
    if (!committed) {
      if (undecided) return '';
      if (mayDrop(held.length > MAY_DROP_WINDOW ? held.slice(0, MAY_DROP_WINDOW) : held)) {
        if (length >= MAY_DROP_WINDOW) undecided = true;
        return '';
      }
      committed = true;
    }
    // Everything up to its last non-whitespace character leaves now; trailing spaces wait.
    const upTo = lastNonSpace - releasedCount;
    if (upTo <= 0) return '';
    const out = (releasedCount === 0 ? lead() : '') + held.slice(0, upTo);
    held = held.slice(upTo);
    releasedCount = lastNonSpace;
    return out;
  };

  const step = (final: boolean): string => {
    let out = '';
    for (;;) {
      if (atLineStart) {
        const nl = input.indexOf('\n');
        if (nl === -1 && !final && input.length < 4) return out; // not enough to tell the line's kind
        if (!input) return out;
        atLineStart = false;
        lineKept = false;
        lineRemoved = false;
        space = '';
        const line = nl === -1 ? input : input.slice(0, nl);
        verbatim = inFence || VERBATIM_LINE.test(line);
        if (FENCE.test(line)) inFence = !inFence;
        if (!verbatim) {
          prefix = LINE_PREFIX.exec(input)![0];
          input = input.slice(prefix.length);
          startSentence();
        }
      }
      if (verbatim) {
        const nl = input.indexOf('\n');
        const upto = nl === -1 ? input.length : nl + 1;
        out += input.slice(0, upto);
        input = input.slice(upto);
        skipBlank = false;
        if (nl === -1) return out;
        atLineStart = true;
        continue;
      }
      const read = readProse();
      out += read.out;
      if (read.lineEnded) continue;
      if (final) {
        out += length > 0 ? finishSentence(held) : lineKept ? '' : prefix;
        startSentence();
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
