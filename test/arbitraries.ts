import fc from 'fast-check';
import type { ContractActivity } from '../src/rules/ratio.js';
import type { TimelineInput } from '../src/rules/timeline/timeline.js';

/** A USDT amount as the API writes it: up to 12 integer digits and 8 decimals. */
export const amount = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.integer({ min: 0, max: 99_999_999 }))
  .map(([i, f]) => `${i}.${String(f).padStart(8, '0')}`);

/** A small request count. */
export const count = fc.integer({ min: 0, max: 5000 });

const contractNames = ['BTC_USDT', 'ETH_USDT', 'SOL_USDT', 'XRP_USDT', 'DOGE_USDT', '1000PEPE_USDT'];

/** One contract's activity. */
export const contractActivity = (contract: string): fc.Arbitrary<ContractActivity> =>
  fc
    .record({ makerVolume: amount, takerVolume: amount, place: count, amend: count, cancel: count })
    .map((r) => ({ contract, ...r }));

/** A list of contract activity, each contract at most once. */
export const contractList: fc.Arbitrary<ContractActivity[]> = fc
  .subarray(contractNames, { minLength: 0 })
  .chain((names) => fc.tuple(...names.map(contractActivity)))
  .map((list) => [...list]);

/** A family of 1 to 5 accounts. */
export const family = fc
  .integer({ min: 1, max: 5 })
  .chain((n) =>
    fc.tuple(
      ...Array.from({ length: n }, (_, i) => contractList.map((contracts) => ({ account: `acc${i}`, contracts }))),
    ),
  )
  .map((list) => [...list]);

const DAY = 86_400_000;
const START = Date.UTC(2026, 9, 1);

/** A timeline input: up to 4 accounts (some created late), 20 days of sparse activity, VIP changes. */
export const timelineInput: fc.Arbitrary<TimelineInput> = fc
  .record({
    accounts: fc.integer({ min: 1, max: 4 }),
    created: fc.array(fc.option(fc.integer({ min: 0, max: 20 * DAY }), { nil: undefined }), {
      minLength: 4,
      maxLength: 4,
    }),
    days: fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 19 }), contractList), {
      maxLength: 30,
    }),
    vip: fc
      .uniqueArray(fc.integer({ min: 0, max: 25 * DAY }), { maxLength: 4 })
      .chain((ats) =>
        fc.tuple(...ats.map((at) => fc.integer({ min: 12, max: 16 }).map((level) => ({ at: START + at, level })))),
      ),
    vipLevel: fc.integer({ min: 12, max: 16 }),
  })
  .map(({ accounts, created, days, vip, vipLevel }) => {
    const ids = Array.from({ length: accounts }, (_, i) => `acc${i}`);
    const createdAt = ids.map((_, i) =>
      i === 0 ? undefined : created[i] === undefined ? undefined : START + created[i]!,
    );
    const seen = new Set<string>();
    const activity = days
      .filter(([a, d]) => {
        if (a >= accounts) return false;
        const c = createdAt[a];
        if (c !== undefined && START + d * DAY < c - (c % DAY)) return false;
        const key = `${a}/${d}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      })
      .map(([a, d, contracts]) => ({ account: ids[a]!, day: START + d * DAY, contracts }));
    return {
      accounts: ids.map((id, i) => (createdAt[i] === undefined ? { id } : { id, createdAt: createdAt[i]! })),
      activity,
      vipLevel,
      vipChanges: [...vip],
    };
  });

// Input that every boundary refuses, by kind: what a property of "refused input changes nothing"
// interleaves with valid calls.
const T2026 = Date.UTC(2026, 10, 1);

/** Not an instant of 2000 to 2200 in epoch milliseconds: seconds or microseconds, negative, NaN, text. */
export const badInstant = fc.constantFrom<unknown>(
  Number.NaN,
  -1,
  0,
  9e15,
  T2026 * 1000,
  T2026 / 1000,
  T2026 + 0.5,
  Infinity,
  String(T2026),
  null,
);

/** Not a non-negative integer count. */
export const badCount = fc.constantFrom<unknown>(-1, -1000, 1.5, Number.NaN, Infinity, '50', '0x10', null);

/** Not a positive integer. */
export const badPositive = fc.oneof(fc.constant<unknown>(0), badCount);

/** Not a contract name. */
export const badContract = fc.constantFrom<unknown>('', 'bad name', 'BTC', 'BTC_', 'BTC__USDT', 5, null);

/** Not an id (accounts). */
export const badId = fc.constantFrom<unknown>('', ' main', 'main ', 5, null);

/** Not a non-negative USDT amount. */
export const badAmount = fc.constantFrom<unknown>('-5', 'abc', '1e', ' 1', '0x10', Number.NaN, -1, Infinity, null);

/**
 * A number from 0 to `max` in 128ths: the whole range, not only its ends, and every sum of them
 * exact in binary (a virtual clock adding them up never rounds an instant across a window's end).
 */
function millis(max: number): fc.Arbitrary<number> {
  return fc.integer({ min: 0, max: max * 128 }).map((x) => x / 128);
}

/**
 * A way to the exchange and back that changes as it likes (see docs/rules.md#r13): runs of requests whose forward
 * delay sits around a level (0 to 100 ms) that rises or drops at once from one run to the next,
 * each request's own delay drawn anew within the run's spread (so requests overtake each other),
 * and answers delayed on their way back independently of the way there.
 */
export const network = fc.record({
  runs: fc.array(fc.record({ requests: fc.integer({ min: 1, max: 40 }), level: millis(100), spread: millis(100) }), {
    minLength: 1,
    maxLength: 8,
  }),
  draws: fc.array(millis(1), { minLength: 1, maxLength: 64 }),
  back: fc.array(millis(100), { minLength: 1, maxLength: 64 }),
  gateway: fc.array(millis(5), { minLength: 1, maxLength: 16 }),
});

/** A value of {@link network}. */
export type Network = typeof network extends fc.Arbitrary<infer T> ? T : never;
