import type { TimelineAccount } from '../rules/timeline.js';
import type { TrackerState } from './tracker.js';

/** The limiter's state as plain, versioned JSON. */
export interface LimiterSnapshot {
  readonly format: 'traderatio.account-limiter';
  readonly version: 1;
  readonly at: number;
  readonly accounts: readonly TimelineAccount[];
  readonly vipLevel: number;
  readonly vipChanges: readonly { readonly at: number; readonly level: number }[];
  readonly tracker: TrackerState;
  /** Spot order requests and fills (R14); absent in snapshots that predate it. */
  readonly spotTracker?: TrackerState;
}

export const SNAPSHOT_VERSION = 1;
export const SNAPSHOT_FIELDS: readonly string[] = ['format', 'version', 'at', 'accounts', 'vipLevel', 'vipChanges', 'tracker', 'spotTracker'];

/** An account of the family as the limiter keeps it: its own fields only. */
export function copyAccount(a: TimelineAccount): TimelineAccount {
  return { id: a.id, ...(a.role === undefined ? {} : { role: a.role }), ...(a.createdAt === undefined ? {} : { createdAt: a.createdAt }) };
}
