/**
 * The one wording of a stored fact (src/memory/fact-wording.ts): the user's words in third person
 * without a subject, whoever wrote them, applied to every fact admitted (fact-guard.ts).
 */
import { describe, expect, it } from 'vitest';
import { admitFact } from '../src/memory/fact-guard.js';
import { storableText } from '../src/memory/fact-text.js';
import { MAX_FACT_LENGTH } from '../src/memory/store.js';
import { livesIn, toThirdPerson } from '../src/memory/fact-wording.js';
import { baseLeakPolicy } from '../src/security/leak-policy.js';

describe('toThirdPerson', () => {
  it.each([
    ['I am vegetarian', 'Is vegetarian'],
    ["I'm allergic to peanuts", 'Is allergic to peanuts'],
    ['my dorm is Morewood Gardens', 'Lives in Morewood Gardens'],
    ['Their dorm is Morewood Gardens', 'Lives in Morewood Gardens'],
    ["The user's residence hall is Donner House", 'Lives in Donner House'],
    ['The user lives in Donner House', 'Lives in Donner House'],
    ['I live in Mudge House', 'Lives in Mudge House'],
    ['I study physics', 'Studies physics'],
    ['I usually eat late', 'Usually eats late'],
    ["I don't eat pork", 'Does not eat pork'],
    ["I can't have gluten", 'Cannot have gluten'],
    ['my major is ECE', 'Majors in ECE'],
    ['My favorite food is sushi', 'Favorite food is sushi'],
    ['I take my coffee black', 'Takes their coffee black'],
    ['I go to the gym at 7', 'Goes to the gym at 7'],
    ["They're a sophomore", 'Is a sophomore'],
    ['my name is Sam', 'Goes by Sam'],
    ['I have a bike', 'Has a bike'],
    // A move is where someone lives now (so it replaces the old home); other past tenses stay past.
    ['I moved to Donner', 'Lives in Donner'],
    ['I just moved into Stever House', 'Lives in Stever House'],
    ['The user has moved to Mudge House', 'Lives in Mudge House'],
    ['I started running', 'Started running'],
    ['I need quiet mornings', 'Needs quiet mornings'],
    // Already in the wording, or nothing to rewrite: unchanged, capitals and a final period kept.
    ['Is vegetarian', 'Is vegetarian'],
    ['Is vegetarian.', 'Is vegetarian.'],
    ['Studies ME', 'Studies ME'],
    ['International student', 'International student'],
    ['Moved to Donner House', 'Lives in Donner House'],
  ])('%s → %s', (input, expected) => {
    expect(toThirdPerson(input)).toBe(expected);
  });
});

describe('admitFact', () => {
  it('stores every fact in the one wording, and still refuses secrets', () => {
    expect(admitFact('  my dorm is   Morewood Gardens ', baseLeakPolicy)).toEqual({ ok: true, text: 'Lives in Morewood Gardens' });
    expect(admitFact('my api key is sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789', baseLeakPolicy).ok).toBe(false);
  });

  it('cleans, words, then cuts: what it admits is exactly what a store accepts as it is', () => {
    // The wording lengthens the text ("my" becomes "their"): the cut comes after it.
    const long = admitFact(`I like ${'my friends '.repeat(60)}`, baseLeakPolicy);
    expect(long.ok && Array.from(long.text).length).toBe(MAX_FACT_LENGTH);
    expect(long.ok && long.text.startsWith('Likes their friends their friends')).toBe(true);
    // A provider key split by a control character is read joined, as it would be stored.
    expect(admitFact('my key is sk-proj-AbCdEfGhIjKl\u0001MnOpQrStUvWxYz0123456789', baseLeakPolicy)).toEqual({ ok: false, reason: 'secret' });
    const admitted = admitFact('  I live in\tMudge\u0000 House\uDC00 ', baseLeakPolicy);
    expect(admitted).toEqual({ ok: true, text: 'Lives in Mudge House' });
    expect(admitted.ok && storableText('add', admitted.text)).toBe('Lives in Mudge House');
  });
});

describe('livesIn', () => {
  it('reads where a fact in the one wording says the user lives, whoever wrote it', () => {
    expect(livesIn(toThirdPerson('I moved to Donner House'))).toBe('Donner House');
    expect(livesIn(toThirdPerson('my dorm is Morewood Gardens.'))).toBe('Morewood Gardens');
    expect(livesIn(toThirdPerson('I live in Mudge House'))).toBe('Mudge House');
    expect(livesIn('Is vegetarian')).toBeNull();
    expect(livesIn('Lives in ')).toBeNull();
  });
});
