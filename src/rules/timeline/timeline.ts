// A family's limit timeline (see docs/rules.md#r1 to #r8, docs/okx.md#o7): its input read
// (timeline/input.ts), the 00:00 ratings taken (timeline/snapshots.ts), the events replayed
// (timeline/replay.ts), and the queries at an instant (timeline/queries.ts).
import { InvalidInputError } from '../../errors.js';
import { utcDayStart } from '../calendar.js';
import { type FamilyConfig, type FamilyOptions, resolveFamilyOptions } from '../family.js';
import { checkFields } from '../../internal/parse.js';
import { parseVipLevel } from '../vip.js';
import { TIMELINE_INPUT_FIELDS, type TimelineInput, readAccounts, readActivity, readVipChanges } from './input.js';
import { type Timeline, timelineQueries } from './queries.js';
import { replay } from './replay.js';
import { takeSnapshots } from './snapshots.js';

export type { DailyActivity, TimelineAccount, TimelineInput, VipChange } from './input.js';
export type { Timeline, TierState } from './queries.js';
export type { ChangeReason, TierChange } from './replay.js';
export type { DailyRating } from './snapshots.js';

/**
 * Computes the limit timeline of a family by its rulebook's timing (see docs/rules.md#r5 to #r8,
 * docs/okx.md#o7): every snapshot at 00:00 UTC over the 7 days before it, raises at 08:00,
 * lowerings at once (Gate) or a day later (OKX), VIP changes and new sub-accounts. Queries then
 * cost a binary search.
 *
 * @example
 * ```ts
 * import { buildTimeline } from 'traderatio/rules'
 *
 * const timeline = buildTimeline({
 *   accounts: [{ id: 'main', role: 'main' }],
 *   activity: [{ account: 'main', day: '2026-11-01', contracts: [{ contract: 'BTC_USDT', makerVolume: '600', place: 100 }] }],
 * })
 * timeline.limitAt('main', Date.parse('2026-11-02T07:59:59.999Z')).limit // 100
 * timeline.limitAt('main', Date.parse('2026-11-02T08:00:00.000Z')).limit // 250
 * ```
 */
export function buildTimeline(input: TimelineInput, options?: FamilyOptions): Timeline;
/** @internal */
export function buildTimeline(input: TimelineInput, options?: FamilyOptions | FamilyConfig): Timeline;
export function buildTimeline(input: TimelineInput, options: FamilyOptions | FamilyConfig = {}): Timeline {
  const config = resolveFamilyOptions(options);
  if (typeof input !== 'object' || input === null) throw new InvalidInputError('`input`', input, 'an object');
  checkFields(input, TIMELINE_INPUT_FIELDS, 'the timeline input');
  const accounts = readAccounts(input.accounts);
  const initialVip = parseVipLevel(
    input.vipLevel ?? config.rulebook.tieredVipLevel,
    '`vipLevel`',
    config.rulebook.highestVipLevel,
  );
  const vipChanges = readVipChanges(input.vipChanges ?? [], config.rulebook.highestVipLevel);
  const ids = [...accounts.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map(ids.map((id, i) => [id, i]));
  const days = readActivity(input.activity, accounts, index, config);

  const mentioned = [
    ...(days.first === undefined ? [] : [days.first]),
    ...vipChanges.map((v) => utcDayStart(v.at)),
    ...[...accounts.values()].flatMap((a) => (a.createdAt === undefined ? [] : [utcDayStart(a.createdAt)])),
  ];
  const start = mentioned.length === 0 ? 0 : Math.min(...mentioned);

  const createdAt = ids.map((id) => accounts.get(id)!.createdAt);
  const snapshots = takeSnapshots(ids, createdAt, days, config);
  const replayed = replay(ids, createdAt, initialVip, vipChanges, snapshots, config);
  return timelineQueries(start, accounts, ids, replayed, snapshots, initialVip, config.tiers[0]!);
}
