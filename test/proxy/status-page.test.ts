// The status page as a desk sees it: read without script (the server renders its first state, as
// curl gets it), and in a real browser (headless Chromium of the system's packages, driven by
// playwright-core): it loads with no console error, its figures follow the events and agree with
// /status.json, and its chart of the last minutes fills in.
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import type { ProxyStatus } from '../../src/proxy/status.js';
import { ACCOUNTS } from './helpers.js';

/** Where the system's Chromium is (.ci/run installs it from the distribution's packages). */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

let exchange: RunningModelExchange | undefined;
let proxy: RunningProxy | undefined;
let closeBrowser: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closeBrowser?.();
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = closeBrowser = undefined;
});

const ORDER = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
const place = (n: number) =>
  Promise.all(
    Array.from({ length: n }, () =>
      fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: 'main-key' }, body: ORDER }),
    ),
  );
const statusJson = async () => (await (await fetch(`${proxy!.url}/status.json`)).json()) as ProxyStatus;
/** The page's text as a reader sees it: tags and the data block gone, entities read. */
const text = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, '')
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');

async function start(): Promise<void> {
  exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 } });
  proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS, statusEveryMs: 100 });
}

describe('the status page', () => {
  it('reads without script: the server renders its first state, figures as /status.json has them', async () => {
    await start();
    await place(7);
    const html = await (await fetch(`${proxy!.url}/`)).text();
    const status = await statusJson();
    const main = status.accounts[0]!;
    const page = text(html);
    expect(main.sent).toEqual({ all: 7, place: 7 });
    expect(page).toContain(`main (desk)`);
    expect(page).toContain(`tier ${main.tier}, ${main.placeLimit} placements/s (${main.source})`);
    expect(page).toContain('sent 7 requests (7 placements), 0 answers 429');
    expect(page).toContain(
      `abuse throttle off - ${main.throttles[0]!.requests} requests, headroom ${main.throttles[0]!.headroom}`,
    );
    const place1 = main.limits.find((l) => l.limit === 'futures.place')!;
    expect(page).toContain(`futures.place ${place1.used} / ${place1.n} per 1 s ${place1.waiting} waiting`);
  });

  it.runIf(CHROMIUM !== undefined)(
    'loads in headless Chromium with no console error; its figures follow the events and agree with /status.json; its chart fills in',
    async () => {
      await start();
      const { chromium } = await import('playwright-core');
      const browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
      closeBrowser = () => browser.close();
      const errors: string[] = [];
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${proxy!.url}/`);
      // Read through a locator: a predicate of text would be evaluated in the page, which its
      // Content-Security-Policy (no 'unsafe-eval') rightly refuses.
      await expect.poll(() => page.locator('#state').textContent(), { timeout: 10_000 }).toMatch(/^live/);
      const fact = () => page.locator('section[data-account="main"] .fact', { hasText: 'sent' }).textContent();
      expect(await fact()).toContain('0 requests (0 placements)');
      // Orders sent: the page follows the events, and says what /status.json says.
      for (const n of [5, 12]) {
        await place(n);
        const sent = (await statusJson()).accounts[0]!.sent;
        await expect.poll(fact, { timeout: 10_000 }).toContain(`${sent.all} requests (${sent.place} placements)`);
      }
      expect((await statusJson()).accounts[0]!.sent).toEqual({ all: 17, place: 17 });
      // The chart: placements per second and the limit in force, from the events.
      await expect.poll(() => page.locator('svg.chart polyline.sent').count(), { timeout: 10_000 }).toBe(1);
      const points = await page.locator('svg.chart polyline.sent').getAttribute('points');
      expect(points!.split(' ').length).toBeGreaterThanOrEqual(2);
      const [limitText, tierText] = await Promise.all([
        page.locator('section[data-account="main"] tr[data-limit="futures.place"] .used').textContent(),
        page.locator('section[data-account="main"] .fact', { hasText: 'tier' }).first().textContent(),
      ]);
      const status = await statusJson();
      expect(limitText).toMatch(new RegExp(`^\\d+ / ${status.accounts[0]!.placeLimit} per 1 s$`));
      expect(tierText).toContain(`tier ${status.accounts[0]!.tier}, ${status.accounts[0]!.placeLimit} placements/s`);
      expect(errors).toEqual([]);

      // Without script, the same page still reads: the server's first state.
      const bare = await browser.newContext({ javaScriptEnabled: false });
      const still = await bare.newPage();
      await still.goto(`${proxy!.url}/`);
      expect(await still.locator('section[data-account="main"] .fact', { hasText: 'sent' }).textContent()).toContain(
        '17 requests (17 placements)',
      );
      expect(await still.locator('#state').textContent()).toBe('as rendered by the server');
      await bare.close();
    },
  );
});
