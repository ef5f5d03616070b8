import { type Dec, ZERO, decimalNumber } from '../internal/decimal.js';
import type { FuturesOrder, SpotOrder } from './book.js';
import type { Account } from './core.js';
import type { Contract } from './markets.js';
import { hashText } from './price-walk.js';

type Json = Record<string, unknown>;

/**
 * A futures order as the API answers it, with its JSON text written directly: the answer to a
 * placement, an amendment or a cancellation is the most frequent body the model writes, and
 * writing it field by field costs about half of `JSON.stringify` (which gives the same text).
 * Its own enumerable fields, in order, are those of the API's order.
 */
export class FuturesOrderJson {
  declare readonly id: number;
  declare readonly user: number;
  declare readonly contract: string;
  declare readonly create_time: number;
  declare readonly size: number | string;
  declare readonly left: number | string;
  declare readonly price: string;
  declare readonly fill_price: string;
  declare readonly tif: string;
  declare readonly text: string;
  declare readonly status: string;
  declare readonly finish_as: string;
  /** Only on a finished order. */
  declare readonly finish_time?: number;
  declare readonly is_reduce_only: boolean;
  declare readonly is_close: boolean;
  declare readonly iceberg: number;

  constructor(o: FuturesOrder, user: number) {
    const self = this as unknown as Record<string, unknown>;
    const price = o.price.toString();
    self.id = o.id;
    self.user = user;
    self.contract = o.contract;
    self.create_time = apiSeconds(o.createdAt);
    self.size = o.sizeAsText ? o.size.toString() : decimalNumber(o.size);
    self.left = o.left === ZERO ? (o.sizeAsText ? '0' : 0) : o.sizeAsText ? o.left.toString() : decimalNumber(o.left);
    self.price = price;
    self.fill_price = o.fillPrice === null ? '0' : o.fillPrice === o.price ? price : o.fillPrice.toString();
    self.tif = o.tif;
    self.text = o.text;
    self.status = o.status;
    self.finish_as = o.finishAs;
    if (o.finishedAt !== null) self.finish_time = apiSeconds(o.finishedAt);
    self.is_reduce_only = false;
    self.is_close = false;
    self.iceberg = 0;
  }

  /** The JSON text, the same as `JSON.stringify(this)`. */
  json(): string {
    const created = secondsText(this.create_time);
    // A fill at placement finishes the order at the instant it was made: one number written once.
    const finished =
      this.finish_time === undefined
        ? ''
        : `,"finish_time":${number(this.finish_time, this.finish_time === this.create_time ? created : undefined)}`;
    return (
      `{"id":${number(this.id)},"user":${number(this.user)},"contract":"${inner(this.contract)}","create_time":${number(this.create_time, created)},` +
      `"size":${typeof this.size === 'string' ? `"${inner(this.size)}"` : number(this.size)},"left":${typeof this.left === 'string' ? `"${inner(this.left)}"` : number(this.left)},` +
      `"price":"${inner(this.price)}","fill_price":"${inner(this.fill_price)}","tif":"${inner(this.tif)}","text":"${inner(this.text)}",` +
      `"status":"${inner(this.status)}","finish_as":"${inner(this.finish_as)}"${finished},"is_reduce_only":false,"is_close":false,"iceberg":0}`
    );
  }
}

/** A number as JSON writes it: finite ones as `String` does, the others as null. */
function number(n: number, text?: string): string {
  return Number.isFinite(n) ? (text ?? String(n)) : 'null';
}

/**
 * A string as JSON writes it between its quotes: printable ASCII without `"` or `\` as it is (the
 * answer's own text then holds the quotes: no string made per field), anything else escaped.
 */
function inner(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s).slice(1, -1);
  }
  return s;
}

/** Unix seconds to the millisecond, as the exchange writes them: a finer fraction breaks the SDK's JSON reader. */
export function apiSeconds(ms: number): number {
  return Math.floor(ms) / 1000;
}

/**
 * `String(seconds)` of seconds to the millisecond ({@link apiSeconds}), without the general
 * double-to-text algorithm: below 2^41 s, whole milliseconds lie much further apart than the
 * doubles near them, so the shortest text that reads back as the double is the milliseconds' own
 * decimal (the seconds, a point, the fraction's digits without the zeros that end them). Anything
 * else goes to `String`.
 */
export function secondsText(seconds: number): string {
  const ms = Math.round(seconds * 1000);
  if (!(ms >= 1000 && ms < 2 ** 41 * 1000 && ms / 1000 === seconds)) return String(seconds);
  const whole = Math.floor(ms / 1000);
  const fraction = ms - whole * 1000;
  if (fraction === 0) return String(whole);
  const digits = String(fraction + 1000);
  // "1120" is .12: the fraction's three digits, less the zeros that end them.
  return `${whole}.${digits.charCodeAt(3) !== 48 ? digits.slice(1) : digits.charCodeAt(2) !== 48 ? digits.slice(1, 3) : digits.slice(1, 2)}`;
}

const uids = new WeakMap<Account, number>();

/** A numeric uid for an account id: stable, as the API's user ids are numbers. */
export function uidOf(account: Account): number {
  let uid = uids.get(account);
  if (uid === undefined) uids.set(account, (uid = hashUid(account.id)));
  return uid;
}

function hashUid(id: string): number {
  return 10_000_000 + ((hashText(id) >>> 0) % 90_000_000);
}

/** A futures order of `account` as the API answers it. */
export function futuresJson(o: FuturesOrder, account: Account): FuturesOrderJson {
  return new FuturesOrderJson(o, uidOf(account));
}

/** A spot order as the API answers it. */
export function spotJson(o: SpotOrder): Json {
  const filled = o.amount.minus(o.left);
  return {
    // Whole milliseconds: the SDK reads numbers as big integers, and a fraction stops it.
    id: o.id,
    text: o.text,
    create_time: String(Math.floor(o.createdAt / 1000)),
    create_time_ms: Math.floor(o.createdAt),
    update_time: String(Math.floor((o.finishedAt ?? o.createdAt) / 1000)),
    update_time_ms: Math.floor(o.finishedAt ?? o.createdAt),
    status: o.status,
    currency_pair: o.pair,
    type: o.type,
    account: o.accountType,
    side: o.side,
    amount: o.amount.toString(),
    price: o.price.toString(),
    time_in_force: o.tif,
    left: o.left.toString(),
    filled_amount: filled.toString(),
    fill_price: o.fillPrice?.toString() ?? '0',
    filled_total: filled.times(o.fillPrice ?? 0).toString(),
    finish_as: o.finishAs === '' ? 'open' : o.finishAs,
  };
}

/** A contract as `GET /futures/{settle}/contracts` answers it: precision, limits and prices at the walk's. */
export function contractJson(c: Contract, price: Dec, at: number): Json {
  const tick = c.tick.toString();
  const funding = 8 * 3600;
  return {
    name: c.name,
    type: c.inverse ? 'inverse' : 'direct',
    quanto_multiplier: c.multiplier.toString(),
    ref_discount_rate: '0',
    order_price_deviate: '0.5',
    maintenance_rate: '0.005',
    mark_type: 'index',
    last_price: price.toString(),
    mark_price: price.toString(),
    index_price: price.toString(),
    funding_rate_indicative: '0.0001',
    mark_price_round: tick,
    funding_offset: 0,
    in_delisting: false,
    risk_limit_base: '1000000',
    interest_rate: '0.0003',
    order_price_round: tick,
    order_size_min: 1,
    ref_rebate_rate: '0.2',
    funding_interval: funding,
    risk_limit_step: '1000000',
    leverage_min: '1',
    leverage_max: '100',
    risk_limit_max: '8000000',
    maker_fee_rate: '-0.00025',
    taker_fee_rate: '0.00075',
    funding_rate: '0.0001',
    order_size_max: 1_000_000,
    funding_next_apply: (Math.floor(at / 1000 / funding) + 1) * funding,
    short_users: 0,
    config_change_time: 0,
    trade_size: 0,
    position_size: 0,
    long_users: 0,
    funding_impact_value: '60000',
    orders_limit: 100,
    trade_id: 0,
    orderbook_id: 0,
    enable_bonus: false,
    enable_credit: true,
    create_time: 0,
    funding_cap_ratio: '0.75',
    status: 'trading',
    launch_time: 0,
    contract_type: '',
  };
}
