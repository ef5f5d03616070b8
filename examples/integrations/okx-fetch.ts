/**
 * traderatio in front of Node's fetch for OKX's API v5: every request waits on the account's
 * limits under OKX's rules (the sub-account's new and amend orders per 2 s, each instrument's 60
 * per 2 s, each endpoint's own), counts when sent, and its answer goes back to the limiter (a
 * code 50011 or 50061, a batch's per-order sCode). Signing happens in the fetch given to
 * limitedFetch, after the wait, so OK-ACCESS-TIMESTAMP is fresh. The limit is the exchange's:
 * asked once (GET /api/v5/trade/account-rate-limit) before the first request, with the
 * exchange's time (GET /api/v5/public/time).
 *
 * Run: OKX_KEY=... OKX_SECRET=... OKX_PASSPHRASE=... node --import tsx examples/integrations/okx-fetch.ts
 * (against the model exchange: `npx traderatio exchange --exchange okx`, then OKX_URL=<its URL>
 * OKX_KEY=main-key OKX_SECRET=main-secret OKX_PASSPHRASE=main-pass)
 */
import { createHmac } from 'node:crypto';
import { AccountLimiter } from 'traderatio';
import { limitedFetch } from 'traderatio/fetch';

const base = process.env.OKX_URL ?? 'https://www.okx.com';
const key = process.env.OKX_KEY ?? '';
const secret = process.env.OKX_SECRET ?? '';
const passphrase = process.env.OKX_PASSPHRASE ?? '';

/** Node's fetch, signing each request as API v5 asks (Base64 HMAC-SHA256 of timestamp, method, path with query, body). */
const signed = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
  const url = new URL(String(input));
  const method = init.method ?? 'GET';
  const body = typeof init.body === 'string' ? init.body : '';
  const timestamp = new Date().toISOString();
  const headers = new Headers(init.headers);
  headers.set('OK-ACCESS-KEY', key);
  headers.set('OK-ACCESS-TIMESTAMP', timestamp);
  headers.set('OK-ACCESS-PASSPHRASE', passphrase);
  headers.set(
    'OK-ACCESS-SIGN',
    createHmac('sha256', secret)
      .update(timestamp + method + url.pathname + url.search + body)
      .digest('base64'),
  );
  headers.set('Content-Type', 'application/json');
  return fetch(url, { ...init, headers });
};

const limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }] });
const okx = limitedFetch(limiter, { account: 'main', fetch: signed });

// Forty orders at once on one swap: they go out as its 60 per 2 s allows, none refused.
const placed = await Promise.all(
  Array.from({ length: 40 }, async (_, i) => {
    const res = await okx(`${base}/api/v5/trade/order`, {
      method: 'POST',
      body: JSON.stringify({
        instId: 'BTC-USDT-SWAP',
        tdMode: 'cross',
        side: 'buy',
        ordType: 'limit',
        sz: '1',
        px: String(1000 - i),
      }),
    });
    return (await res.json()) as { code: string; data: { ordId: string; sCode: string }[] };
  }),
);
console.log(`placed: ${placed.filter((p) => p.code === '0').length} of ${placed.length}`);

// A cancel outranks placements waiting on the same account, and has its own limit.
const last = placed.at(-1)!.data[0]!.ordId;
const cancel = await okx(`${base}/api/v5/trade/cancel-order`, {
  method: 'POST',
  body: JSON.stringify({ instId: 'BTC-USDT-SWAP', ordId: last }),
});
console.log(`cancel: ${((await cancel.json()) as { code: string }).code}`);

const now = limiter.limitNow('main');
const clock = limiter.clockEstimate();
console.log(
  `okx-fetch: limit ${now.limit} per 2 s (${now.source}); exchange clock ${clock === null ? 'unknown' : `${clock.offsetMs.toFixed(1)} ms off, within ${clock.errorMs.toFixed(1)} ms`}`,
);
limiter.close();
