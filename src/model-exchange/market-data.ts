import { InvalidInputError } from '../errors.js';
import { utcDayStart } from '../rules/calendar.js';
import { Dec } from '../internal/decimal.js';
import { badRequest } from './api-error.js';
import type { Contract, Markets, Pair } from './markets.js';
import { PriceWalk, hashText, uniform } from './price-walk.js';

/**
 * Options of the model's prices: a seeded walk per instrument (docs/model-exchange.md).
 *
 * @example
 * ```ts
 * import { VirtualClock } from 'traderatio/testing'
 * import { startModelExchange } from 'traderatio/model-exchange'
 *
 * // The same seed on the same day gives the same prices on every run.
 * const clock = new VirtualClock({ wallStart: Date.parse('2026-11-21T10:00:00Z') })
 * const a = await startModelExchange({ port: 0, clock, prices: { seed: 7 } })
 * const b = await startModelExchange({ port: 0, clock, prices: { seed: 7 } })
 * const last = async (url: string) => (await (await fetch(`${url}/api/v4/futures/usdt/tickers?contract=BTC_USDT`)).json())[0].last
 * const first = await last(a.url)
 * const second = await last(b.url)
 * first === second // true
 * await a.close()
 * await b.close()
 * ```
 */
export interface PricesOptions {
  /** Seed of the walks. @default 1 */
  readonly seed?: number;
  /** Standard deviation of the log price over a day. @default 0.03 */
  readonly dailyVolatility?: number;
}

type Json = Record<string, unknown>;

/** Candle intervals the API takes, in seconds. */
const INTERVALS: ReadonlyMap<string, number> = new Map([
  ['10s', 10],
  ['1m', 60],
  ['5m', 300],
  ['15m', 900],
  ['30m', 1800],
  ['1h', 3600],
  ['4h', 14_400],
  ['8h', 28_800],
  ['1d', 86_400],
  ['7d', 604_800],
  ['30d', 2_592_000],
]);
/** Points of the walk read per candle for its high and low (and its open and close). */
const SAMPLES_PER_CANDLE = 60;

/**
 * The market data the model serves, all read from its price walks: the price of an instrument at
 * an instant is its reference price at 00:00 UTC of the day the model started, moved by the
 * walk since then and rounded to its tick. Tickers, order books (levels one tick apart around
 * that price), public trades (one per second of the walk) and candles follow from it; sizes are
 * seeded draws. Nothing here reads a clock: every instant is passed in.
 */
export class MarketData {
  private readonly walk: PriceWalk;
  private readonly anchor: number;
  private readonly seed: number;

  constructor(
    readonly markets: Markets,
    options: PricesOptions,
    startedAt: number,
  ) {
    if (typeof options !== 'object' || options === null)
      throw new InvalidInputError('`prices`', options, 'an object { seed?, dailyVolatility? }');
    this.seed = options.seed ?? 1;
    this.walk = new PriceWalk(this.seed, options.dailyVolatility ?? 0.03);
    this.anchor = Math.floor(utcDayStart(Math.floor(startedAt)) / 1000);
  }

  /** The price of an instrument (its name: spot and futures of the same name share a walk) at second `s`. */
  priceAt(name: string, reference: Dec, tick: Dec, s: number): Dec {
    const moved = reference.times(this.walk.factor(name, this.anchor, s));
    const stepped = moved.div(tick).round().times(tick);
    return stepped.isZero() ? tick : stepped;
  }

  contractPrice(c: Contract, at: number): Dec {
    return this.priceAt(c.name, c.price, c.tick, Math.floor(at / 1000));
  }

  pairPrice(p: Pair, at: number): Dec {
    return this.priceAt(p.name, p.price, p.tick, Math.floor(at / 1000));
  }

  // ---- futures

  futuresTicker(c: Contract, at: number): Json {
    const s = Math.floor(at / 1000);
    const last = this.contractPrice(c, at);
    const day = this.range(c.name, c.price, c.tick, s - 86_400, s, 96);
    const volume = this.volume(c.name, s - 86_400, s, 96);
    const change = last.div(day.open).minus(1).times(100).toDecimalPlaces(2);
    const { bid, ask } = this.touch(c.tick, last);
    return {
      contract: c.name,
      last: last.toString(),
      change_percentage: change.toString(),
      total_size: String(volume * 10),
      low_24h: day.low.toString(),
      high_24h: day.high.toString(),
      volume_24h: String(volume),
      volume_24h_btc: '0',
      volume_24h_usd: '0',
      volume_24h_base: c.multiplier.times(volume).toString(),
      volume_24h_quote: c.multiplier.times(volume).times(last).toDecimalPlaces(2).toString(),
      volume_24h_settle: c.multiplier.times(volume).times(last).toDecimalPlaces(2).toString(),
      mark_price: last.toString(),
      funding_rate: '0.0001',
      funding_rate_indicative: '0.0001',
      index_price: last.toString(),
      quanto_base_rate: '',
      highest_bid: bid.toString(),
      lowest_ask: ask.toString(),
      highest_size: String(this.size(c.name, s, 1, 1000)),
      lowest_size: String(this.size(c.name, s, -1, 1000)),
    };
  }

  futuresBook(c: Contract, at: number, limit: number, withId: boolean): Json {
    const s = Math.floor(at / 1000);
    const last = this.contractPrice(c, at);
    const { bid, ask } = this.touch(c.tick, last);
    const side = (from: Dec, dir: number) =>
      Array.from({ length: limit }, (_, i) => ({
        p: from.plus(c.tick.times(dir * i)).toString(),
        s: this.size(c.name, s, dir * (i + 1), 1000),
      })).filter((l) => new Dec(l.p).isPositive());
    return {
      ...(withId ? { id: s } : {}),
      current: Math.floor(at) / 1000,
      update: s,
      asks: side(ask, 1),
      bids: side(bid, -1),
    };
  }

  futuresTrades(c: Contract, at: number, limit: number): Json[] {
    const s = Math.floor(at / 1000);
    return Array.from({ length: limit }, (_, i) => {
      const t = s - i;
      const size = this.size(c.name, t, 0, 100);
      return {
        id: t,
        create_time: t,
        create_time_ms: t * 1000,
        contract: c.name,
        size: this.upTick(c.name, t) ? size : -size,
        price: this.priceAt(c.name, c.price, c.tick, t).toString(),
      };
    });
  }

  futuresCandles(c: Contract, at: number, query: URLSearchParams): Json[] {
    return this.candles(c.name, c.price, c.tick, at, query, 2000).map(({ t, o, h, l, cl, v }) => ({
      t,
      v,
      c: cl.toString(),
      h: h.toString(),
      l: l.toString(),
      o: o.toString(),
      sum: c.multiplier.times(v).times(cl).toDecimalPlaces(8).toString(),
    }));
  }

  // ---- spot

  spotTicker(p: Pair, at: number): Json {
    const s = Math.floor(at / 1000);
    const last = this.pairPrice(p, at);
    const day = this.range(p.name, p.price, p.tick, s - 86_400, s, 96);
    const base = this.minBase(p).times(this.volume(p.name, s - 86_400, s, 96));
    const { bid, ask } = this.touch(p.tick, last);
    return {
      currency_pair: p.name,
      last: last.toString(),
      lowest_ask: ask.toString(),
      lowest_size: this.minBase(p)
        .times(this.size(p.name, s, -1, 1000))
        .toString(),
      highest_bid: bid.toString(),
      highest_size: this.minBase(p)
        .times(this.size(p.name, s, 1, 1000))
        .toString(),
      change_percentage: last.div(day.open).minus(1).times(100).toDecimalPlaces(2).toString(),
      base_volume: base.toString(),
      quote_volume: base.times(last).toDecimalPlaces(8).toString(),
      high_24h: day.high.toString(),
      low_24h: day.low.toString(),
    };
  }

  spotBook(p: Pair, at: number, limit: number, withId: boolean): Json {
    const s = Math.floor(at / 1000);
    const last = this.pairPrice(p, at);
    const { bid, ask } = this.touch(p.tick, last);
    const unit = this.minBase(p);
    const side = (from: Dec, dir: number) =>
      Array.from({ length: limit }, (_, i) => [
        from.plus(p.tick.times(dir * i)).toString(),
        unit.times(this.size(p.name, s, dir * (i + 1), 1000)).toString(),
      ]).filter((l) => new Dec(l[0]!).isPositive());
    return {
      ...(withId ? { id: s } : {}),
      current: Math.floor(at),
      update: s * 1000,
      asks: side(ask, 1),
      bids: side(bid, -1),
    };
  }

  spotTrades(p: Pair, at: number, limit: number): Json[] {
    const s = Math.floor(at / 1000);
    const unit = this.minBase(p);
    return Array.from({ length: limit }, (_, i) => {
      const t = s - i;
      return {
        id: String(t),
        create_time: String(t),
        create_time_ms: `${t * 1000}.000`,
        currency_pair: p.name,
        side: this.upTick(p.name, t) ? 'buy' : 'sell',
        role: 'taker',
        amount: unit.times(this.size(p.name, t, 0, 100)).toString(),
        price: this.priceAt(p.name, p.price, p.tick, t).toString(),
        sequence_id: String(t),
      };
    });
  }

  spotCandles(p: Pair, at: number, query: URLSearchParams): string[][] {
    const unit = this.minBase(p);
    const now = Math.floor(at / 1000);
    return this.candles(p.name, p.price, p.tick, at, query, 1000).map(({ t, o, h, l, cl, v, span }) => {
      const base = unit.times(v);
      return [
        String(t),
        base.times(cl).toDecimalPlaces(8).toString(),
        cl.toString(),
        h.toString(),
        l.toString(),
        o.toString(),
        base.toString(),
        String(t + span <= now),
      ];
    });
  }

  /** The smallest amount of a pair: one unit of its last decimal. */
  minBase(p: Pair): Dec {
    return new Dec(10).pow(-p.amountPrecision);
  }

  // ---- the walk read

  /** Best bid and ask: a tick either side of the price (the bid at least one tick). */
  private touch(tick: Dec, price: Dec): { bid: Dec; ask: Dec } {
    const bid = price.minus(tick);
    return { bid: bid.isPositive() ? bid : tick, ask: price.plus(tick) };
  }

  /** Whether the walk went up into second `s`: the side of that second's trade. */
  private upTick(name: string, s: number): boolean {
    return this.walk.at(name, s) >= this.walk.at(name, s - 1);
  }

  /** A seeded size from 1 to `most`, for a second and a place (a book level, or 0 for the trade). */
  private size(name: string, s: number, place: number, most: number): number {
    return 1 + Math.floor(uniform(hashText(name) ^ this.seed, s, place) * most);
  }

  /** Open, high and low of the walk from second `from` to `to`, read at `samples` + 1 points. */
  private range(
    name: string,
    reference: Dec,
    tick: Dec,
    from: number,
    to: number,
    samples: number,
  ): { open: Dec; high: Dec; low: Dec } {
    const open = this.priceAt(name, reference, tick, from);
    let high = open;
    let low = open;
    for (let i = 1; i <= samples; i++) {
      const p = this.priceAt(name, reference, tick, from + Math.round(((to - from) * i) / samples));
      if (p.gt(high)) high = p;
      if (p.lt(low)) low = p;
    }
    return { open, high, low };
  }

  /** Trades (in sizes of 1 to 100) from second `from` to `to`, read at `samples` points and scaled to the span. */
  private volume(name: string, from: number, to: number, samples: number): number {
    let sum = 0;
    for (let i = 1; i <= samples; i++) sum += this.size(name, from + Math.round(((to - from) * i) / samples), 0, 100);
    return Math.round((sum * (to - from)) / samples);
  }

  private candles(
    name: string,
    reference: Dec,
    tick: Dec,
    at: number,
    query: URLSearchParams,
    most: number,
  ): { t: number; o: Dec; h: Dec; l: Dec; cl: Dec; v: number; span: number }[] {
    const interval = query.get('interval') ?? '5m';
    const span = INTERVALS.get(interval);
    if (span === undefined)
      throw badRequest(
        'INVALID_PARAM_VALUE',
        `interval ${JSON.stringify(interval)}: one of ${[...INTERVALS.keys()].join(', ')}`,
      );
    const now = Math.floor(at / 1000);
    const from = seconds(query, 'from');
    const to = seconds(query, 'to') ?? now;
    const limit = query.get('limit');
    if (limit !== null && from !== undefined)
      throw badRequest('INVALID_PARAM_VALUE', 'limit and from cannot be given together');
    const count =
      from === undefined
        ? limit === null
          ? 100
          : whole(limit, 'limit', 1, most)
        : Math.floor((Math.min(to, now) - from) / span) + 1;
    if (count > most)
      throw badRequest('INVALID_PARAM_VALUE', `${count} candles from ${from} to ${to}: at most ${most}`);
    const last = Math.floor(Math.min(to, now) / span) * span;
    const out = [];
    for (let t = last - (count - 1) * span; t <= last; t += span) {
      if (from !== undefined && t < Math.floor(from / span) * span) continue;
      const end = Math.min(t + span, now);
      const r = this.range(name, reference, tick, t, end, Math.max(1, Math.min(SAMPLES_PER_CANDLE, end - t)));
      out.push({
        t,
        o: r.open,
        h: r.high,
        l: r.low,
        cl: this.priceAt(name, reference, tick, end),
        v: this.volume(name, t, Math.max(end, t + 1), Math.min(SAMPLES_PER_CANDLE, span)),
        span,
      });
    }
    return out;
  }
}

function seconds(query: URLSearchParams, field: string): number | undefined {
  const raw = query.get(field);
  if (raw === null) return undefined;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(n))
    throw badRequest('INVALID_PARAM_VALUE', `${field} ${JSON.stringify(raw)}: Unix seconds`);
  return Math.floor(n);
}

/** A whole number query parameter from `min` to `max`. */
export function whole(raw: string, field: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw badRequest('INVALID_PARAM_VALUE', `${field} ${JSON.stringify(raw)}: a whole number from ${min} to ${max}`);
  return n;
}
