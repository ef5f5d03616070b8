import { AccountLimiter } from '../account/limiter.js';
import type { SharedCounts } from '../account/shared-counts.js';
import type { FamilySpec } from '../family-files/accounts-file.js';
import type { History, HistoryHour } from '../family-files/history.js';
import type { FamilyOptions } from '../rules/family.js';
import type { LimitStore } from '../schedule/store.js';
import { KeptWindows } from './kept-windows.js';
import type { ProxySettings } from './options.js';
import { StateFile } from './state-file.js';

/** The limiter of requests that carry no key: public endpoints, limited per IP (see docs/rules.md#r10), the proxy's. */
export const PUBLIC = 'public';

/** Each family's limiter (and the public one), the state file that keeps their counts, if any. */
export interface FamilyLimiters {
  /** By family id, and `public` for requests without a key. */
  readonly limiters: ReadonlyMap<string, AccountLimiter>;
  readonly stateFile: StateFile | null;
  /** When the state file it started from was written (epoch ms), or null when it started from none. */
  readonly restoredFrom: number | null;
}

/**
 * Makes a limiter per family of the accounts file, and the public one: each started from the
 * history, then from the state file where one was kept (which replaces what the history gave).
 * Nothing is left open when one of them fails.
 */
export function startLimiters(
  s: ProxySettings,
  stateFilePath: string | undefined,
  storeOf: ((family: string) => LimitStore & { counts?(): SharedCounts }) | undefined,
): FamilyLimiters {
  // Read before the limiters are made: their limits start from the windows it kept.
  const saved = stateFilePath === undefined ? null : StateFile.read(stateFilePath);
  const windows = new Map<string, KeptWindows>();
  const limiters = new Map<string, AccountLimiter>();
  try {
    for (const f of s.accounts.families) {
      // Without a shared store, each family's limits in memory, their windows kept in the state file.
      let store = storeOf?.(f.id);
      if (store === undefined && stateFilePath !== undefined) {
        const kept = new KeptWindows(s.clock, saved?.windows?.[f.id]);
        windows.set(f.id, kept);
        store = kept;
      }
      const limiter = new AccountLimiter({
        exchange: s.dialect.exchange,
        accounts: f.accounts,
        clock: s.clock,
        marginMs: s.marginMs,
        ...(f.vipLevel === undefined ? {} : { vipLevel: f.vipLevel }),
        ...((f.options as FamilyOptions | undefined) ?? {}),
        ...(store === undefined ? {} : { store }),
      });
      limiters.set(f.id, limiter);
      if (s.history !== undefined) seedFamily(limiter, f, s.history);
    }
    limiters.set(
      PUBLIC,
      new AccountLimiter({
        exchange: s.dialect.exchange,
        accounts: [{ id: PUBLIC }],
        clock: s.clock,
        marginMs: s.marginMs,
      }),
    );
    if (stateFilePath === undefined) return { limiters, stateFile: null, restoredFrom: null };
    const stateFile = new StateFile(
      stateFilePath,
      new Map([...limiters].filter(([family]) => family !== PUBLIC)),
      s.clock,
      windows,
    );
    return { limiters, stateFile, restoredFrom: saved === null ? null : stateFile.restore(saved) };
  } catch (e) {
    for (const l of limiters.values()) l.close();
    throw e;
  }
}

/** Seeds a family's limiter with the history of its own accounts. */
function seedFamily(limiter: AccountLimiter, family: FamilySpec, history: History): void {
  const ids = new Set(family.accounts.map((a) => a.id));
  const mine = <T extends { account: string }>(list: readonly T[] | undefined) =>
    (list ?? []).filter((x) => ids.has(x.account));
  const hours = (list: readonly HistoryHour[] | undefined) =>
    mine(list).map((h) => ({
      account: h.account,
      hour: h.hour,
      requests: h.requests,
      ...(h.traded === undefined ? {} : { traded: String(h.traded) }),
    }));
  limiter.seed({ days: mine(history.days), hours: hours(history.hours), spotHours: hours(history.spotHours) });
}
