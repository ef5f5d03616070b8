import { createHmac } from 'node:crypto';
import WebSocket from 'ws';
import type { RunningModelExchange } from '../../src/model-exchange/server.js';
import type { VirtualClock } from '../../src/testing/virtual-clock.js';

/** One OKX key of the tests' accounts. */
export interface OkxKey {
  readonly key: string;
  readonly secret: string;
  readonly passphrase: string;
}

export const KEY_A: OkxKey = { key: 'okx-a', secret: 'secret-a', passphrase: 'pass-a' };

/** One family at VIP 5 (OKX tiers from there): main account A with {@link KEY_A}. */
export const OKX_ACCOUNTS = {
  families: [{ id: 'desk', vipLevel: 5, accounts: [{ id: 'A', role: 'main' as const, keys: [KEY_A] }] }],
};

/** OKX's REST signature (O10), written from its definition for the tests. */
export function okxSign(secret: string, ts: string, method: string, path: string, body: string): string {
  return createHmac('sha256', secret)
    .update(ts + method + path + body)
    .digest('base64');
}

/**
 * A signed OKX request at the machine instant `signedAt` (the clock signatures are checked
 * against): status and parsed body.
 */
export async function okxCall(
  ex: RunningModelExchange,
  clock: VirtualClock,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  k: OkxKey = KEY_A,
  change: (h: Record<string, string>) => Record<string, string> = (h) => h,
): Promise<{ status: number; body: any }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const ts = new Date(Math.floor(clock.wall())).toISOString();
  const headers = change({
    'Content-Type': 'application/json',
    'OK-ACCESS-KEY': k.key,
    'OK-ACCESS-SIGN': okxSign(k.secret, ts, method, path, text),
    'OK-ACCESS-TIMESTAMP': ts,
    'OK-ACCESS-PASSPHRASE': k.passphrase,
  });
  const res = await fetch(`${ex.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: text }) });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** `n` limit orders on `instId` (bought one contract far below the price: they rest). */
export const orders = (instId: string, n: number, extra: object = {}) =>
  Array.from({ length: n }, () => ({
    instId,
    tdMode: 'cross',
    side: 'buy',
    ordType: 'limit',
    sz: '1',
    px: '1000',
    ...extra,
  }));

/** A WebSocket to the model, with its answers read in order. */
export async function okxSocket(ex: RunningModelExchange) {
  const ws = new WebSocket(`${ex.wsUrl}/ws/v5/private`);
  const answers: string[] = [];
  const waiting: ((s: string) => void)[] = [];
  ws.on('message', (d) => {
    const w = waiting.shift();
    if (w === undefined) answers.push(String(d));
    else w(String(d));
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const send = (msg: unknown): Promise<any> => {
    ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
    return new Promise<string>((resolve) => {
      const a = answers.shift();
      if (a === undefined) waiting.push(resolve);
      else resolve(a);
    }).then((s) => (s === 'pong' ? s : JSON.parse(s)));
  };
  return { send, close: () => ws.close() };
}

/** A's activity of 2026-11-20: fill ratio 12 at the snapshot of 11-21, tier 2,500 from 08:00. */
export const RATIO_12_HISTORY = {
  activity: [
    { account: 'A', day: '2026-11-20', contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '1200', place: 100 }] },
  ],
};

/**
 * Snapshots of 11-02 (ratio 12: 2,500 per 2 s) and 11-03 (1,200 / 300 = 4: 1,750): the lowering
 * lands at 2026-11-04T08:00Z, a day after its snapshot.
 */
export const LOWERING_HISTORY = {
  activity: [
    { account: 'A', day: '2026-11-01', contracts: [{ contract: 'BTC-USDT-SWAP', makerVolume: '1200', place: 100 }] },
    { account: 'A', day: '2026-11-02', contracts: [{ contract: 'BTC-USDT-SWAP', place: 200 }] },
  ],
};

/**
 * Lets every request a limiter (or proxy) has let go reach the model and come back: until the
 * model's count of its first account's requests holds still for 250 ms.
 */
export async function settled(clock: VirtualClock, ex: RunningModelExchange): Promise<void> {
  let seen = -1;
  for (let still = 0; still < 5; ) {
    await clock.advance(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = ex.stats().accounts[0]!.accepted;
    still = now === seen ? still + 1 : 0;
    seen = now;
  }
}
