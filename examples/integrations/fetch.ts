/**
 * traderatio in front of Node's fetch: every API v4 request waits on the account's limits, counts
 * when sent, and its answer goes back to the limiter (429s and rate-limit headers, gateway times,
 * fills). Signing happens in the fetch given to limitedFetch, after the wait, so the Timestamp is
 * fresh. The tier is the exchange's: asked once (GET /account/rate_limit) before the first request.
 *
 * Run: GATE_URL=https://api.gateio.ws GATE_KEY=... GATE_SECRET=... node --import tsx examples/integrations/fetch.ts
 * (against the model exchange: `npx traderatio exchange`, then GATE_URL=<its URL> GATE_KEY=main-key)
 */
import { createHash, createHmac } from 'node:crypto';
import { AccountLimiter } from 'traderatio';
import { limitedFetch } from 'traderatio/fetch';

const base = process.env.GATE_URL ?? 'https://api.gateio.ws';
const key = process.env.GATE_KEY ?? '';
const secret = process.env.GATE_SECRET ?? '';

/** Node's fetch, signing each request as API v4 asks (HMAC-SHA512 of method, path, query, body hash, timestamp). */
const signed = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
  const url = new URL(String(input));
  const body = typeof init.body === 'string' ? init.body : '';
  const timestamp = String(Math.floor(Date.now() / 1000));
  const payload = [
    init.method ?? 'GET',
    url.pathname,
    url.search.slice(1),
    createHash('sha512').update(body).digest('hex'),
    timestamp,
  ].join('\n');
  const headers = new Headers(init.headers);
  headers.set('KEY', key);
  headers.set('Timestamp', timestamp);
  headers.set('SIGN', createHmac('sha512', secret).update(payload).digest('hex'));
  headers.set('Content-Type', 'application/json');
  return fetch(url, { ...init, headers });
};

// A few milliseconds of margin (R13): a request may reach the exchange a little quicker than any
// answered yet (a connection already open), and the exchange counts arrivals.
const limiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }], marginMs: 5 });
const gate = limitedFetch(limiter, { account: 'main', fetch: signed });

// Forty orders at once: they go out as the placement limit allows, none refused by the exchange.
const placed = await Promise.all(
  Array.from({ length: 40 }, async (_, i) => {
    const res = await gate(`${base}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: String(60_000 - i), tif: 'gtc' }),
    });
    return { status: res.status, order: (await res.json()) as { id?: number } };
  }),
);
console.log(`placed: ${placed.filter((p) => p.status === 201 || p.status === 200).length} of ${placed.length}`);

// A cancel outranks placements waiting on the same account.
const last = placed.at(-1)!.order.id;
const cancel = await gate(`${base}/api/v4/futures/usdt/orders/${last}`, { method: 'DELETE', contract: 'BTC_USDT' });
console.log(`cancel: ${cancel.status}`);

// Fills in every my_trades answer feed the trade ratio (R1), once per trade id.
await (await gate(`${base}/api/v4/futures/usdt/my_trades?contract=BTC_USDT`)).json();
console.log(`fills counted: ${limiter.abuseHeadroom('main').traded} USDT`);

const now = limiter.limitNow('main');
const clock = limiter.clockEstimate();
console.log(
  `fetch: limit ${now.limit} r/s (tier ${now.tier.tier}, ${now.source}); exchange clock ${clock === null ? 'unknown' : `${clock.offsetMs.toFixed(1)} ms off, within ${clock.errorMs.toFixed(1)} ms`}`,
);
limiter.close();
