import { InvalidInputError } from '../errors.js';
import { checkFields, parseInstant } from '../internal/parse.js';
import type { TimelineAccount } from '../rules/timeline/timeline.js';
import { parseVipLevel } from '../rules/vip.js';
import type { Clock } from '../schedule/clock.js';
import type { FamilyState } from './family-state.js';
import { type Repeating, every } from './timers.js';
import { Tracker, type TrackerState } from './tracker.js';

/**
 * The limiter's state as plain, versioned JSON.
 *
 * @example
 * ```ts
 * import { AccountLimiter, type LimiterSnapshot } from 'traderatio'
 *
 * const limiter = new AccountLimiter({ accounts: [{ id: 'main' }], vipLevel: 2 })
 * const snapshot: LimiterSnapshot = JSON.parse(JSON.stringify(limiter.snapshot()))
 * limiter.close()
 * const restarted = new AccountLimiter({ accounts: snapshot.accounts })
 * restarted.restore(snapshot)
 * restarted.snapshot().vipLevel // 2
 * restarted.close()
 * ```
 */
export interface LimiterSnapshot {
  readonly format: 'traderatio.account-limiter';
  readonly version: 1;
  readonly at: number;
  readonly accounts: readonly TimelineAccount[];
  readonly vipLevel: number;
  readonly vipChanges: readonly { readonly at: number; readonly level: number }[];
  readonly tracker: TrackerState;
  /** Spot order requests and fills (see docs/rules.md#r14); absent in snapshots that predate it. */
  readonly spotTracker?: TrackerState;
}

const SNAPSHOT_VERSION = 1;
const SNAPSHOT_FIELDS: readonly string[] = [
  'format',
  'version',
  'at',
  'accounts',
  'vipLevel',
  'vipChanges',
  'tracker',
  'spotTracker',
];

/** An account of the family as the limiter keeps it: its own fields only. */
export function copyAccount(a: TimelineAccount): TimelineAccount {
  return {
    id: a.id,
    ...(a.role === undefined ? {} : { role: a.role }),
    ...(a.createdAt === undefined ? {} : { createdAt: a.createdAt }),
  };
}

/**
 * The state as a snapshot taken at `at`: plain, versioned JSON, copied (nothing of it is shared
 * with the state).
 */
export function snapshotOf(state: FamilyState, at: number): LimiterSnapshot {
  return {
    format: 'traderatio.account-limiter',
    version: SNAPSHOT_VERSION,
    at,
    accounts: state.accounts.map(copyAccount),
    vipLevel: state.vipLevel,
    vipChanges: state.vipChanges.map((v) => ({ ...v })),
    tracker: state.tracker.snapshot(),
    spotTracker: state.spotTracker.snapshot(),
  };
}

/**
 * Reads a snapshot back: the state it holds, with VIP changes in order. `check` is given the state
 * before the snapshot's own last check (every account counted is one of its accounts) and throws on
 * a state the limiter would refuse; its answer is returned with the state. A snapshot that is not
 * one, is corrupt, or comes from a later version is refused with an {@link InvalidInputError}.
 */
export function readSnapshot<T>(
  snapshot: unknown,
  check: (state: FamilyState) => T,
): { readonly state: FamilyState; readonly checked: T } {
  const s = snapshot as Partial<LimiterSnapshot>;
  if (typeof s !== 'object' || s === null || s.format !== 'traderatio.account-limiter') {
    throw new InvalidInputError(
      'the snapshot',
      snapshot,
      'an account limiter snapshot ({ format: "traderatio.account-limiter", ... })',
    );
  }
  checkFields(s, SNAPSHOT_FIELDS, 'the snapshot');
  if (s.version !== SNAPSHOT_VERSION) {
    throw new InvalidInputError(
      'the snapshot `version`',
      s.version,
      `version ${SNAPSHOT_VERSION} (this library reads no other)`,
    );
  }
  parseInstant(s.at, 'the snapshot `at`');
  const vipLevel = parseVipLevel(s.vipLevel, 'the snapshot `vipLevel`');
  if (!Array.isArray(s.accounts))
    throw new InvalidInputError('the snapshot `accounts`', s.accounts, 'an array of accounts');
  if (!Array.isArray(s.vipChanges))
    throw new InvalidInputError('the snapshot `vipChanges`', s.vipChanges, 'an array of VIP changes');
  const tracker = Tracker.restore(s.tracker as TrackerState);
  const spotTracker = s.spotTracker === undefined ? new Tracker() : Tracker.restore(s.spotTracker);
  const accounts = s.accounts;
  const checked = check({ accounts, vipLevel, vipChanges: s.vipChanges, tracker, spotTracker });
  for (const id of [...tracker.accountIds, ...spotTracker.accountIds]) {
    if (!accounts.some((a) => a.id === id))
      throw new InvalidInputError('an account of the snapshot tracker', id, 'an account listed in the snapshot');
  }
  return {
    state: {
      accounts: accounts.map(copyAccount),
      vipLevel,
      vipChanges: s.vipChanges.map((v) => ({ at: v.at, level: v.level })).sort((a, b) => a.at - b.at),
      tracker,
      spotTracker,
    },
    checked,
  };
}

/**
 * Saves a snapshot every `everyMs` milliseconds (the limiter's `persist` option): `save` is called
 * with `snapshot()`; one that throws or rejects is given to `fail`, and the next save runs as planned.
 */
export function saveEvery(
  clock: Clock,
  persist: { readonly everyMs: number; readonly save: (snapshot: LimiterSnapshot) => unknown },
  snapshot: () => LimiterSnapshot,
  fail: (error: unknown) => void,
): Repeating {
  const { everyMs, save } = persist;
  return every(clock, everyMs, () => {
    void Promise.resolve()
      .then(() => save(snapshot()))
      .catch(fail);
  });
}
