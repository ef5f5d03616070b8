import { describe, expect, it } from 'vitest';
import { AccountLimiter } from '../../src/account/limiter.js';
import { RedisStore } from '../../src/redis/store.js';
import { redisForFile } from './file-prefixes.js';
import { mostInAnyWindow } from './harness.js';
import { VirtualRedis, settleOn } from './virtual.js';

const { client, prefixFor } = redisForFile();

describe('account limiters on OKX sharing a Redis store', () => {
  it("keep the sub-account's new orders of two processes together under the tier per 2 s", async () => {
    const prefix = prefixFor('okx-limiters');
    const v = new VirtualRedis(client);
    await v.warm(prefix);
    const stores = [new RedisStore(v.options(prefix)), new RedisStore(v.options(prefix))];
    const limiters = stores.map(
      (store) =>
        new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }], store, clock: v.clock }),
    );
    const sent: number[] = [];
    // Each process 700 places over 20 instruments of its own (35 each, under 60 per 2 s): 1,400 in all.
    const tasks = limiters.flatMap((limiter, p) =>
      Array.from({ length: 700 }, (_, i) =>
        limiter
          .roundTrip('main', {
            method: 'POST',
            path: '/api/v5/trade/order',
            body: { instId: `P${p}X${i % 20}-USDT-SWAP`, side: 'buy', ordType: 'limit', sz: '1', px: '1' },
          })
          .run((t) => {
            sent.push(v.clock.now());
            t.answered({ status: 200, headers: {}, body: { code: '0', msg: '', data: [{ sCode: '0' }] } });
          }),
      ),
    );
    const settled = await settleOn(v, tasks, 60_000);
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);
    expect(sent).toHaveLength(1_400);
    expect(mostInAnyWindow(sent, 2_000)).toBe(1_000);
    for (const l of limiters) l.close();
    for (const s of stores) await s.close();
  });
});
