// Draws docs/proxy-status.png: the proxy's status page in headless Chromium (playwright-core)
// after a minute of engines placing and cancelling through it (a family of two accounts, one under
// the abuse throttle), public requests on the proxy's own limits, and now and then a burst sent
// straight at the exchange on the main account's key, which the proxy cannot see: the answers 429
// it brings show on the chart. Run: node --import tsx scripts/proxy-screenshot.ts docs/proxy-status.png
// (Chromium from the system: apt-get install chromium).
import { chromium } from 'playwright-core';
import { startModelExchange } from '../src/model-exchange/index.js';
import { startProxy } from '../src/proxy/server.js';
import { TIER4_HISTORY } from '../test/proxy/helpers.js';
const accounts = {
  families: [
    {
      id: 'desk',
      accounts: [
        { id: 'main', role: 'main' as const, keys: [{ key: 'main-key', secret: 's' }] },
        { id: 'sub-1', keys: [{ key: 'sub-key', secret: 's' }] },
      ],
    },
  ],
};
const history = {
  activity: [
    ...TIER4_HISTORY.activity,
    { account: 'sub-1', day: -2, contracts: [{ contract: 'ETH_USDT', makerVolume: '1000', place: 1000 }] },
  ],
  hours: [{ account: 'sub-1', hour: -1, requests: 86_401, traded: '0' }],
};
const ex = await startModelExchange({ port: 0, accounts, history, fills: { maker: 0.3, taker: 0 } });
const proxy = await startProxy({ upstream: ex.url, accounts, history, statusEveryMs: 200 });
let go = true;
const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
const loop = async (key: string) => {
  while (go) {
    const r = await fetch(`${proxy.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: key }, body });
    const j = (await r.json()) as { id?: number };
    if (j.id && j.id % 4 === 0)
      await (
        await fetch(`${proxy.url}/api/v4/futures/usdt/orders/${j.id}`, { method: 'DELETE', headers: { KEY: key } })
      ).text();
  }
};
const pub = async () => {
  while (go) {
    await (await fetch(`${proxy.url}/api/v4/futures/usdt/contracts`)).text();
    await new Promise((r) => setTimeout(r, 100));
  }
};
// Something else on the main account's key, straight at the exchange: 300 at once every 15 s.
const beside = async () => {
  while (go) {
    await new Promise((r) => setTimeout(r, 15_000));
    await Promise.all(
      Array.from({ length: 300 }, () =>
        fetch(`${ex.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: { KEY: 'main-key' }, body }).then(
          (r) => r.text(),
        ),
      ),
    );
  }
};
const loops = [
  pub(),
  beside(),
  ...Array.from({ length: 12 }, () => loop('main-key')),
  loop('sub-key'),
  loop('sub-key'),
];
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 1024, height: 740 } });
await page.goto(`${proxy.url}/`);
await new Promise((r) => setTimeout(r, Number(process.env.SECONDS ?? 60) * 1000));
await page.screenshot({ path: process.argv[2]!, fullPage: true });
await browser.close();
go = false;
await Promise.allSettled(loops);
await proxy.close();
await ex.close();
