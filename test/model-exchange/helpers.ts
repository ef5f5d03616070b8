import { createHmac, createHash } from 'node:crypto';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import {
  type ModelExchangeOptions,
  type RunningModelExchange,
  startModelExchange,
} from '../../src/model-exchange/server.js';
import { WORKED_EXAMPLE } from '../../src/rules/example.js';

/** The worked example's family: A main, B and C subs, one key each, max(own, aggregated) for all (threshold 0). */
export const EXAMPLE_ACCOUNTS = {
  families: [
    {
      id: 'example',
      ownVolumeThreshold: '0',
      accounts: [
        { id: 'A', role: 'main' as const, keys: [{ key: 'key-A', secret: 'secret-A' }] },
        { id: 'B', keys: [{ key: 'key-B', secret: 'secret-B' }] },
        { id: 'C', keys: [{ key: 'key-C', secret: 'secret-C' }] },
      ],
    },
  ],
};

/** The example's activity on 2026-11-20, the day before the tests' clock. */
export const EXAMPLE_HISTORY = {
  activity: WORKED_EXAMPLE.map((a) => ({ account: a.account, day: '2026-11-20', contracts: a.contracts })),
};

/** A model on a virtual clock at `start`; no fills unless asked. */
export async function model(
  start: string,
  options: ModelExchangeOptions = {},
): Promise<{ ex: RunningModelExchange; clock: VirtualClock }> {
  const clock = new VirtualClock({ wallStart: Date.parse(start) });
  const ex = await startModelExchange({ clock, fills: { maker: 0, taker: 0 }, ...options });
  return { ex, clock };
}

/** A JSON request: status, headers and parsed body. */
export async function call(
  ex: RunningModelExchange,
  method: string,
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${ex.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(key === undefined ? {} : { KEY: key }), ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: JSON.parse(text) as any };
}

/** The SIGN of a request (section 5). */
export function sign(secret: string, method: string, path: string, query: string, body: string, ts: string): string {
  const hashed = createHash('sha512').update(body).digest('hex');
  return createHmac('sha512', secret).update(`${method}\n${path}\n${query}\n${hashed}\n${ts}`).digest('hex');
}
