/**
 * The playground page in headless Chromium (Debian's `chromium` driven by playwright-core; never a
 * downloaded browser) against the real service started with no configuration: type a question and see
 * the answer stream in as rendered Markdown with status lines and the map link, HTML in an answer shown
 * as text, the log following the newest answer, a 360 px phone without horizontal scrolling, remember
 * a fact and delete it, "Forget all" only after confirming, a favicon, a tool group switched off, and the
 * empty chat's greeting with example questions to click (the composer's placeholder whole at 360 px).
 * Screenshots at desktop and phone width go to $TMPDIR/playground-screenshots for a person to look at.
 * Also the API docs page (issue 49): Swagger UI over /openapi.json lists every route of the document,
 * with no request leaving the machine.
 *
 * Without /usr/bin/chromium the test is skipped with one line saying how to enable it, unless CI is
 * set: in CI (`CI=true`, where .ci/run installs Debian's chromium) a missing browser fails the run.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolsOff } from '../src/sandbox/offline-model/answers.js';
import { REPO_ROOT, spawnService, type ServiceProcess } from './support/spawn-service.js';

let service: ServiceProcess;
let browser: Browser;
let page: Page;
const user = `browser-${process.pid}`;
const SHOTS = join(tmpdir(), 'playground-screenshots');
/** Console errors and failed requests of the page (a missing favicon shows up here). */
const problems: string[] = [];

const CHROMIUM = '/usr/bin/chromium';
const skip = !process.env.CI && !existsSync(CHROMIUM);
if (skip) {
  process.stderr.write(
    `playground browser test skipped: ${CHROMIUM} not found. Install Debian's chromium (apt-get install chromium) to run it; ` +
      'with CI=true a missing browser fails instead.\n',
  );
}

beforeAll(async () => {
  if (skip) return;
  [service, browser] = await Promise.all([
    // No configuration, except the event-loop shed: Chromium, the suite and this service share CI's two
    // cores, and a loop-delay spike there refused a turn with 503 once (Node 22, full suite). Shedding
    // is the subject of overload.test.ts and replicas-burst, not of this page.
    spawnService({ entry: 'source', env: { OVERLOAD_MAX_LOOP_DELAY_MS: '0' } }),
    chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    }),
  ]);
  mkdirSync(SHOTS, { recursive: true });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
  await page.addInitScript((id) => window.sessionStorage.setItem('pg.user', id), user);
  await page.goto(`${service.url}/`);
});

afterAll(async () => {
  await browser?.close();
  await service?.stop();
});

/** Records every text the newest answer and status line show, from the page's own DOM. */
async function recordTurn() {
  await page.evaluate(() => {
    const w = window as unknown as { answers: string[]; statuses: string[] };
    w.answers = [];
    w.statuses = [];
    new MutationObserver(() => {
      const answers = document.querySelectorAll('[data-role=answer] .text');
      const text = answers[answers.length - 1]?.textContent ?? '';
      if (text && w.answers.at(-1) !== text) w.answers.push(text);
      document.querySelectorAll('.status').forEach((s) => {
        if (s.textContent && !w.statuses.includes(s.textContent)) w.statuses.push(s.textContent);
      });
    }).observe(document.getElementById('log')!, { subtree: true, childList: true, characterData: true });
  });
}

async function ask(question: string) {
  await page.fill('#q', question);
  await page.press('#q', 'Enter');
  // The send button is disabled for the whole turn and enabled again once the stream ends.
  await page.waitForFunction(() => !(document.getElementById('send') as HTMLButtonElement).disabled && !document.querySelector('.status'));
  const seen = await page.evaluate(() => {
    const w = window as unknown as { answers: string[]; statuses: string[] };
    return { answers: w.answers, statuses: w.statuses };
  });
  return { ...seen, final: ((await page.locator('[data-role=answer] .text').last().textContent()) ?? '').trim() };
}

describe.skipIf(skip)('playground in a browser', () => {
  it('shows that the service runs the offline model', async () => {
    await expect.poll(() => page.locator('#health').textContent()).toContain('model: offline');
  });

  it('greets an empty chat with example questions, shows the whole placeholder at 360 px, and asks an example when clicked', async () => {
    const examples = page.locator('#welcome #examples button');
    expect(await page.locator('#welcome h2').textContent()).toBe('Hi! Ask me about campus.');
    const questions = await examples.allTextContents();
    expect(questions.length).toBeGreaterThanOrEqual(4);
    expect(questions.length).toBeLessThanOrEqual(6);
    await page.setViewportSize({ width: 360, height: 740 });
    const fit = await page.evaluate(() => {
      const q = document.getElementById('q') as HTMLInputElement;
      const cs = getComputedStyle(q);
      const ctx = document.createElement('canvas').getContext('2d')!;
      ctx.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
      const room = q.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      return { room, placeholder: ctx.measureText(q.placeholder).width, long: ctx.measureText('Ask: Where is Gates? What can I eat right now?').width };
    });
    expect(fit.placeholder).toBeLessThanOrEqual(fit.room);
    expect(fit.long).toBeGreaterThan(fit.room); // the measurement catches a placeholder that is cut off
    await page.screenshot({ path: join(SHOTS, 'phone-empty.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await recordTurn();
    await page.getByRole('button', { name: 'Is 15-112 offered in spring?' }).click();
    await page.waitForFunction(() => !(document.getElementById('send') as HTMLButtonElement).disabled && !document.querySelector('.status'));
    expect(await page.locator('.msg.user').last().textContent()).toBe('Is 15-112 offered in spring?');
    expect(await page.locator('[data-role=answer] .text').last().textContent()).toContain('is offered in Spring 2027');
    expect(await page.locator('#welcome').count()).toBe(0);
  });

  it('streams the answer to "Where is Gates?" with status lines and a map link', async () => {
    await recordTurn();
    const turn = await ask('Where is Gates?');
    expect(turn.final).toContain('Gates & Hillman Centers');
    // Streamed: the answer grew through partial texts (verification releases it sentence by sentence).
    expect(turn.answers.length).toBeGreaterThanOrEqual(2);
    expect(turn.answers[0]!.length).toBeLessThan(turn.final.length);
    // Rendered Markdown: bold is an element, no asterisks left.
    expect(await page.locator('[data-role=answer]').last().locator('.text strong').first().textContent()).toBe('Gates & Hillman Centers');
    expect(turn.final).not.toContain('**');
    expect(turn.statuses).toContain('Checking campus tools...');
    const link = page.locator('[data-role=answer] a.map').last();
    expect(await link.getAttribute('href')).toBe('https://maps.scottylabs.org/GHC?dst=GHC');
    expect(await link.textContent()).toContain('Gates');
    expect(await page.locator('.services').last().textContent()).toBe('Tools: maps_search_buildings');
  });

  it('remembers a fact, lists it, and deletes it with its button', async () => {
    await recordTurn();
    await ask('Please remember that I am vegetarian');
    const item = page.locator('#memory li[data-fact-id]', { hasText: 'Is vegetarian' });
    await item.waitFor();
    expect(await page.locator('.note').last().textContent()).toBe('Saved to memory: Is vegetarian');
    await page.getByRole('button', { name: 'Delete Is vegetarian' }).click();
    await page.locator('#memory', { hasText: 'Nothing remembered yet.' }).waitFor();
    const listed = await (await fetch(`${service.url}/memory/${user}`)).json();
    expect(listed.total).toBe(0);
  });

  it('renders headings and lists, and no HTML of a question reaches the page as markup', async () => {
    await recordTurn();
    await ask('hi');
    const answer = page.locator('[data-role=answer] .text').last();
    expect(await answer.locator('li').count()).toBeGreaterThanOrEqual(4);
    await recordTurn();
    const hostile = await ask('Where is <img src=x onerror="document.title=1"><b>Hall</b>?');
    // The service drops raw HTML from answers (guards/render-safe.ts); the page renders none either way.
    expect(hostile.final).not.toContain('<img');
    expect(hostile.final).toContain('Hall');
    const last = page.locator('[data-role=answer]').last();
    expect(await last.locator('img').count()).toBe(0);
    expect(await last.locator('.text b').count()).toBe(0);
    expect(await page.title()).toBe('Campus assistant playground');
  });

  it('follows the newest answer, and stays where the reader scrolled to', async () => {
    await page.setViewportSize({ width: 1280, height: 500 });
    for (const q of ['How far is Baker Hall from Gates?', 'What gen eds can I take in Dietrich?']) {
      await recordTurn();
      await ask(q);
      const gap = await page.evaluate(() => {
        const log = document.getElementById('log')!;
        return log.scrollHeight - log.scrollTop - log.clientHeight;
      });
      expect(gap).toBeLessThan(40);
    }
    // Scrolled up to read: a new answer does not pull the reader down.
    await page.evaluate(() => (document.getElementById('log')!.scrollTop = 0));
    await page.evaluate(() => {
      // The question's own bubble scrolls to the bottom once (sending is a deliberate act): watch only later moves.
      const log = document.getElementById('log')!;
      const w = window as unknown as { laterTops: number[] };
      w.laterTops = [];
      new MutationObserver(() => w.laterTops.push(log.scrollTop)).observe(log, { subtree: true, childList: true, characterData: true });
    });
    await page.fill('#q', 'What are the prerequisites for 15-213?');
    await page.press('#q', 'Enter');
    await page.evaluate(() => (document.getElementById('log')!.scrollTop = 0));
    await page.waitForFunction(() => !(document.getElementById('send') as HTMLButtonElement).disabled && !document.querySelector('.status'));
    expect(await page.evaluate(() => document.getElementById('log')!.scrollTop)).toBe(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.screenshot({ path: join(SHOTS, 'desktop.png') });
  });

  it('fits a 360 px wide phone without horizontal scrolling', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await recordTurn();
    await ask('How do I get from Wean Hall to the UC?');
    const widths = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, view: window.innerWidth }));
    expect(widths.view).toBe(360);
    expect(widths.doc).toBeLessThanOrEqual(360);
    expect(widths.body).toBeLessThanOrEqual(360);
    // The map link, added after the text, is followed into view too.
    const mapLink = page.locator('[data-role=answer] a.map').last();
    expect(await mapLink.isVisible()).toBe(true);
    const [linkBox, logBox] = [await mapLink.boundingBox(), await page.locator('#log').boundingBox()];
    expect(linkBox!.y + linkBox!.height).toBeLessThanOrEqual(logBox!.y + logBox!.height + 1);
    await page.screenshot({ path: join(SHOTS, 'phone.png') });
    await page.screenshot({ path: join(SHOTS, 'phone-full.png'), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('asks before "Forget all", and keeps memory when the answer is no', async () => {
    await recordTurn();
    await ask('Please remember that I like pizza');
    await page.locator('#memory li[data-fact-id]', { hasText: 'Likes pizza' }).waitFor();
    const asked: string[] = [];
    page.once('dialog', (d) => (asked.push(d.message()), void d.dismiss()));
    await page.click('#forget-all');
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toBe(`Forget everything remembered about ${user}? This cannot be undone.`);
    expect((await (await fetch(`${service.url}/memory/${user}`)).json()).total).toBe(1);
    page.once('dialog', (d) => void d.accept());
    await page.click('#forget-all');
    await page.locator('#memory', { hasText: 'Nothing remembered yet.' }).waitFor();
    expect((await (await fetch(`${service.url}/memory/${user}`)).json()).total).toBe(0);
  });

  it('loaded without a console error or a failed request (favicon included)', async () => {
    const icon = await page.evaluate(() => document.querySelector('link[rel=icon]')?.getAttribute('href'));
    expect(icon).toBe('/favicon.svg');
    expect((await fetch(`${service.url}/favicon.svg`)).status).toBe(200);
    expect(problems).toEqual([]);
  });

  it('sends disabled_tools for a group switched off', async () => {
    await page.uncheck('#group-eats');
    await recordTurn();
    const turn = await ask('What can I eat right now?');
    expect(turn.final).toBe(toolsOff(['eats']));
    await page.check('#group-eats');
  });

  it('answers a bus question, and switches the bus group off like the others', async () => {
    expect(await page.locator('label', { has: page.locator('#group-bus') }).textContent()).toContain('CMU Bus');
    await recordTurn();
    const bus = await ask('can I ride the PRT for free with my CMU ID?');
    expect(bus.final).toContain('Riding PRT with your CMU ID');
    await page.uncheck('#group-bus');
    await recordTurn();
    expect((await ask('can I ride the PRT for free with my CMU ID?')).final).toBe(toolsOff(['bus']));
    await page.check('#group-bus');
  });

  it('shows the API docs page: every route of the document listed, no request leaving the machine', async () => {
    const docs = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const requests: string[] = [];
    const errors: string[] = [];
    docs.on('request', (r) => requests.push(r.url()));
    docs.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    try {
      await docs.goto(`${service.url}/docs`);
      const apiDoc = JSON.parse(readFileSync(join(REPO_ROOT, 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
      const expected = Object.entries(apiDoc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      await docs.locator('.opblock').nth(expected.length - 1).waitFor({ timeout: 20_000 });
      const listed = await docs.evaluate(() =>
        [...document.querySelectorAll('.opblock')].map(
          (b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
        ),
      );
      expect([...listed].sort()).toEqual([...expected].sort());
      await docs.screenshot({ path: join(SHOTS, 'api-docs.png'), fullPage: false });
      // Everything the page loaded came from this service: the page, Swagger UI's files, the document.
      expect(requests.length).toBeGreaterThanOrEqual(4);
      expect(requests.filter((u) => !u.startsWith(`${service.url}/`))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await docs.close();
    }
  });
});
