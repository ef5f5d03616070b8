// The ccxt okx recipe of docs/integrations.md as an engine runs it against the model exchange on
// OKX (docs/okx.md): the limiter and the one line in front of the client, nothing added (no seed,
// no report call, no clock call), or the same client with ccxt's own throttle in its place. A run
// places as fast as answers come back over several swaps, cancels one order every 10 ms, and
// reads the model's counts each second: what test/integrations/okx.e2e.test.ts asserts and
// bench/okx.bench.ts measures side by side.
import ccxt from 'ccxt';
import { AccountLimiter } from '../../src/account/limiter.js';
import { limitCcxt } from '../../src/ccxt/index.js';
import type { ModelExchangeStats } from '../../src/model-exchange/index.js';
import { okxAt } from '../ccxt/helpers.js';
import { type Model, startModel } from './recipes.js';

/** The swaps the engine places on: `n` of them, none of OKX's heaviest (multiplier 0.2, docs/okx.md#o3). */
export function swaps(n: number): string[] {
  return Array.from({ length: n }, (_, i) => `X${i}`);
}

/** The model's markets: `names` as USDT swaps (`X0-USDT-SWAP`, ...), priced 100. */
function markets(names: readonly string[]) {
  const usdt = Object.fromEntries(names.map((n) => [`${n}_USDT`, { multiplier: '1', price: '100' }]));
  return { futures: { usdt }, spot: { BTC_USDT: { price: '60000' } } };
}

/** The family: one main account at VIP 5, its key as the recipe signs with it. */
const ACCOUNTS = {
  families: [
    {
      id: 'desk',
      vipLevel: 5,
      accounts: [
        {
          id: 'main',
          role: 'main' as const,
          keys: [{ key: 'main-key', secret: 'main-secret', passphrase: 'main-pass' }],
        },
      ],
    },
  ],
};

const DAY = 86_400_000;

/**
 * The family's history on the model, by OKX's instrument ids: `volume` USDT traded and `requests`
 * place requests on X0-USDT-SWAP (multiplier 0.2) on each of the days `daysBefore` before `now`'s.
 */
export function okxHistory(days: readonly { before: number; volume: string; requests: number }[], now: number) {
  const day = (n: number) => new Date(Math.floor(now / DAY) * DAY - n * DAY).toISOString().slice(0, 10);
  return {
    activity: days.map((d) => ({
      account: 'main',
      day: day(d.before),
      contracts: [{ contract: 'X0-USDT-SWAP', makerVolume: d.volume, place: d.requests }],
    })),
  };
}

/** What throttles the engine: the recipe's limiter, or ccxt's own throttle (`enableRateLimit`). */
export type OkxThrottle = 'limiter' | 'ccxt';

/** The recipe's engine: a ccxt okx instance pointed at the model, behind the limiter or ccxt's throttle. */
export async function okxEngine(ex: Pick<Model, 'url'>, throttle: OkxThrottle) {
  // docs/integrations.md, ccxt on OKX: the instance (its URLs pointed at the model), then the limiter.
  const okx = okxAt(ex);
  let limiter: AccountLimiter | null = null;
  if (throttle === 'limiter') {
    limiter = new AccountLimiter({ exchange: 'okx', accounts: [{ id: 'main', role: 'main' }] });
    limitCcxt(limiter, okx, { account: 'main' });
  } else okx.enableRateLimit = true;
  await okx.loadMarkets();
  return { okx, limiter };
}

/** What a run came to. */
export interface OkxRun {
  readonly throttle: OkxThrottle;
  /** Refusals for the rate the engine met (ccxt's RateLimitExceeded), and the model's count of them by code. */
  readonly refused: number;
  readonly refusedByCode: Readonly<Record<string, number>>;
  /** New orders the model accepted in each whole second. */
  readonly perSecond: readonly number[];
  /** Accepted per second from the second second on, over the tier's rate (its N per 2 s, halved). */
  readonly utilization: number;
  /** The limiter's limit in force at the end and where it came from (null with ccxt's throttle). */
  readonly limitNow: { readonly limit: number; readonly source: string } | null;
  /** The model's tier limit at the end (per 2 s). */
  readonly modelLimit: number;
  /** The instants (the limiter's clock) of the limiter's lowerings of the tier limit. */
  readonly lowered: readonly number[];
}

/** The model's count of the account's new orders accepted on the sub-account limit, and its refusals by code. */
async function counts(ex: Model): Promise<{ accepted: number; refused: Record<string, number> }> {
  const stats: ModelExchangeStats = await ex.stats();
  const main = stats.accounts.find((a) => a.account === 'main')!;
  const accepted = main.limits.filter((l) => l.key === 'sub-account').reduce((n, l) => n + l.accepted, 0);
  return { accepted, refused: { ...main.refused } };
}

/**
 * One run: a fresh model on OKX (in a worker thread of its own) whose history gives the tier,
 * the engine as the recipe shows it, `workers` loops each placing over `instruments` swaps in
 * turn as fast as answers come back, a cancel of the latest order every 10 ms, for `runMs`.
 */
export async function runOkxRecipe(options: {
  readonly throttle: OkxThrottle;
  readonly runMs: number;
  /** The tier's N per 2 s the model's history gives (1,000 with none). */
  readonly limit: number;
  readonly history?: ReturnType<typeof okxHistory>;
  readonly instruments?: number;
  readonly workers?: number;
  readonly startAt?: number;
}): Promise<OkxRun> {
  const names = swaps(options.instruments ?? 20);
  const ex = await startModel(
    {
      port: 0,
      exchange: 'okx',
      accounts: ACCOUNTS,
      markets: markets(names),
      fills: { maker: 0, taker: 0 },
      ...(options.history === undefined ? {} : { history: options.history }),
      ...(options.startAt === undefined ? {} : { startAt: options.startAt }),
    },
    true,
  );
  const { okx, limiter } = await okxEngine(ex, options.throttle);
  const lowered: number[] = [];
  limiter?.on((e) => {
    if (e.type === 'limit' && e.to < e.from) lowered.push(e.at);
  });
  try {
    const symbols = names.map((n) => `${n}/USDT:USDT`);
    const start = performance.now();
    const end = start + options.runMs;
    const marks: Promise<{ accepted: number }>[] = [counts(ex)];
    const ticker = setInterval(() => marks.push(counts(ex)), 1_000);
    let refused = 0;
    let next = 0;
    let lastId: { id: string; symbol: string } | undefined;
    // ccxt reads a request's 50011 or 50061 as RateLimitExceeded; an order of a batch refused
    // alone (code "1", its sCode) as an ExchangeError naming the code.
    const tooMany = (e: unknown) => {
      if (
        e instanceof ccxt.RateLimitExceeded ||
        (e instanceof ccxt.ExchangeError && /"sCode":"500(11|61)"/.test(e.message))
      )
        refused++;
      else throw e;
    };
    const worker = async () => {
      while (performance.now() < end) {
        const symbol = symbols[next++ % symbols.length]!;
        try {
          const o = await okx.createOrder(symbol, 'limit', 'buy', 1, 50);
          lastId = { id: o.id!, symbol };
        } catch (e) {
          tooMany(e);
        }
      }
    };
    const canceller = async () => {
      while (performance.now() < end) {
        await new Promise((r) => setTimeout(r, 10));
        const last = lastId;
        if (last === undefined) continue;
        lastId = undefined;
        try {
          await okx.cancelOrder(last.id, last.symbol);
        } catch (e) {
          tooMany(e);
        }
      }
    };
    await Promise.all([...Array.from({ length: options.workers ?? 32 }, worker), canceller()]);
    clearInterval(ticker);
    const seen = await Promise.all(marks);
    const perSecond = seen.slice(1).map((m, i) => m.accepted - seen[i]!.accepted);
    const later = perSecond.slice(1);
    const rate = options.limit / 2;
    const utilization = later.length === 0 ? 0 : later.reduce((a, b) => a + b, 0) / (later.length * rate);
    const final = await counts(ex);
    const stats = await ex.stats();
    const status = limiter?.limitNow('main');
    return {
      throttle: options.throttle,
      refused,
      refusedByCode: final.refused,
      perSecond,
      utilization,
      limitNow: status === undefined ? null : { limit: status.limit, source: status.source },
      modelLimit: stats.accounts.find((a) => a.account === 'main')!.limit,
      lowered,
    };
  } finally {
    limiter?.close();
    await ex.close();
  }
}
