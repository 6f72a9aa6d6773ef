/**
 * The playground page in headless Chromium (Debian's `chromium` driven by playwright-core; never a
 * downloaded browser) against the real service started with no configuration: type a question and see
 * the answer stream in with status lines and the map link, remember a fact and delete it from the
 * memory list, and switch a tool group off.
 */
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS_OFF } from '../src/sandbox/offline-model/answers.js';
import { spawnService, type ServiceProcess } from './support/spawn-service.js';

let service: ServiceProcess;
let browser: Browser;
let page: Page;
const user = `browser-${process.pid}`;

beforeAll(async () => {
  [service, browser] = await Promise.all([
    spawnService({ entry: 'source', env: {} }),
    chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    }),
  ]);
  page = await browser.newPage();
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
  return { ...seen, final: (await page.locator('[data-role=answer] .text').last().textContent()) ?? '' };
}

describe('playground in a browser', () => {
  it('shows that the service runs the offline model', async () => {
    await expect.poll(() => page.locator('#health').textContent()).toContain('model: offline');
  });

  it('streams the answer to "Where is Gates?" with status lines and a map link', async () => {
    await recordTurn();
    const turn = await ask('Where is Gates?');
    expect(turn.final).toContain('Gates & Hillman Centers');
    // Streamed: the answer grew through partial texts (verification releases it sentence by sentence),
    // each the start of the final one.
    expect(turn.answers.length).toBeGreaterThanOrEqual(2);
    expect(turn.answers[0]!.length).toBeLessThan(turn.final.length);
    for (const partial of turn.answers) expect(turn.final.startsWith(partial)).toBe(true);
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

  it('sends disabled_tools for a group switched off', async () => {
    await page.uncheck('#group-eats');
    await recordTurn();
    const turn = await ask('What can I eat right now?');
    expect(turn.final).toBe(TOOLS_OFF);
    await page.check('#group-eats');
  });
});
