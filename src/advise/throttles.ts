import {
  type AbuseConfig,
  type HourlyActivity,
  type Throttle,
  buildAbuseTimeline,
  checkAbuse,
} from '../rules/abuse.js';
import { HOUR_MS, parseUtcHour } from '../rules/calendar.js';
import { Dec } from '../internal/decimal.js';
import { type SpotFillConfig, buildSpotFillTimeline, checkSpotFill } from '../rules/spot-fill.js';
import { THROTTLE_WINDOW_HOURS } from '../rules/throttle-window.js';

/**
 * An hourly check at which a 24-hour throttle tripped, or came within the margin of tripping (see docs/rules.md#r9, #r14).
 *
 * @example
 * ```ts
 * import { type ThrottleNearMiss, advise } from 'traderatio/advise'
 *
 * const accounts = [{ account: 'A', contracts: [{ contract: 'BTC_USDT', makerVolume: '400', takerVolume: '100', place: 50, cancel: 40 }] }]
 * // 100 spot order requests in an hour, nothing filled: the low-fill throttle (see docs/rules.md#r14) trips.
 * const hours = [{ account: 'A', market: 'spot' as const, hours: [{ hour: '2026-11-21T10:00:00Z', requests: 100 }] }]
 * const first: ThrottleNearMiss | undefined = advise({ accounts, hours }).throttles[0]
 * first?.tripped // { limit: 10, windowMs: 10000, reason: 'no-fills' }
 * first?.clearVolume.toString() // '11'
 * ```
 */
export interface ThrottleNearMiss {
  readonly account: string;
  /** `futures`: the abuse throttle (see docs/rules.md#r9); `spot`: the spot low-fill throttle (see docs/rules.md#r14). */
  readonly market: 'futures' | 'spot';
  readonly rule: 'R9' | 'R14';
  /** The whole hour of the check: it looked at [checkedAt - 24 h, checkedAt). */
  readonly checkedAt: number;
  /** Requests and USDT traded in the window. */
  readonly requests: number;
  readonly traded: Dec;
  /** The throttle the check put in force, or `null` when it stayed clear. */
  readonly tripped: Throttle | null;
  /** Requests the margin allows for: `requests` plus the margin, rounded up. */
  readonly withMargin: number;
  /**
   * USDT more fill volume in the window that keeps the check clear with `withMargin` requests, as
   * the rule's own check decides (0 when the volume was there and only the count came close).
   */
  readonly clearVolume: Dec;
}

/**
 * The hourly checks of one account's 24-hour throttle (see docs/rules.md#r9 on futures, #r14 on spot) that tripped, or
 * would have tripped with `margin` (0.1: 10%) more requests in the window, each with the fill
 * volume that would have kept it clear. Every decision is the rule's own (buildAbuseTimeline,
 * buildSpotFillTimeline, checkAbuse, checkSpotFill). None where the rules have no such throttle
 * (`null`).
 */
export function throttleNearMisses(
  account: string,
  market: 'futures' | 'spot',
  hours: readonly HourlyActivity[],
  margin: Dec,
  config: { readonly abuse: AbuseConfig | null; readonly spotFill: SpotFillConfig | null },
): ThrottleNearMiss[] {
  const { abuse, spotFill } = config;
  if (hours.length === 0 || (market === 'futures' ? abuse : spotFill) === null) return [];
  const check =
    market === 'futures'
      ? (w: { requests: number; traded: Dec }) => checkAbuse(w, abuse!)
      : (w: { requests: number; traded: Dec }) => checkSpotFill(w, spotFill!);
  const timeline = market === 'futures' ? buildAbuseTimeline(hours, abuse!) : buildSpotFillTimeline(hours, spotFill!);
  const starts = hours.map((h, i) => parseUtcHour(h.hour, `\`hours[${i}].hour\``));
  const first = Math.min(...starts);
  const last = Math.max(...starts);
  const rate = market === 'futures' ? abuse!.fillRateThreshold : spotFill!.fillRateThreshold;
  const out: ThrottleNearMiss[] = [];
  // Every check whose window (see docs/rules.md#r9, #r14) holds one of the hours: the last holds `last` as its first.
  for (let at = first + HOUR_MS; at <= last + THROTTLE_WINDOW_HOURS * HOUR_MS; at += HOUR_MS) {
    const state = timeline.throttleAt(at);
    if (state.requests === 0) continue;
    const withMargin = new Dec(state.requests).times(margin.plus(1)).ceil().toNumber();
    if (state.throttle === null && check({ requests: withMargin, traded: state.traded }) === null) continue;
    // The rule throttles below the fill rate: exactly rate x requests is clear.
    const clearVolume = Dec.max(0, rate.times(withMargin).minus(state.traded));
    out.push({
      account,
      market,
      rule: market === 'futures' ? 'R9' : 'R14',
      checkedAt: at,
      requests: state.requests,
      traded: state.traded,
      tripped: state.throttle,
      withMargin,
      clearVolume,
    });
  }
  return out;
}
