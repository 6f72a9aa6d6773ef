/**
 * Issue 77, item 1: answers the front end's renderer shows as written. Rendered through the front end's
 * own packages (react-markdown 10.1.0, remark-gfm 4.0.1, remark-math 6.0.0, rehype-katex 7.0.1, server-side
 * React to HTML) after the front end's own rewrite of `\[…\]` and `\(…\)`, and, while streaming, its
 * closing of an odd `$$` or code fence:
 *
 * - the transform itself: the same text at every split of the stream, and what it writes for each rule;
 * - a corpus of answers written the ways models write prices, ranges, tables, images, links, headings,
 *   math-like escapes and code, streamed through the real app over HTTP: every streamed prefix and the
 *   final answer render with prices as text, no KaTeX node, no image, no strike-through, no raw HTML
 *   shown as text, tables whole, only allowed links;
 * - the sandbox's real answers (the zero-config service: offline model, sandbox tools over MCP).
 */
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import Markdown from 'react-markdown';
import rehypeKatex from 'rehype-katex';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderSafe, renderSafeText } from '../src/guards/render-safe.js';
import { startAdmissionApp, type AdmissionApp } from './support/admission-harness.js';
import { startOfflineService, type OfflineService } from './support/offline-service.js';
import { collectSseEvents } from './support/sse.js';

const MAP_HOST = 'maps.scottylabs.org';
const links = { allowed: (url: URL) => url.host === MAP_HOST };

/** What the front end shows for `text`: its rewrite, then its Markdown renderer, as HTML. */
function frontEnd(text: string, streaming = false): string {
  let pre = text.replace(/\\\[([\s\S]*?)\\\]/g, (_, m: string) => `$$${m}$$`).replace(/\\\(([\s\S]*?)\\\)/g, (_, m: string) => `$${m}$`);
  if (streaming) {
    // While streaming it closes an odd `$$` and an odd code fence.
    if ((pre.match(/\$\$/g) ?? []).length % 2 === 1) pre += '$$';
    if ((pre.match(/```/g) ?? []).length % 2 === 1) pre += '\n```';
  }
  return renderToStaticMarkup(createElement(Markdown, { remarkPlugins: [remarkGfm, remarkMath], rehypePlugins: [rehypeKatex] }, pre));
}

/** The text a reader sees in rendered HTML. */
const seen = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'");

/** What no rendered answer may show: math, an image, struck-through text, raw HTML as text, a blanked link, a heading outside ##/###. */
function expectClean(html: string, label: string, hosts: readonly string[] = [MAP_HOST]) {
  const problems = [
    html.includes('class="katex') && 'math (KaTeX)',
    /<img\b/.test(html) && 'an image',
    /<link\b/.test(html) && 'a preloaded image',
    /<del\b/.test(html) && 'struck-through text',
    /&lt;\/?[a-z][a-z0-9-]*(\s[^&]*)?&gt;/i.test(html) && 'raw HTML shown as text',
    /href=""/.test(html) && 'a blanked link',
    /<h[145]\b/.test(html) && 'a heading outside ## and ###',
    ...[...html.matchAll(/href="([^"]*)"/g)].map(([, href]) => !/^mailto:/.test(href!) && !hosts.some((host) => href!.startsWith(`https://${host}/`)) && `a link to ${href}`),
  ].filter(Boolean);
  expect({ label, problems }).toEqual({ label, problems: [] });
}

/** Answers written as models write them (prices, ranges, tables, images, links, headings, escapes, code). */
const CORPUS = [
  'Lunch is $8.50 and dinner $12 at Schatz.',
  'Meals run $5–$10 at the food trucks; a latte is $4.25 and a bagel $2.',
  'DineXtra costs $$ but a block plan is $2,850 a semester.',
  'The shuttle comes every 5~10 min and the bus every 15~20 min; the walk is ~12 min.',
  '| Place | Hours | Price |\n|---|---|---|\n| Entropy | 8 AM–2 AM<br>Fri until 3 AM | $3–$9 |\n| Tepper Café | 7 AM–4 PM<br/>closed Sun | $6 |',
  'Here it is: ![Gates](https://tracker.example/p.png?who=student-7) and the map ![map](https://maps.scottylabs.org/GHC).',
  'Call [412-268-2922](tel:4122682922), mail [the desk](mailto:help@example.edu) or see [this site](https://other.example/x) and <https://other.example/y>.',
  '# Dining\nSchatz is open.\n#### Hours\nUntil 8 PM.',
  '{"answer": "Schatz is open until 8 PM."}',
  'In math terms \\(x + y\\) costs \\[2x\\] and $$z$$, or about $3.',
  'Use `$price` in code, and:\n\n```\ntotal = $5 + $3\n```\n\nthen pay $8.',
  'Hours:\nMon 9 AM–5 PM\nTue 9 AM–5 PM\nPrices start at $4.',
  '<div>Open</div> late <!-- internal note --> with <b>deals</b> from $1.',
  'Already escaped: \\$5, and a backslash \\\\ stays.',
];

describe('the renderer-safe transform', () => {
  it('writes the same text at every split of the stream', () => {
    for (const text of CORPUS) {
      const whole = renderSafeText(text, links);
      for (let cut = 1; cut < text.length; cut++) {
        const r = new RenderSafe(links);
        expect(r.push(text.slice(0, cut)) + r.push(text.slice(cut)) + r.flush()).toBe(whole);
      }
      const r = new RenderSafe(links);
      expect([...text].map((c) => r.push(c)).join('') + r.flush()).toBe(whole);
    }
  });

  it('writes what each rule says', () => {
    const safe = (t: string) => renderSafeText(t, links);
    expect(safe('Lunch is $8.50 and dinner $12.')).toBe('Lunch is \\$8.50 and dinner \\$12.');
    expect(safe('every 5~10 min, ~12 min')).toBe('every 5–10 min, \\~12 min');
    expect(safe('a<br>b <i>c</i>')).toBe('a; b c');
    expect(safe('![x](https://tracker.example/p.png)')).toBe('x');
    expect(safe('![](https://maps.scottylabs.org/GHC)')).toBe('[https://maps.scottylabs.org/GHC](https://maps.scottylabs.org/GHC)');
    expect(safe('[412-268-2922](tel:4122682922)')).toBe('412-268-2922');
    expect(safe('# Title\n#### Sub')).toBe('## Title\n### Sub');
    expect(safe('{"a": 1}')).toBe('\\{"a": 1}');
    expect(safe('\\(x\\) and \\[y\\]')).toBe('(x) and [y]');
    expect(safe('`$x` and $y')).toBe('`$x` and \\$y');
    expect(safe('One line.\nAnother line.')).toBe('One line.\n\nAnother line.');
    expect(safe('- a\n- b')).toBe('- a\n- b');
  });
});

describe('answers through the app, rendered by the front end\'s packages', () => {
  let h: AdmissionApp;
  let base: string;
  let current = '';

  beforeAll(async () => {
    h = await startAdmissionApp();
    h.gw.handler = () => ({ text: current.match(/[\s\S]{1,3}/g)! });
    base = await h.listen();
  });

  afterAll(() => h?.close());

  it.each(CORPUS.map((text) => [text.slice(0, 40), text] as const))('%s', async (_label, text) => {
    current = text;
    // The answer's own text is the question, so every price and hour in it has evidence (grounding is not what is tested here).
    const res = await fetch(`${base}/agent/respond/stream`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: text }) });
    const events = await collectSseEvents(res.body!);
    const deltas = events.filter((e) => e.type === 'delta').map((e) => e.data.text as string);
    const done = events.find((e) => e.type === 'done')!.data;
    // Every view while it streams, and the answer as it ends.
    let sofar = '';
    for (const d of deltas) {
      sofar += d;
      expectClean(frontEnd(sofar, true), `streamed prefix of ${JSON.stringify(text.slice(0, 30))}`);
    }
    const html = frontEnd(done.response_text);
    expectClean(html, text);
    // Every price the model wrote is shown as written.
    for (const price of text.match(/\$\d[\d,.]*/g) ?? []) if (!text.includes('```')) expect(seen(html)).toContain(price);
    // An answer that looks like JSON is not taken for JSON.
    expect(() => JSON.parse(done.response_text)).toThrow();
  });

  it('keeps a table whole, a <br> in a cell included', async () => {
    current = CORPUS[4]!;
    const body = await (await h.post('/agent/respond', { query: current })).json();
    const html = frontEnd(body.response_text);
    expect(html.match(/<tr>/g)).toHaveLength(3);
    expect(seen(html)).toContain('8 AM–2 AM; Fri until 3 AM');
    expect(seen(html)).toContain('$3–$9');
  });
});

describe("the sandbox's own answers, rendered by the front end's packages", () => {
  let offline: OfflineService;
  beforeAll(async () => {
    offline = await startOfflineService();
  });
  afterAll(() => offline?.close());

  const QUESTIONS = [
    'Where is Gates?',
    'How do I get from Wean Hall to the UC?',
    'What can I eat right now?',
    'What is open on Sunday at 7 pm?',
    'i need coffee',
    'Is Nourish open on Saturday?',
    'What are the prerequisites for 15-213?',
    'when does 15-122 meet',
    'Are there any machine learning courses?',
    'What gen eds can I take in Dietrich?',
    'How does housing work for first-years?',
    'how do meal plans work',
    'what is dinextra',
    'is there a shuttle at night?',
    'i need to talk to a counselor',
    'where do i pick up packages',
  ];

  it.each(QUESTIONS)('%s', async (q) => {
    const answer = await offline.ask('json', { q });
    // The sandbox guide's pages are links its tools gave: they stay links.
    expectClean(frontEnd(answer.text), q, [MAP_HOST, 'guide.sandbox.example']);
  });
});
