import { ZERO } from '../internal/decimal.js';
import type { FuturesOrder } from './book.js';

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
    self.size = o.sizeAsText ? o.size.toString() : o.size.toNumber();
    self.left = o.left === ZERO ? (o.sizeAsText ? '0' : 0) : o.sizeAsText ? o.left.toString() : o.left.toNumber();
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
    const created = String(this.create_time);
    // A fill at placement finishes the order at the instant it was made: one number written once.
    const finished =
      this.finish_time === undefined
        ? ''
        : `,"finish_time":${number(this.finish_time, this.finish_time === this.create_time ? created : undefined)}`;
    return (
      `{"id":${number(this.id)},"user":${number(this.user)},"contract":${string(this.contract)},"create_time":${number(this.create_time, created)},` +
      `"size":${typeof this.size === 'string' ? string(this.size) : number(this.size)},"left":${typeof this.left === 'string' ? string(this.left) : number(this.left)},` +
      `"price":${string(this.price)},"fill_price":${string(this.fill_price)},"tif":${string(this.tif)},"text":${string(this.text)},` +
      `"status":${string(this.status)},"finish_as":${string(this.finish_as)}${finished},"is_reduce_only":false,"is_close":false,"iceberg":0}`
    );
  }
}

/** A number as JSON writes it: finite ones as `String` does, the others as null. */
function number(n: number, text?: string): string {
  return Number.isFinite(n) ? (text ?? String(n)) : 'null';
}

/** A string as JSON writes it; printable ASCII without `"` or `\` needs no escape. */
function string(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return JSON.stringify(s);
  }
  return `"${s}"`;
}

/** Unix seconds to the millisecond, as the exchange writes them: a finer fraction breaks the SDK's JSON reader. */
export function apiSeconds(ms: number): number {
  return Math.floor(ms) / 1000;
}
