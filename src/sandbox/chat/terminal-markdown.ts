/**
 * Markdown for the terminal client, rendered by marked with marked-terminal (colours only when the
 * output is a terminal that supports them; control characters in the text are removed by the
 * renderer, so an answer cannot move the cursor or retitle the window). Answers stream, so they are
 * rendered block by block: a block (paragraph, list, heading, table) is printed once the blank line
 * after it arrives, and the rest when the answer ends. Every rendered line is wrapped to the terminal's
 * width at word boundaries, list items with a hanging indent. marked-terminal's own reflow is off: it
 * breaks inside long words (a URL) and leaves list items alone, which the terminal then broke mid-word.
 */
import { Marked, type MarkedExtension } from 'marked';
import { markedTerminal } from 'marked-terminal';

export type RenderMarkdown = (markdown: string) => string;

export function createTerminalMarkdown(options: { width?: number } = {}): RenderMarkdown {
  const width = options.width ?? 80;
  const marked = new Marked();
  marked.use(markedTerminal({ showSectionPrefix: false, reflowText: false, width, tab: 2 }) as unknown as MarkedExtension);
  // marked-terminal 7.3 renders the text of a tight list item without its inline tokens ("**bold**" stays
  // raw): parse those here, and let marked-terminal render every other text (returning false falls back).
  marked.use({
    renderer: {
      text(token) {
        return 'tokens' in token && token.tokens ? this.parser.parseInline(token.tokens) : false;
      },
    },
  });
  return (markdown) => wrapForTerminal((marked.parse(markdown, { async: false }) as string).replace(/\s+$/, ''), width);
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Columns a line takes on screen: colour codes take none. */
export const visibleWidth = (line: string): number => [...line.replace(ANSI, '')].length;

/**
 * Each line no wider than `width`, broken at spaces; a continuation is indented like the line's text
 * (after its indent and list marker). A single word wider than the line (a URL) is left whole.
 */
export function wrapForTerminal(text: string, width: number): string {
  return text
    .split('\n')
    .flatMap((line) => {
      if (visibleWidth(line) <= width) return [line];
      const plain = line.replace(ANSI, '');
      const lead = /^(\s*)((?:[-*•+]|\d+[.)])\s+)?/.exec(plain)!;
      const hang = ' '.repeat(Math.min(lead[0].length, Math.floor(width / 2)));
      const words = line.trimStart().split(/ +/);
      const out: string[] = [];
      let current = line.slice(0, line.length - line.trimStart().length);
      let empty = true;
      for (const word of words) {
        const next = empty ? `${current}${word}` : `${current} ${word}`;
        if (!empty && visibleWidth(next) > width) {
          out.push(current);
          current = `${hang}${word}`;
        } else current = next;
        empty = false;
      }
      out.push(current);
      return out;
    })
    .join('\n');
}

/** Splits a growing answer into complete Markdown blocks (never inside a fenced code block). */
export class MarkdownBlocks {
  private buffer = '';

  /** Adds streamed text; returns the blocks it completed, as one Markdown string ('' when none). */
  push(text: string): string {
    this.buffer += text;
    let cut = -1;
    let inFence = false;
    const lines = this.buffer.split('\n');
    let offset = 0;
    for (let i = 0; i < lines.length - 1; i++) {
      const line = lines[i]!;
      if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
      offset += line.length + 1;
      if (!inFence && line.trim() === '' && i > 0) cut = offset;
    }
    if (cut < 0) return '';
    const done = this.buffer.slice(0, cut);
    this.buffer = this.buffer.slice(cut);
    return done.trim() ? done : '';
  }

  /** What is left at the end of the answer. */
  end(): string {
    const rest = this.buffer;
    this.buffer = '';
    return rest;
  }
}
