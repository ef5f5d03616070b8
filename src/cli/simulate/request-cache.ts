import type { Classification } from '../../catalog/catalog.js';
import type { FieldScanner } from '../csv/field-scanner.js';

/**
 * What classifies a log's requests: Gate's catalogue, or an exchange's API. The body names the
 * instrument under each exchange's field (`contract`, `currency_pair`, `instId`).
 */
export interface LogClassifier {
  classify(method: string, path: string, body?: unknown): Classification;
}

/** A request seen before: its fields as written, and how the catalog classified it. */
export interface Recent {
  readonly method: string;
  /** The path, or with an id at its end, the path up to it. */
  readonly prefix: string;
  readonly id: boolean;
  readonly contract: string;
  readonly orders: string;
  readonly c: Classification;
}

/**
 * The classifications of a log's requests: every kind seen, by its fields as text, and the latest
 * in a small direct-mapped cache, placed by the lengths and a few characters of the request's
 * fields (an order id at the end of a path left out) and checked against the fields themselves:
 * no string is cut or hashed for a line whose request was seen before, since logs repeat a handful
 * of requests (an order id at the end of a path aside).
 */
export class RequestCache {
  private readonly classified = new Map<string, Classification>();
  private readonly recent: (Recent | undefined)[] = new Array(256);

  constructor(
    private readonly fields: FieldScanner,
    private readonly catalog: LogClassifier,
  ) {}

  /** The request of the scanner's line, when it is in the direct-mapped cache. */
  lookup(iMethod: number, iPath: number, iContract: number, iOrders: number): Recent | undefined {
    const f = this.fields;
    const e = this.recent[f.slot(iMethod, iPath, iContract, iOrders)];
    if (e === undefined || !f.is(iContract, e.contract) || !f.is(iMethod, e.method) || !f.is(iOrders, e.orders))
      return undefined;
    return (e.id ? f.hasPrefixThenDigits(iPath, e.prefix) : f.is(iPath, e.prefix)) ? e : undefined;
  }

  /**
   * Classifies the scanner's line, a request of `orders` orders (checked), through the cache of
   * every kind seen, and remembers it in the direct-mapped cache. `cols` are where method, path,
   * contract and orders are (at 2 to 5).
   */
  classify(
    method: string,
    path: string,
    contract: string,
    ordersText: string,
    orders: number,
    cols: readonly number[],
  ): Recent {
    const bare = withoutId(path);
    const key = `${method} ${bare} ${orders} ${contract}`;
    let c = this.classified.get(key);
    if (c === undefined) {
      const body = Array.from({ length: orders }, () => ({ contract, currency_pair: contract, instId: contract }));
      c = this.catalog.classify(
        method,
        path,
        orders > 1 || /batch/.test(path) ? body : contract === '' ? undefined : body[0],
      );
      if (this.classified.size < 100_000) this.classified.set(key, c);
    }
    const id = bare !== path;
    const entry: Recent = { method, prefix: id ? bare.slice(0, -1) : path, id, contract, orders: ordersText, c };
    this.recent[this.fields.slot(cols[2]!, cols[3]!, cols[4]!, cols[5]!)] = entry;
    return entry;
  }
}

/** The path with a trailing numeric id replaced, so that requests on different orders share a cache entry. */
function withoutId(path: string): string {
  const q = path.indexOf('?');
  const p = q < 0 ? path : path.slice(0, q);
  const slash = p.lastIndexOf('/');
  for (let i = slash + 1; i < p.length; i++) {
    const c = p.charCodeAt(i);
    if (c < 48 || c > 57) return p;
  }
  return slash + 1 < p.length ? `${p.slice(0, slash)}/0` : p;
}
