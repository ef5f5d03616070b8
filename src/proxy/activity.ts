import type { AccountLimiter } from '../account/limiter.js';

/** What an account has sent and been refused since the proxy started, for the status page's chart. */
export interface AccountActivity {
  /** Requests sent (REST and WebSocket order requests). */
  readonly all: number;
  /** Futures placements sent, counted per order as the exchange counts them (see docs/rules.md#r1). */
  readonly place: number;
  /** Answers 429 of the exchange relayed. */
  readonly answers429: number;
}

/**
 * Counts, per family and account, the requests the limiters send (from their schedulers' dispatch
 * events) and the answers 429 the proxy relays: cumulative counts, which the status page turns
 * into rates between two events.
 */
export class ActivityCounts {
  readonly #counts = new Map<string, { all: number; place: number; answers429: number }>();

  /** Counts what `limiter` (the family `family`) sends from now on; returns a function that stops it. */
  watch(limiter: AccountLimiter, family: string): () => void {
    const ids = limiter
      .snapshot()
      .accounts.map((a) => a.id)
      .sort((a, b) => b.length - a.length);
    return limiter.scheduler.on((event) => {
      if (event.type !== 'dispatch') return;
      const name = event.limits.find((n) => ids.some((id) => n.startsWith(`${id}:`)));
      if (name === undefined) return;
      const account = ids.find((id) => name.startsWith(`${id}:`))!;
      const c = this.#of(family, account);
      c.all += 1;
      if (event.limits.includes(`${account}:futures.place`)) c.place += event.weight;
    });
  }

  /** Counts an answer 429 relayed to `account` of `family`. */
  answered429(family: string, account: string): void {
    this.#of(family, account).answers429 += 1;
  }

  /** The counts of `account` of `family` so far. */
  of(family: string, account: string): AccountActivity {
    return { ...(this.#counts.get(`${family}\n${account}`) ?? { all: 0, place: 0, answers429: 0 }) };
  }

  #of(family: string, account: string): { all: number; place: number; answers429: number } {
    const key = `${family}\n${account}`;
    let c = this.#counts.get(key);
    if (c === undefined) this.#counts.set(key, (c = { all: 0, place: 0, answers429: 0 }));
    return c;
  }
}
