/**
 * The sentence-level guards on their own: Markdown-preserving sentence removal (whole and streamed at
 * every chunk size), the failure-claim and no-tools-claim predicates, and the opening-words test that
 * lets unsuspicious sentences stream.
 */
import { describe, expect, it } from 'vitest';
import { asksAboutTools, isNoToolsClaim } from '../src/guards/disclosure.js';
import { isFailureClaim, mayBeFailureClaim } from '../src/guards/failure-claims.js';
import { createSentenceFilter, dropSentences } from '../src/guards/sentence-filter.js';

const claim = (s: string) => isFailureClaim(s);

describe('dropSentences', () => {
  it.each([
    ["I couldn't retrieve the route. Walk north on Forbes.", 'Walk north on Forbes.'],
    ["## Directions\n\n- I couldn't get the route.\n- Walk north on Forbes.\n", '## Directions\n\n- Walk north on Forbes.\n'],
    ["1. First, I couldn't find the building. Go left.\n2. Go right.", '1. Go left.\n2. Go right.'],
    ["Intro.\n\nI couldn't load the map.\n\nWalk to 205 S. Craig St. and turn left.", 'Intro.\n\nWalk to 205 S. Craig St. and turn left.'],
    ["```\nI couldn't load the map.\n```\nDone.", "```\nI couldn't load the map.\n```\nDone."],
    ["> I couldn't find the location.\n> Quote kept.", '> Quote kept.'],
    ['| a | b |\n|---|---|\n| Use Google Maps | x |', '| a | b |\n|---|---|\n| Use Google Maps | x |'],
    ['No claims here. Second sentence.\nNext line.\n', 'No claims here. Second sentence.\nNext line.\n'],
  ])('%j → %j, the same when streamed at any chunk size', (text, expected) => {
    expect(dropSentences(text, claim).text).toBe(expected);
    for (const withMayDrop of [false, true]) {
      for (let size = 1; size <= 9; size++) {
        const f = createSentenceFilter(claim, withMayDrop ? mayBeFailureClaim : undefined);
        let out = '';
        for (let i = 0; i < text.length; i += size) out += f.push(text.slice(i, i + size));
        expect(out + f.flush()).toBe(expected);
      }
    }
  });

  it.each([
    ['图书馆今天开放。查询失败了，请稍后再试！食堂在一楼。', '图书馆今天开放。食堂在一楼。'],
    ['「地图加载失败。」请向北走。', '请向北走。'],
    ['図書館は開いています。検索に失敗しました？食堂は一階です．', '図書館は開いています。食堂は一階です．'],
  ])('ends sentences at 。！？． with no space after them: %j → %j, at any chunk size', (text, expected) => {
    const failed = (sentence: string) => sentence.includes('失败') || sentence.includes('失敗');
    expect(dropSentences(text, failed).text).toBe(expected);
    for (let size = 1; size <= 9; size++) {
      const f = createSentenceFilter(failed);
      let out = '';
      for (let i = 0; i < text.length; i += size) out += f.push(text.slice(i, i + size));
      expect(out + f.flush(), `chunks of ${size}`).toBe(expected);
    }
  });

  it('releases a sentence whose opening rules out a claim before its end arrives', () => {
    const f = createSentenceFilter(claim, mayBeFailureClaim);
    expect(f.push('Wean')).toBe('');
    expect(f.push(' Hall is on the ')).toBe('Wean Hall is on the');
    expect(f.push('Cut. I could')).toBe(' Cut.');
    expect(f.push("n't load the map. ")).toBe('');
    expect(f.push('Bye.') + f.flush()).toBe(' Bye.');
    expect(f.removed).toBe(1);
  });
});

describe('sentence filter cost', () => {
  it('asks the opening-words test about a held sentence only within its first 160 characters', () => {
    let asked = 0;
    const f = createSentenceFilter(claim, (partial) => {
      asked++;
      return mayBeFailureClaim(partial);
    });
    const sentence = "I couldn't get the route" + ' and the building'.repeat(600) + '.';
    let out = '';
    for (const ch of sentence) out += f.push(ch);
    expect(out).toBe(''); // held: it opens like a claim
    expect(asked).toBeLessThanOrEqual(160);
    expect(f.push(' Walk north.') + f.flush()).toBe('Walk north.');
    expect(f.removed).toBe(1);
  });

  it('keeps a 40,000-character line without a sentence end whole, streamed one character at a time', () => {
    const line = 'Wean is near' + ' the building and the lawn'.repeat(1600);
    const f = createSentenceFilter(claim, mayBeFailureClaim);
    let out = '';
    for (const ch of line) out += f.push(ch);
    expect(out + f.flush()).toBe(line);
  });
});

describe('failure-claim predicates', () => {
  it.each([
    ["I'm sorry, I couldn't determine the route.", true],
    ['Unfortunately the navigation service is currently unavailable.', true],
    ['Open maps.google.com for live directions.', true],
    ['The map lookup returned no results.', true],
    ['Wean Hall is a short walk from Gates.', false],
    ["If you can't find the entrance, ask at the front desk.", false],
    ["I couldn't find any open dining locations right now.", false],
    ['The course search returned no results for 15-999.', false],
  ])('isFailureClaim(%j) = %s', (sentence, expected) => {
    expect(isFailureClaim(sentence)).toBe(expected);
  });

  it('treats a generic tool failure as true when another tool really failed', () => {
    expect(isFailureClaim('The tool returned an error.')).toBe(true);
    expect(isFailureClaim('The tool returned an error.', { otherToolFailed: true })).toBe(false);
  });

  it.each([
    ['Wea', true],
    ['Wean ', false],
    ['Here ', false],
    ['First, I', true],
    ['First, the closest', false],
    ['Also the routing', true],
    ['The closest', false],
    ['You can find', false],
    ['For coffee', false],
    ['I', true],
    ['Unfortunately', true],
    ['The routing', true],
    ['The campus map', true],
    ['You can use', true],
    ['For turn-by-turn', true],
    ['Th', true],
  ])('mayBeFailureClaim(%j) = %s', (partial, expected) => {
    expect(mayBeFailureClaim(partial)).toBe(expected);
  });
});

describe('disclosure predicates', () => {
  it.each([
    ["I didn't use any tools for this.", true],
    ['No tools were used.', true],
    ['This is based on my general knowledge.', true],
    ['I answered from general knowledge only.', true],
    ["I don't have access to real-time data.", true],
    ['I used the dining tool.', false],
    ['Knowledge is power.', false],
  ])('isNoToolsClaim(%j) = %s', (sentence, expected) => {
    expect(isNoToolsClaim(sentence)).toBe(expected);
  });

  it.each([
    ['What tools did you use?', true],
    ['which services did you call', true],
    ['Did you use any tools?', true],
    ['how did you know that?', true],
    ["what's your source", true],
    ["what's open now", false],
    ['which tool shop sells hammers near campus', false],
    ['where is gates', false],
  ])('asksAboutTools(%j) = %s', (query, expected) => {
    expect(asksAboutTools(query)).toBe(expected);
  });
});
