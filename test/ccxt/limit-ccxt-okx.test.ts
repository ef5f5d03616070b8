import ccxt from 'ccxt';
import { describe, expect, it, vi } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitCcxt } from '../../src/ccxt/index.js';
import { InvalidInputError } from '../../src/errors.js';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { settled } from '../model-exchange/okx-helpers.js';
import { closeAfterEach } from '../e2e/harness.js';
import { OKX_SWAPS, okxAt, okxBatchesOverTier, recordSends } from './helpers.js';

vi.setConfig({ testTimeout: 60_000 });
const live = closeAfterEach();

/**
 * The model on OKX and an OKX limiter on one virtual clock (the base limit: 1,000 new and amend
 * orders per 2 s), an okx instance limited. ccxt signs with the machine's clock: the model checks
 * its timestamps against that one, with 30 s of leeway.
 */
async function setUp(options: { askRateLimit?: boolean } = {}) {
  const clock = new VirtualClock({ start: 0, wallStart: Date.now() });
  live.exchange = await startModelExchange({ exchange: 'okx', port: 0, clock, fills: { maker: 0, taker: 0 } });
  live.limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }], clock });
  const okx = okxAt(live.exchange);
  const sent = recordSends(okx as never);
  const limited = limitCcxt(live.limiter, okx, { account: 'main', askRateLimit: options.askRateLimit ?? false });
  await okx.loadMarkets();
  return { clock, okx, sent, limited, limiter: live.limiter, exchange: live.exchange };
}

/** The model's count of a limit of the main account, by its key (`sub-account`, `/api/v5/trade/order:BTC-USDT-SWAP`). */
function modelLimit(ex: RunningModelExchange, key: string) {
  return ex.stats().accounts[0]!.limits.find((x) => x.key === key);
}

describe('limitCcxt on OKX', () => {
  it('refuses an okx instance on a Gate limiter and a gate one on an OKX limiter, naming both', () => {
    const gateLimiter = new AccountLimiter({ accounts: [{ id: 'main', role: 'main' }] });
    const onOkx = (live.limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }] }));
    try {
      const okx = new ccxt.okx();
      expect(() => limitCcxt(gateLimiter, okx, { account: 'main' })).toThrow(
        new InvalidInputError(
          'the exchange',
          'a ccxt instance with id okx',
          "a ccxt gate (or gateio) instance, the limiter's exchange being gate (a ccxt okx instance goes with new AccountLimiter({ exchange: 'okx' }))",
        ),
      );
      expect(okx.enableRateLimit).toBe(true);
      const gate = new ccxt.gate();
      expect(() => limitCcxt(onOkx, gate, { account: 'main' })).toThrow(
        new InvalidInputError(
          'the exchange',
          'a ccxt instance with id gate',
          "a ccxt okx instance, the limiter's exchange being okx (a ccxt gate (or gateio) instance goes with new AccountLimiter({ exchange: 'gate' }))",
        ),
      );
      expect(() => limitCcxt(onOkx, new ccxt.binance() as never, { account: 'main' })).toThrow(
        /Expected the exchange to be a ccxt okx instance, got "a ccxt instance with id binance"/,
      );
      // OKX's fills come to the limiter through recordFill: no poll.
      expect(() => limitCcxt(onOkx, okx, { account: 'main', fills: { everyMs: 1000 } })).toThrow(
        'Expected `fills` to be left out on a limiter of OKX, which takes fills from limiter.recordFill, got {"everyMs":1000}',
      );
      expect(okx.enableRateLimit).toBe(true);
      const limited = limitCcxt(onOkx, okx, { account: 'main' });
      expect(okx.enableRateLimit).toBe(false);
      limited.detach();
      expect(okx.enableRateLimit).toBe(true);
    } finally {
      gateLimiter.close();
    }
  });

  it("asks the exchange's figure and its time first; the first request waits for both", async () => {
    const { okx, sent, limiter } = await setUp({ askRateLimit: true });
    const paths = sent.map((s) => new URL(s.url).pathname);
    expect(paths.slice(0, 2).sort()).toEqual(['/api/v5/public/time', '/api/v5/trade/account-rate-limit']);
    expect(paths.indexOf('/api/v5/public/instruments')).toBeGreaterThan(1);
    expect(limiter.limitNow('main').limit).toBe(1000);
    expect(limiter.clockEstimate()).not.toBeNull();
    expect(okx.enableRateLimit).toBe(false);
  });

  it("holds new orders over the sub-account's 1,000 per 2 s: none answered 50061", async () => {
    const { clock, okx, exchange } = await setUp();
    const placing = okxBatchesOverTier(okx);
    await settled(clock, exchange);
    expect(modelLimit(exchange, 'sub-account')?.most).toBe(1000);
    await clock.advance(2_000);
    const placed = (await Promise.all(placing)).flat();
    expect(placed.filter((o) => o.id !== undefined)).toHaveLength(1200);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
    expect(modelLimit(exchange, 'sub-account')?.accepted).toBe(60);
  });

  it("holds each instrument's 60 placements per 2 s, several instruments at once: none answered 50011", async () => {
    const { clock, okx, exchange } = await setUp();
    // ccxt sends one order as a batch of one, which OKX counts on the single-order limit. The
    // swaps in turn: a placement waiting on its instrument keeps its turn on the sub-account's
    // limit, and those after it wait behind it (docs/okx.md#o5).
    const placing = Array.from({ length: 70 }, () =>
      OKX_SWAPS.slice(0, 3).map(([symbol, price]) => okx.createOrder(symbol, 'limit', 'buy', 1, price)),
    ).flat();
    await settled(clock, exchange);
    for (const id of ['BTC', 'ETH', 'SOL'])
      expect(modelLimit(exchange, `/api/v5/trade/order:${id}-USDT-SWAP`)?.accepted).toBe(60);
    await clock.advance(2_000);
    expect(await Promise.all(placing)).toHaveLength(210);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
    for (const id of ['BTC', 'ETH', 'SOL'])
      expect(modelLimit(exchange, `/api/v5/trade/order:${id}-USDT-SWAP`)?.most).toBe(60);
  });

  it('sends a cancel at once while placements of its instrument wait', async () => {
    const { clock, okx, exchange } = await setUp();
    const first = await okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10);
    const placing = Array.from({ length: 80 }, () => okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10));
    await settled(clock, exchange);
    // 59 more have gone; 21 wait for the window to move on. The cancel does not wait behind them.
    const cancelled = await okx.cancelOrder(first.id!, 'SOL/USDT:USDT');
    expect(cancelled.id).toBe(first.id);
    expect(clock.now()).toBe(0);
    expect(modelLimit(exchange, '/api/v5/trade/order:SOL-USDT-SWAP')?.accepted).toBe(60);
    await clock.advance(2_000);
    await Promise.all(placing);
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
  });

  it('passes on a refusal it could not prevent (50011) as ccxt’s RateLimitExceeded', async () => {
    const { okx, exchange } = await setUp();
    // Another client of the same key placed 60 on SOL a moment ago: the limiter did not see them.
    const other = okxAt(exchange, { enableRateLimit: false });
    await other.loadMarkets();
    await Promise.all(Array.from({ length: 60 }, () => other.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10)));
    await expect(okx.createOrder('SOL/USDT:USDT', 'limit', 'buy', 1, 10)).rejects.toBeInstanceOf(
      ccxt.RateLimitExceeded,
    );
    expect(exchange.stats().accounts[0]!.refused).toEqual({ '50011': 1 });
  });
});
