/**
 * The terminal client's Markdown (src/sandbox/chat/terminal-markdown.ts): rendered by marked-terminal
 * without raw markers or control characters, and split into blocks as an answer streams in.
 */
import { describe, expect, it } from 'vitest';
import { MarkdownBlocks, createTerminalMarkdown, visibleWidth, wrapForTerminal } from '../src/sandbox/chat/terminal-markdown.js';

const render = createTerminalMarkdown({ width: 60 });

describe('terminal Markdown', () => {
  it('renders headings, bold and lists without their markers', () => {
    const text = render('### Walking from Wean Hall\n\nAbout **320 m**.\n\n1. Start at **Wean Hall**.\n2. Arrive.');
    expect(text).toContain('Walking from Wean Hall');
    expect(text).not.toContain('###');
    expect(text).not.toContain('**');
    expect(text).toMatch(/1\. Start at Wean Hall\./);
  });

  it('drops terminal control sequences an answer might carry', () => {
    const text = render('Hello \u001b]0;owned\u0007 and \u001b[2J there');
    expect(text).not.toMatch(/\u001b\]|\u0007|\u001b\[2J/);
  });
});

describe('wrapping to the terminal', () => {
  it('breaks long list items between words with a hanging indent, leaving a long URL whole', () => {
    const narrow = createTerminalMarkdown({ width: 32 });
    const text = narrow(
      '- **Schatz Dining Room**: Cohon University Center, 2nd floor. Monday - Friday: 7:30 AM - 8:00 PM\n- **Nourish**: open\n\nSee https://maps.scottylabs.org/a-very-long-path-that-cannot-break-anywhere',
    );
    const lines = text.split('\n');
    for (const l of lines.filter((l) => !l.includes('https://'))) expect(visibleWidth(l), l).toBeLessThanOrEqual(32);
    const words = 'Schatz Dining Room: Cohon University Center, 2nd floor. Monday - Friday: 7:30 AM - 8:00 PM'.split(' ');
    const first = lines.findIndex((l) => l.includes('Schatz'));
    const itemLines = lines.slice(first, lines.findIndex((l) => l.includes('Nourish')));
    expect(itemLines.length).toBeGreaterThan(2);
    expect(itemLines.join(' ').replace(/^\s*[-*•]\s+/, '').split(/\s+/).filter(Boolean)).toEqual(words);
    const indent = /^(\s*[-*•] )/.exec(itemLines[0]!)![1]!.length;
    for (const l of itemLines.slice(1)) expect(l.slice(0, indent).trim(), l).toBe('');
    expect(lines.some((l) => l.includes('https://maps.scottylabs.org/a-very-long-path-that-cannot-break-anywhere'))).toBe(true);
  });

  it('counts colour codes as no width', () => {
    expect(visibleWidth('\u001b[1mbold\u001b[22m')).toBe(4);
    expect(wrapForTerminal('\u001b[1maaa bbb\u001b[22m ccc', 7)).toBe('\u001b[1maaa bbb\u001b[22m\nccc');
  });
});

describe('MarkdownBlocks', () => {
  it('releases a block only when the blank line after it arrives, never inside a code fence', () => {
    const blocks = new MarkdownBlocks();
    expect(blocks.push('### Title')).toBe('');
    expect(blocks.push('\n\nFirst para')).toBe('### Title\n\n');
    expect(blocks.push('graph.\n')).toBe('');
    expect(blocks.push('\n```\ncode\n\nmore\n')).toBe('First paragraph.\n\n');
    expect(blocks.push('```\n\nTail')).toBe('```\ncode\n\nmore\n```\n\n');
    expect(blocks.end()).toBe('Tail');
  });
});
