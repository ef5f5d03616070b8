// Draws docs/proxy-status.png: the proxy's status page in headless Chromium while engines place
// and cancel through it (a family of two accounts, one under the abuse throttle), and public
// requests go on the proxy's own limits. Run: node --import tsx scripts/proxy-screenshot.ts docs/proxy-status.png
// (Chromium from the system: apt-get install chromium).
import { execFile } from 'node:child_process';
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
const loops = [pub(), ...Array.from({ length: 12 }, () => loop('main-key')), loop('sub-key'), loop('sub-key')];
await new Promise((r) => setTimeout(r, 1500));
await new Promise<void>((resolve) =>
  execFile(
    'chromium',
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--hide-scrollbars',
      `--screenshot=${process.argv[2]}`,
      '--window-size=1024,740',
      '--timeout=15000',
      `${proxy.url}/`,
    ],
    (e) => {
      if (e) console.error(`chromium: ${e.message}`);
      resolve();
    },
  ),
);
go = false;
await Promise.allSettled(loops);
await proxy.close();
await ex.close();
