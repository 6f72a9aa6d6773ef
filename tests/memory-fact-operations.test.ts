/**
 * The operations grammar (src/memory/fact-operations.ts): what a model answer may look like, and which
 * ids name a fact. Applying operations to a store is tested through the extractor and the remember tool
 * (memory-turn.test.ts, memory-e2e.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { MAX_OPERATIONS, parseOperations, ShownFacts } from '../src/memory/fact-operations.js';
import type { Fact } from '../src/memory/store.js';

describe('parseOperations', () => {
  const ops = [
    { op: 'add', text: 'Is vegetarian' },
    { op: 'update', id: 'f2', text: 'Lives in Donner House' },
    { op: 'delete', id: 'f3' },
  ];

  it('accepts the JSON-mode object, a bare array, and either in a Markdown fence with prose around it', () => {
    for (const answer of [
      JSON.stringify({ operations: ops }),
      JSON.stringify(ops),
      '```json\n' + JSON.stringify({ operations: ops }, null, 2) + '\n```',
      'Here are the changes:\n```\n' + JSON.stringify(ops) + '\n```\nLet me know.',
    ]) {
      expect(parseOperations(answer)).toEqual({ operations: ops, malformed: 0, excess: 0 });
    }
  });

  it('keeps the valid entries, counts the malformed ones and those past the limit', () => {
    const answer = JSON.stringify([
      ...ops,
      { op: 'update', id: 'f1' },
      { op: 'merge', id: 'f1', text: 'x' },
      { op: 'delete', id: 7 },
      'Likes tea',
      null,
      ...Array.from({ length: MAX_OPERATIONS }, (_, i) => ({ op: 'add', text: `fact ${i}` })),
    ]);
    const parsed = parseOperations(answer)!;
    expect(parsed.operations).toHaveLength(MAX_OPERATIONS);
    expect(parsed.operations.slice(0, 3)).toEqual(ops);
    expect(parsed.malformed).toBe(5);
    expect(parsed.excess).toBe(3);
  });

  it('is null for an answer that is not operations at all', () => {
    for (const answer of ['', 'No changes.', '{"facts": ["Is vegetarian"]}', '{"operations": "none"}', '42', 'null', '```json\n{oops}\n```']) {
      expect(parseOperations(answer)).toBeNull();
    }
  });
});

describe('ShownFacts', () => {
  const fact = (id: string, text: string): Fact => ({
    id,
    userId: 'u',
    kind: 'learned',
    text,
    createdAt: new Date(0),
    updatedAt: new Date(0),
  });
  const shown = new ShownFacts([fact('11111111-1111-4111-8111-111111111111', 'Is vegetarian'), fact('22222222-2222-4222-8222-222222222222', 'Lives in Mudge House')]);

  it('names the facts f1, f2, … and resolves only those names', () => {
    expect(shown.lines()).toBe('f1: Is vegetarian\nf2: Lives in Mudge House');
    expect(shown.resolve('f2')?.text).toBe('Lives in Mudge House');
    expect(shown.resolve(' F1 ')?.text).toBe('Is vegetarian');
    expect(shown.resolve('2')?.text).toBe('Lives in Mudge House');
    for (const id of ['f3', 'f0', '11111111-1111-4111-8111-111111111111', 'f1; drop table', '']) expect(shown.resolve(id)).toBeUndefined();
    expect(new ShownFacts([]).lines()).toBe('(none)');
  });
});
