import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { STATUS_CLASSES } from '../../src/proxy/exchange-answers.js';
import { LABELS } from '../../src/proxy/labels.js';
import type { ProxyOptions } from '../../src/proxy/options.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { ACCOUNTS } from './helpers.js';

const ORDER = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
let proxy: RunningProxy | undefined;
let exchange: RunningModelExchange | undefined;
let fake: http.Server | undefined;

afterEach(async () => {
  await proxy?.close();
  await exchange?.close();
  if (fake !== undefined) await new Promise((resolve) => fake!.close(resolve));
  proxy = exchange = fake = undefined;
});

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: readonly string[];
  readonly body: string;
}

/** An upstream that notes each request and answers with `reply`. */
async function fakeUpstream(
  reply: (seen: Seen, res: http.ServerResponse) => void,
): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  fake = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = {
        method: req.method!,
        url: req.url!,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(s);
      reply(s, res);
    });
  });
  await new Promise<void>((resolve) => fake!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`, seen };
}

async function start(options: ProxyOptions): Promise<RunningProxy> {
  proxy = await startProxy({ accounts: ACCOUNTS, ...options });
  return proxy;
}

const signed = (timestamp: number) => ({
  KEY: 'main-key',
  Timestamp: String(timestamp),
  SIGN: 'ab'.repeat(64),
  'Content-Type': 'application/json',
});

describe('the proxy', () => {
  it("forwards a request unchanged (method, path, query, body, the signature's headers) and relays the answer as sent", async () => {
    const up = await fakeUpstream((_, res) => {
      res.writeHead(201, { 'Content-Type': 'application/json', 'X-Custom': 'kept', 'X-Gate-RateLimit-Limit': '100' });
      res.end('{"id":7}');
    });
    await start({ upstream: up.url });
    const ts = Math.floor(Date.now() / 1000);
    const res = await fetch(`${proxy!.url}/api/v4/futures/usdt/orders?b=2&a=1`, {
      method: 'POST',
      headers: signed(ts),
      body: ORDER,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-custom')).toBe('kept');
    expect(await res.text()).toBe('{"id":7}');
    expect(up.seen).toHaveLength(1);
    const s = up.seen[0]!;
    expect([s.method, s.url, s.body]).toEqual(['POST', '/api/v4/futures/usdt/orders?b=2&a=1', ORDER]);
    const headers = Object.fromEntries(
      Array.from({ length: s.rawHeaders.length / 2 }, (_, i) => [
        s.rawHeaders[2 * i]!.toLowerCase(),
        s.rawHeaders[2 * i + 1]!,
      ]),
    );
    expect(headers).toMatchObject({
      key: 'main-key',
      timestamp: String(ts),
      sign: 'ab'.repeat(64),
      host: new URL(up.url).host,
    });
    expect(proxy!.limiters.get('desk')!.abuseHeadroom('main').requests).toBe(1);
  });

  it('keeps the engine inside its limits: 15 spot placements on a pair go 10 then 5 a second later, a cancel goes before them, none refused', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    exchange = await startModelExchange({ port: 0, clock, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 } });
    await start({ upstream: exchange.url, clock });
    const order = JSON.stringify({ currency_pair: 'BTC_USDT', side: 'buy', amount: '0.001', price: '60000' });
    const post = () =>
      fetch(`${proxy!.url}/api/v4/spot/orders`, { method: 'POST', headers: { KEY: 'main-key' }, body: order });
    // Spot placement: 10 a second per pair (see docs/rules.md#r10).
    const placing = Array.from({ length: 15 }, post);
    const first = await Promise.all(placing.slice(0, 10));
    const { id } = (await first[0]!.json()) as { id: string };
    // The cancel has its own limit and outranks the 5 waiting placements.
    const cancel = await fetch(`${proxy!.url}/api/v4/spot/orders/${id}?currency_pair=BTC_USDT`, {
      method: 'DELETE',
      headers: { KEY: 'main-key' },
    });
    expect(cancel.status).toBe(200);
    const place = () => exchange!.stats().accounts[0]!.limits.find((l) => l.key === 'spot.place:BTC_USDT')!;
    expect(place().accepted).toBe(10);
    await clock.advance(1_000);
    const all = await Promise.all(placing);
    expect(all.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
    expect(place().accepted).toBe(15);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
  });

  it('answers a request whose signature is already over 60 s old at once, never forwarding it', async () => {
    const up = await fakeUpstream((_, res) => res.end('{}'));
    await start({ upstream: up.url });
    const res = await fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      headers: signed(Math.floor(Date.now() / 1000) - 61),
      body: ORDER,
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      label: 'TRADERATIO_REQUEST_EXPIRED',
      message: expect.stringContaining('never forwarded'),
    });
    expect(up.seen).toHaveLength(0);
    expect(proxy!.limiters.get('desk')!.abuseHeadroom('main').requests).toBe(0);
  });

  it('forwards a Timestamp the exchange takes (60 s old and less), refuses one it refuses for sure, saying its age and the limit', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const up = await fakeUpstream((_, res) => res.end('{}'));
    await start({ upstream: up.url, clock });
    const post = (ts: number) =>
      fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: signed(ts), body: ORDER });
    const now = clock.wall() / 1000;
    // Whole seconds, as engines sign: 59 and 60 s old are within the exchange's 60 s, the margin
    // for the way there notwithstanding; 60.001 s is over it; 61 s ahead too.
    expect((await post(now - 59)).status).toBe(200);
    expect((await post(now - 60)).status).toBe(200);
    expect(up.seen).toHaveLength(2);
    for (const [ts, said] of [
      [now - 60.001, '60.0 s old'],
      [now + 61, '61.0 s ahead'],
    ] as const) {
      const res = await post(ts);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        label: 'TRADERATIO_REQUEST_EXPIRED',
        message: `the signature's Timestamp ${ts} is ${said} on the machine's clock (no answer of the exchange has told its clock yet); the exchange allows 60 s either way (REQUEST_EXPIRED at the exchange); sign it again; never forwarded`,
      });
    }
    expect(up.seen).toHaveLength(2);
  });

  it("refuses by the exchange's clock as estimated, with its uncertainty: only what is over 60 s at its earliest", async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    // The exchange's clock 5 s behind this machine's, told by its gateway times.
    const up = await fakeUpstream((_, res) => {
      const at = clock.wall() - 5_000;
      res.writeHead(200, { 'X-In-Time': String(at * 1000), 'X-Out-Time': String(at * 1000) });
      res.end('{}');
    });
    await start({ upstream: up.url, clock });
    const post = (ts: number) =>
      fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: signed(ts), body: ORDER });
    const now = clock.wall() / 1000;
    expect((await post(now)).status).toBe(200);
    const estimate = proxy!.limiters.get('desk')!.clockEstimate()!;
    expect(Math.round(estimate.offsetMs / 1000)).toBe(-5);
    // 64 s old here is 59 s old there: taken.
    expect((await post(now - 64)).status).toBe(200);
    const res = await post(now - 66);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toMatch(
      /Timestamp \S+ is 61\.\d s old on the exchange's clock as estimated from its answers, ±\d+\.\d{3} s; the exchange allows 60 s/,
    );
  });

  it('answers a request without a KEY to a private endpoint at once: no made-up account counts it', async () => {
    const up = await fakeUpstream((_, res) => res.end('[]'));
    await start({ upstream: up.url });
    const res = await fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, { method: 'POST', body: ORDER });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { label: string }).label).toBe('TRADERATIO_MISSING_KEY');
    // A public endpoint goes, on the limit per IP.
    expect((await fetch(`${proxy!.url}/api/v4/spot/tickers`)).status).toBe(200);
    expect(up.seen.map((s) => s.url)).toEqual(['/api/v4/spot/tickers']);
    const text = await (await fetch(`${proxy!.url}/metrics`)).text();
    expect(text).toContain('traderatio_limit_used{family="ip",account="ip",limit="public:GET /spot/tickers"} 1');
    expect(text).toContain(
      'traderatio_proxy_answers_total{family="ip",account="ip",status="401",label="TRADERATIO_MISSING_KEY"} 1',
    );
    expect(text).not.toMatch(/account="public"|family="public"/);
  });

  it("refuses a request the limits would hold past its signature's 60 s, when that comes, never forwarding it", async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const up = await fakeUpstream((_, res) => res.end('{}'));
    await start({ upstream: up.url, clock, expiryMarginMs: 0 });
    const post = (ts: number) =>
      fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, { method: 'POST', headers: signed(ts), body: ORDER });
    const now = clock.wall() / 1000;
    await Promise.all(Array.from({ length: 100 }, () => post(Math.floor(now))));
    // 100 sent this second at tier 1: the next may leave in 1 s, its signature is good for 0.5 s more.
    const late = post(now - 59.5);
    // One that is good long enough waits and goes.
    const patient = post(Math.floor(now));
    await clock.advance(600);
    const refused = await late;
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { label: string }).label).toBe('TRADERATIO_REQUEST_EXPIRED');
    expect(up.seen).toHaveLength(100);
    await clock.advance(400);
    expect((await patient).status).toBe(200);
    expect(up.seen).toHaveLength(101);
  });

  it('answers an unknown key at once, never forwarding it', async () => {
    const up = await fakeUpstream((_, res) => res.end('{}'));
    await start({ upstream: up.url });
    const res = await fetch(`${proxy!.url}/api/v4/spot/accounts`, { headers: { KEY: 'someone-else' } });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { label: string }).label).toBe('TRADERATIO_UNKNOWN_KEY');
    expect(up.seen).toHaveLength(0);
  });

  it('passes a 429 back unchanged and pauses the limit it names until the reset', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const up = await fakeUpstream((_, res) => {
      res.writeHead(up.seen.length === 1 ? 429 : 200, { 'Content-Type': 'application/json', 'Retry-After': '2' });
      res.end(up.seen.length === 1 ? '{"label":"TOO_MANY_REQUESTS","message":"slow down"}' : '[]');
    });
    await start({ upstream: up.url, clock });
    const get = () => fetch(`${proxy!.url}/api/v4/spot/open_orders`, { headers: { KEY: 'main-key' } });
    const first = await get();
    expect(first.status).toBe(429);
    expect(await first.json()).toEqual({ label: 'TOO_MANY_REQUESTS', message: 'slow down' });
    const second = get();
    await clock.advance(1_999);
    expect(up.seen).toHaveLength(1);
    await clock.advance(1);
    expect((await second).status).toBe(200);
    expect(up.seen).toHaveLength(2);
  });

  it('answers 502 when the upstream cannot be reached and 504 when it does not answer in time', async () => {
    const closed = await fakeUpstream(() => {});
    await new Promise((resolve) => fake!.close(resolve));
    fake = undefined;
    await start({ upstream: closed.url });
    const unreachable = await fetch(`${proxy!.url}/api/v4/spot/open_orders`, { headers: { KEY: 'main-key' } });
    expect(unreachable.status).toBe(502);
    expect(((await unreachable.json()) as { label: string }).label).toBe('TRADERATIO_UPSTREAM_UNREACHABLE');
    // Counted where a desk alerts: the proxy's own answers, by status and label.
    expect(await (await fetch(`${proxy!.url}/metrics`)).text()).toContain(
      'traderatio_proxy_answers_total{family="desk",account="main",status="502",label="TRADERATIO_UPSTREAM_UNREACHABLE"} 1',
    );
    await proxy!.close();
    const silent = await fakeUpstream(() => {});
    proxy = await startProxy({ upstream: silent.url, accounts: ACCOUNTS, timeoutMs: 50 });
    const slow = await fetch(`${proxy.url}/api/v4/spot/open_orders`, { headers: { KEY: 'main-key' } });
    expect(slow.status).toBe(504);
    expect(((await slow.json()) as { label: string }).label).toBe('TRADERATIO_UPSTREAM_TIMEOUT');
    expect(await (await fetch(`${proxy.url}/metrics`)).text()).toContain(
      'traderatio_proxy_answers_total{family="desk",account="main",status="504",label="TRADERATIO_UPSTREAM_TIMEOUT"} 1',
    );
    fake!.closeAllConnections();
  });

  it("records the fills of the my_trades answers it relays, each trade once, asking the contract's multiplier", async () => {
    exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 1, taker: 0 } });
    await start({ upstream: exchange.url });
    for (let i = 0; i < 2; i++)
      await fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, {
        method: 'POST',
        headers: { KEY: 'main-key' },
        body: ORDER,
      });
    const trades = () =>
      fetch(`${proxy!.url}/api/v4/futures/usdt/my_trades?contract=BTC_USDT`, { headers: { KEY: 'main-key' } }).then(
        (r) => r.json(),
      );
    expect(await trades()).toHaveLength(2);
    await trades();
    const limiter = proxy!.limiters.get('desk')!;
    await expect.poll(() => limiter.abuseHeadroom('main').traded).toBe('12');
    // The same trades relayed again are not counted again.
    await trades();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(limiter.abuseHeadroom('main').traded).toBe('12');
  });

  it('writes no header, body or query to its log: method, path, status, who answered, label, account, limit, wait', async () => {
    const up = await fakeUpstream((_, res) => {
      res.statusCode = up.seen.length === 2 ? 400 : 200;
      res.end(up.seen.length === 2 ? '{"label":"INVALID_PARAM_VALUE","message":"x"}' : '{}');
    });
    for (const format of ['text', 'json'] as const) {
      const lines: string[] = [];
      await start({ upstream: up.url, log: (line) => lines.push(line), logFormat: format });
      up.seen.length = 0;
      const post = (key: string) =>
        fetch(`${proxy!.url}/api/v4/futures/usdt/orders?x=secret-query`, {
          method: 'POST',
          headers: { ...signed(Math.floor(Date.now() / 1000)), KEY: key },
          body: ORDER,
        });
      await post('main-key');
      await post('main-key');
      await post('stolen-key');
      await fetch(`${proxy!.url}/elsewhere?x=secret-query`, { method: 'POST' });
      await fetch(`${proxy!.url}/favicon.ico?x=secret-query`);
      await proxy!.close();
      proxy = undefined;
      if (format === 'text') {
        expect(lines).toEqual([
          expect.stringMatching(/^POST \/api\/v4\/futures\/usdt\/orders 200 by exchange desk\/main waited \d+\.\d ms$/),
          expect.stringMatching(
            /^POST \/api\/v4\/futures\/usdt\/orders 400 by exchange INVALID_PARAM_VALUE desk\/main waited \d+\.\d ms$/,
          ),
          'POST /api/v4/futures/usdt/orders 401 by proxy TRADERATIO_UNKNOWN_KEY unknown key waited 0.0 ms',
          'POST /elsewhere 404 by proxy NOT_FOUND unknown key waited 0.0 ms',
          'GET /favicon.ico 404 by proxy NOT_FOUND unknown key waited 0.0 ms',
        ]);
      } else {
        const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
        expect(records.map((r) => [r.status, r.by, r.label, r.family, r.account])).toEqual([
          [200, 'exchange', null, 'desk', 'main'],
          [400, 'exchange', 'INVALID_PARAM_VALUE', 'desk', 'main'],
          [401, 'proxy', 'TRADERATIO_UNKNOWN_KEY', '', ''],
          [404, 'proxy', 'NOT_FOUND', '', ''],
          [404, 'proxy', 'NOT_FOUND', '', ''],
        ]);
        expect(Object.keys(records[0]!)).toEqual([
          'time',
          'method',
          'path',
          'status',
          'by',
          'label',
          'family',
          'account',
          'limit',
          'waitedMs',
        ]);
        expect(records[0]!.path).toBe('/api/v4/futures/usdt/orders');
      }
      expect(lines.join('\n')).not.toMatch(/main-key|stolen|abab|60000|secret/);
    }
  });

  it('names in its log the limit a request waited on, and how long', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const up = await fakeUpstream((_, res) => res.end('{}'));
    const lines: string[] = [];
    await start({ upstream: up.url, clock, log: (line) => lines.push(line), logFormat: 'json' });
    const spot = (pair: string) =>
      fetch(`${proxy!.url}/api/v4/spot/orders`, {
        method: 'POST',
        headers: signed(Math.floor(clock.wall() / 1000)),
        body: JSON.stringify({ currency_pair: pair, side: 'buy', amount: '1', price: '1' }),
      });
    await Promise.all(Array.from({ length: 10 }, () => spot('BTC_USDT')));
    const held = spot('BTC_USDT');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await clock.advance(1000);
    await held;
    const last = JSON.parse(lines.at(-1)!) as { limit: string; waitedMs: number };
    expect(last.limit).toBe('main:spot.place:BTC_USDT');
    expect(last.waitedMs).toBeGreaterThan(0);
    expect(last.waitedMs).toBeLessThanOrEqual(1000);
  });

  it('stops cleanly: each waiting request gets 503 TRADERATIO_CLOSED with its body, a sent one its answer, none a reset', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    // The exchange answers the first placement only when told: it is in flight when the proxy stops.
    let release: () => void = () => {};
    const up = await fakeUpstream((_, res) => {
      if (up.seen.length === 1) release = () => res.end('{"id":1}');
      else res.end('{}');
    });
    await start({ upstream: up.url, clock });
    const spot = () =>
      fetch(`${proxy!.url}/api/v4/spot/orders`, {
        method: 'POST',
        headers: signed(Math.floor(clock.wall() / 1000)),
        body: JSON.stringify({ currency_pair: 'BTC_USDT', side: 'buy', amount: '1', price: '1' }),
      });
    // 1 in flight, 9 answered, 5 waiting on the pair's 10 a second.
    const inFlight = spot();
    await expect.poll(() => up.seen.length).toBe(1);
    const answered = await Promise.all(Array.from({ length: 9 }, spot));
    const waiting = Array.from({ length: 5 }, spot);
    await expect.poll(() => proxy!.limiters.get('desk')!.scheduler.stats().queued).toBe(5);
    const closing = proxy!.close();
    const refused = await Promise.all(waiting);
    expect(refused.map((r) => [r.status, r.headers.get('connection')])).toEqual(Array(5).fill([503, 'close']));
    for (const r of refused)
      expect(await r.json()).toEqual({ label: 'TRADERATIO_CLOSED', message: 'the proxy is stopping; never forwarded' });
    // The one sent is awaited and relayed.
    release();
    const relayed = await inFlight;
    expect([relayed.status, await relayed.text()]).toEqual([200, '{"id":1}']);
    await closing;
    expect(answered.map((r) => r.status)).toEqual(Array(9).fill(200));
    expect(up.seen).toHaveLength(10);
    expect(proxy!.summary().families).toEqual([
      { family: 'desk', sent: 10, ownAnswers: { TRADERATIO_CLOSED: 5 } },
      { family: 'ip', sent: 0, ownAnswers: {} },
    ]);
  });

  it('refuses bad options by name and starts nothing', async () => {
    await expect(startProxy({ upstream: 'ftp://x' })).rejects.toThrow('Expected `upstream` to be an http or https URL');
    await expect(startProxy({ upstream: 'http://127.0.0.1:1', timeoutMs: 0 })).rejects.toThrow(
      'Expected `timeoutMs` to be a positive whole number, got 0',
    );
    await expect(startProxy({ upstream: 'http://127.0.0.1:1', accounts: { families: [] } })).rejects.toThrow(
      'the accounts file',
    );
    for (const upstream of [
      'http://user:secret@127.0.0.1:1',
      'http://127.0.0.1:1/api?x=1',
      'http://127.0.0.1:1/#top',
      'http://127.0.0.1:1?',
    ]) {
      await expect(startProxy({ upstream })).rejects.toThrow(
        `Expected \`upstream\` to be an http or https URL without credentials, query or fragment, e.g. https://api.gateio.ws, got "${upstream}"`,
      );
    }
    // History of an account in no family of the accounts file is refused, not left out.
    const history = {
      activity: [{ account: 'main', day: -1, contracts: [] }],
      hours: [{ account: 'nobody', hour: -1, requests: 5 }],
    };
    await expect(startProxy({ upstream: 'http://127.0.0.1:1', history })).rejects.toThrow(
      'Expected `hours[0].account` to be an account of the accounts file, got "nobody"',
    );
  });

  it('serves its metrics, its status as JSON and as live events, and a page that loads nothing from elsewhere', async () => {
    exchange = await startModelExchange({ port: 0, accounts: ACCOUNTS, fills: { maker: 0, taker: 0 } });
    await start({ upstream: exchange.url, statusEveryMs: 20 });
    await fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      headers: { KEY: 'main-key' },
      body: ORDER,
    });
    await fetch(`${proxy!.url}/api/v4/futures/usdt/orders`, {
      method: 'POST',
      headers: { KEY: 'main-key', Timestamp: '1' },
      body: ORDER,
    });
    const metrics = await fetch(`${proxy!.url}/metrics`);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toContain('traderatio_sent_total{family="desk",account="main",limit="futures.place"} 1');
    expect(text).toContain(
      'traderatio_proxy_answers_total{family="desk",account="main",status="401",label="TRADERATIO_REQUEST_EXPIRED"} 1',
    );
    expect(text).toContain('traderatio_exchange_answers_total{family="desk",account="main",class="2xx",label=""} 1');
    // The HELP texts name every value the labels take: the proxy's labels, the status classes.
    const help = (name: string) => new RegExp(`^# HELP ${name} (.*)$`, 'm').exec(text)![1]!;
    for (const label of Object.values(LABELS)) expect(help('traderatio_proxy_answers_total')).toContain(label);
    for (const c of STATUS_CLASSES) expect(help('traderatio_exchange_answers_total')).toContain(c);
    expect(text).toContain('traderatio_wait_seconds_count{family="desk",account="main",action="place"} 1');
    const status = (await (await fetch(`${proxy!.url}/status.json`)).json()) as {
      accounts: { account: string; tier: number; limits: { limit: string; used: number }[] }[];
    };
    const main = status.accounts.find((a) => a.account === 'main')!;
    expect(main.tier).toBe(1);
    expect(main.limits.find((l) => l.limit === 'futures.place')!.used).toBe(1);
    // Two events of the stream, a tick apart.
    const events = await fetch(`${proxy!.url}/events`);
    expect(events.headers.get('content-type')).toBe('text/event-stream');
    const reader = events.body!.getReader();
    let seen = '';
    while ((seen.match(/^data: /gm) ?? []).length < 2) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(JSON.parse(seen.split('\n')[0]!.slice(6))).toMatchObject({
      accounts: expect.arrayContaining([expect.objectContaining({ account: 'main', placeLimit: 100 })]),
    });
    const page = await fetch(`${proxy!.url}/`);
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'unsafe-inline'; connect-src 'self'$/,
    );
    const html = await page.text();
    expect(html).toContain("new EventSource('/events')");
    expect(html).not.toMatch(/<script[^>]+src|<link|https?:\/\/(?!www\.w3)/);
  });
});
