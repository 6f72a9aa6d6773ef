/**
 * The terminal client's Markdown (src/sandbox/chat/terminal-markdown.ts): rendered by marked-terminal
 * without raw markers or control characters, and split into blocks as an answer streams in.
 */
import { describe, expect, it } from 'vitest';
import { MarkdownBlocks, createTerminalMarkdown } from '../src/sandbox/chat/terminal-markdown.js';

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
