import type { AccountRating } from '../../rules/family.js';

/** Where an account's limit at the start of a replay comes from. */
export type StartSource = 'history' | 'assumed' | 'vip' | 'new-sub-account';

/** An account's tier and limit when it enters a replay (at the log's first line, or its own), and why. */
export interface StartingTier {
  readonly account: string;
  /** The instant it was taken at: the log's first line, or the account's first line. */
  readonly at: number;
  readonly tier: number;
  /** Futures placement and amendment, requests per second. */
  readonly limit: number;
  /**
   * `history`: the latest 00:00 snapshot of the history given (see docs/rules.md#r5, #r7); `assumed`: no history, so
   * tier 1 (the exchange would rate the days before the log, which the replay does not have);
   * `vip`: VIP level below 14, tier 1 whatever the ratio (see docs/rules.md#r4); `new-sub-account`: created within
   * the history's or the log's days, tier 1 until 08:00 of the next day (see docs/rules.md#r8).
   */
  readonly source: StartSource;
  /** The snapshot that rates it, or null. */
  readonly snapshotAt: number | null;
  readonly rating: AccountRating | null;
  /** The reason of the tier in force (the rules' change reason, or `initial`). */
  readonly reason: string;
}

/** Refusals on one limit, by the reason the limit was what it was. */
export interface LimitRefusals {
  refused: number;
  /** By reason: `tier N (reason)` for the tier limit, the throttle's reason for a throttle, `endpoint` for the per-endpoint limits (see docs/rules.md#r10). */
  readonly reasons: Record<string, number>;
}

/** One account's figures over a replay. */
export interface AccountTally {
  readonly account: string;
  /** Requests in the log, public ones of the account's lines included. */
  requests: number;
  /** Refused with 429 as sent. */
  refused: number;
  readonly byLimit: Record<string, LimitRefusals>;
  /** Through the scheduler: requests sent later than given, the longest and the summed wait, ms. */
  delayed: number;
  maxWaitMs: number;
  totalWaitMs: number;
}

/** The requests of one UTC minute, as sent. */
export interface MinuteTally {
  /** The minute's start, epoch ms. */
  readonly minute: number;
  requests: number;
  refused: number;
  readonly byLimit: Record<string, number>;
  /** Refusals by account. */
  readonly byAccount: Record<string, number>;
}

/**
 * The window of a limit that went furthest over the N in force then (or came nearest to it), as
 * sent, refused requests included: how many it held, and that N.
 */
export interface WindowPeak {
  readonly account: string;
  readonly limit: string;
  readonly most: number;
  /** The most the count can tell (10 times the limit's largest N): `most` equal to it means at least as many. */
  readonly cap: number;
  readonly windowMs: number;
  /** N in force in that window. */
  readonly n: number;
}

/** A change of the limits in force for an account in a replay: its tier's limit and the abuse and spot low-fill throttles (see docs/rules.md#r9, #r14). */
export interface LimitChange {
  readonly at: number;
  readonly account: string;
  /** Futures placement and amendment, requests per second. */
  readonly limit: number;
  readonly tier: number;
  readonly reason: string;
  /** The abuse throttle (see docs/rules.md#r9), N per 10 s, or null. */
  readonly throttle: number | null;
  /** The spot low-fill throttle (see docs/rules.md#r14), N per 10 s, or null. */
  readonly spotThrottle: number | null;
}

/** Refusals by limit and reason, counted. */
export function countRefusal(byLimit: Record<string, LimitRefusals>, limit: string, reason: string, n = 1): void {
  const l = (byLimit[limit] ??= { refused: 0, reasons: {} });
  l.refused += n;
  l.reasons[reason] = (l.reasons[reason] ?? 0) + n;
}
