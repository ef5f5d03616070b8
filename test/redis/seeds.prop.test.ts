// Seeded history merges per account, day and hour (see docs/rules.md#r1, #r9): several processes seeding
// overlapping fetches of one history, in any order, leave in Redis the counts of their union,
// never a day or an hour counted twice.
import { fc, test } from '@fast-check/vitest';
import { afterAll, expect } from 'vitest';
import type { SharedTotals } from '../../src/account/shared-counts.js';
import type { TrackerState } from '../../src/account/tracker.js';
import { RedisStore } from '../../src/redis/store.js';
import { cleanPrefix, connect, uniquePrefix } from './harness.js';

const client = connect();
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await cleanPrefix(client, p);
  client.disconnect();
}, 60_000);

const HOUR = 3_600_000;
const DAY = 86_400_000;
const HOURS = 5;
const DAYS = 3;

/**
 * A history that grows: for each of the last HOURS hours and DAYS days, three versions of its
 * counts as fetched at three instants, each holding at least what the one before held.
 */
const growing = fc.array(fc.tuple(fc.nat(50_000), fc.nat(50_000), fc.nat(50_000), fc.nat(50_000)), {
  minLength: 3,
  maxLength: 3,
});
const history = fc.record({
  hours: fc.array(growing, { minLength: HOURS, maxLength: HOURS }),
  days: fc.array(growing, { minLength: DAYS, maxLength: DAYS }),
});

/** Version `v` of a bucket: requests and volume (thousandths), each the sum of the steps so far. */
function version(
  steps: readonly (readonly [number, number, number, number])[],
  v: number,
): { requests: number; volume: string; cancels: number } {
  let requests = 0;
  let milli = 0;
  let cancels = 0;
  for (let i = 0; i <= v; i++) {
    requests += steps[i]![0];
    milli += steps[i]![1] * 1000 + steps[i]![2];
    cancels += steps[i]![3];
  }
  return { requests, volume: (milli / 1000).toFixed(3), cancels };
}

/** A fetch at instant `v` (0, 1 or 2) of the hours and days in [from, to): what a process seeds. */
type History = { hours: [number, number, number, number][][]; days: [number, number, number, number][][] };

function fetchOf(h: History, now: number, v: number, hours: [number, number], days: [number, number]): TrackerState {
  const hour0 = Math.floor(now / HOUR) * HOUR - HOURS * HOUR;
  const day0 = Math.floor(now / DAY) * DAY - DAYS * DAY;
  const hs = [];
  for (let i = hours[0]; i < hours[1]; i++) {
    const x = version(h.hours[i]!, v);
    hs.push({
      account: 'main',
      hour: new Date(hour0 + i * HOUR).toISOString(),
      requests: x.requests,
      traded: x.volume,
    });
  }
  const ds = [];
  for (let i = days[0]; i < days[1]; i++) {
    const x = version(h.days[i]!, v);
    ds.push({
      account: 'main',
      day: new Date(day0 + i * DAY).toISOString().slice(0, 10),
      contracts: [
        {
          contract: 'BTC_USDT',
          makerVolume: x.volume,
          takerVolume: '0',
          place: x.requests,
          amend: 0,
          cancel: x.cancels,
        },
      ],
    });
  }
  return { latest: null, days: ds, hours: hs };
}

const range = (n: number) =>
  fc.tuple(fc.nat(n), fc.nat(n)).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as [number, number]);
const seedArb = fc.record({
  process: fc.nat(2),
  version: fc.nat(2),
  hours: range(HOURS),
  days: range(DAYS),
  wait: fc.boolean(),
});

/** The totals a new process reads from Redis. */
async function totals(prefix: string): Promise<SharedTotals> {
  const store = new RedisStore({ client, prefix });
  const counts = store.counts();
  const got = await new Promise<SharedTotals>((resolve) =>
    counts.start(
      () => ['main'],
      () => Date.now(),
      resolve,
    ),
  );
  await store.close();
  return got;
}

test.prop([history, fc.array(seedArb, { minLength: 1, maxLength: 6 })], { numRuns: 12 })(
  'any interleaving of overlapping seeds from several processes gives the counts of their union',
  async (h, seeds) => {
    const prefix = uniquePrefix('seeds');
    prefixes.push(prefix);
    const now = Date.now();
    const stores = [0, 1, 2].map(() => new RedisStore({ client, prefix, countFlushMs: 5 }));
    const counts = stores.map((s) => s.counts());
    for (const c of counts)
      c.start(
        () => ['main'],
        () => now,
        () => {},
      );
    // The union: per bucket, the latest version any seed fetched of it.
    const latestHour = new Array<number>(HOURS).fill(-1);
    const latestDay = new Array<number>(DAYS).fill(-1);
    for (const s of seeds) {
      counts[s.process]!.seed(
        fetchOf(h, now, s.version, s.hours, s.days),
        { latest: null, days: [], hours: [] },
        'merge',
      );
      for (let i = s.hours[0]; i < s.hours[1]; i++) latestHour[i] = Math.max(latestHour[i]!, s.version);
      for (let i = s.days[0]; i < s.days[1]; i++) latestDay[i] = Math.max(latestDay[i]!, s.version);
      if (s.wait) await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(stores.map((s) => s.close()));
    const t = await totals(prefix);
    const hour0 = Math.floor(now / HOUR) * HOUR - HOURS * HOUR;
    const day0 = Math.floor(now / DAY) * DAY - DAYS * DAY;
    const expectedHours = latestHour.flatMap((v, i) => {
      if (v < 0) return [];
      const x = version(h.hours[i]!, v);
      return x.requests === 0 && x.volume === '0.000'
        ? []
        : [{ hour: hour0 + i * HOUR, requests: x.requests, traded: String(Number(x.volume)) }];
    });
    expect(t.futures.hourlyActivity('main').map((a) => ({ ...a, traded: String(Number(a.traded)) }))).toEqual(
      expectedHours,
    );
    const expectedDays = latestDay.flatMap((v, i) => {
      if (v < 0) return [];
      const x = version(h.days[i]!, v);
      return x.requests + x.cancels === 0 && x.volume === '0.000'
        ? []
        : [{ day: day0 + i * DAY, requests: x.requests + x.cancels, volume: Number(x.volume) }];
    });
    const days = t.futures.dailyActivity().map((d) => ({
      day: d.day,
      requests: d.contracts.reduce((n, c) => n + (c.place ?? 0) + (c.amend ?? 0) + (c.cancel ?? 0), 0),
      volume: d.contracts.reduce((n, c) => n + Number(c.makerVolume), 0),
    }));
    expect(days).toEqual(expectedDays);
  },
  60_000,
);
