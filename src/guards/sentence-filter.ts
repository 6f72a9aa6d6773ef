/**
 * Removes sentences from Markdown, streaming or whole: the failure-claim repair and the tool-disclosure
 * guard both drop single sentences. Structure is kept: a list marker or quote prefix stays with the
 * first kept sentence of its line (a line left with no sentence vanishes, with one blank line after it),
 * and headings, table rows and fenced code pass through untouched. Streaming, only the sentence being
 * written is held back; a finished sentence is judged and released at once.
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
// End of a sentence: terminal punctuation, closing quotes/brackets/emphasis, then spaces and more text.
const SENTENCE_END = /[.!?…]["'”’)\]*_]*([ \t]+)(?=\S)/g;
// A period after these is not the end of a sentence ("S. Craig", "e.g. GHC", "Dr. Smith").
const ABBREVIATION = /(?:^|[\s(])(?:[A-Z]|e\.g|i\.e|vs|St|Dr|Mr|Mrs|Ms|Ave|No|Prof|Rm|approx)\.$/;

/**
 * Creates a filter that drops every sentence for which `drop` returns true. `mayDrop`, when given,
 * is asked about the unfinished sentence: once it says the sentence cannot turn out to be dropped
 * (its opening words rule that out), the sentence is released as it streams instead of held whole.
 */
export function createSentenceFilter(
  drop: (sentence: string) => boolean,
  mayDrop?: (partial: string) => boolean,
): SentenceFilter {
  let buf = '';
  let atLineStart = true;
  let verbatim = false;
  let inFence = false;
  let prefix = '';
  let space = '';
  let lineKept = false;
  let lineRemoved = false;
  let skipBlank = false;
  let removed = 0;
  // The current sentence was released unjudged (mayDrop ruled it out); this much of it has left.
  let committed = false;
  let releasedUpTo = 0;

  const release = (content: string, upTo: number): string => {
    let out = '';
    if (releasedUpTo === 0) {
      out += lineKept ? space : prefix;
      lineKept = true;
      prefix = '';
    }
    out += content.slice(releasedUpTo, upTo);
    releasedUpTo = upTo;
    return out;
  };

  const finishSentence = (sentence: string): string => {
    const out = committed ? release(sentence, sentence.length) : judge(sentence);
    committed = false;
    releasedUpTo = 0;
    return out;
  };

  const judge = (sentence: string): string => {
    if (drop(sentence.trim())) {
      removed++;
      lineRemoved = true;
      return '';
    }
    const out = (lineKept ? space : prefix) + sentence;
    lineKept = true;
    prefix = '';
    return out;
  };

  const endLine = (last: string): string => {
    let out = last ? finishSentence(last) : '';
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

  const step = (final: boolean): string => {
    let out = '';
    for (;;) {
      const nl = buf.indexOf('\n');
      if (atLineStart) {
        if (nl === -1 && !final && buf.length < 4) return out; // not enough to tell the line's kind
        if (!buf) return out;
        atLineStart = false;
        lineKept = false;
        lineRemoved = false;
        space = '';
        const line = nl === -1 ? buf : buf.slice(0, nl);
        verbatim = inFence || VERBATIM_LINE.test(line);
        if (FENCE.test(line)) inFence = !inFence;
        if (!verbatim) {
          prefix = LINE_PREFIX.exec(buf)![0];
          buf = buf.slice(prefix.length);
          continue;
        }
      }
      if (verbatim) {
        const upto = nl === -1 ? buf.length : nl + 1;
        out += buf.slice(0, upto);
        buf = buf.slice(upto);
        skipBlank = false;
        if (nl === -1) return out;
        atLineStart = true;
        continue;
      }
      const lineEnd = buf.indexOf('\n');
      const content = lineEnd === -1 ? buf : buf.slice(0, lineEnd);
      const end = sentenceEnd(content);
      if (end) {
        out += finishSentence(content.slice(0, end.body));
        space = content.slice(end.body, end.after);
        buf = buf.slice(end.after);
        continue;
      }
      if (lineEnd !== -1) {
        out += endLine(content);
        buf = buf.slice(lineEnd + 1);
        continue;
      }
      if (final) {
        out += content ? finishSentence(content) : lineKept ? '' : prefix;
        buf = '';
      } else if (mayDrop && content.trim() && (committed || !mayDrop(content))) {
        // Stays in buf until its end is seen (the boundary is needed), but leaves now.
        committed = true;
        const upTo = content.replace(/\s+$/, '').length;
        if (upTo > releasedUpTo) out += release(content, upTo);
      }
      return out;
    }
  };

  return {
    push(text) {
      buf += text;
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

/** The first real sentence end in `line`: where the sentence stops and where the next one starts. */
function sentenceEnd(line: string): { body: number; after: number } | null {
  SENTENCE_END.lastIndex = 0;
  for (const m of line.matchAll(SENTENCE_END)) {
    const spaces = m[1]!;
    const body = m.index + m[0].length - spaces.length;
    if (ABBREVIATION.test(line.slice(0, m.index + 1))) continue;
    return { body, after: body + spaces.length };
  }
  return null;
}

/** Drops sentences from a complete text; returns the text and how many were dropped. */
export function dropSentences(text: string, drop: (sentence: string) => boolean): { text: string; removed: number } {
  const f = createSentenceFilter(drop);
  const out = f.push(text) + f.flush();
  return { text: out, removed: f.removed };
}
