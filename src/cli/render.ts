import { Dec } from '../internal/decimal.js';
import type { AccountRating } from '../rules/family.js';
import type { RatioResult } from '../rules/ratio.js';
import type { InstrumentWeights } from '../rules/instruments.js';
import { rateUnit } from '../rules/rate-unit.js';
import { isTieredVip } from '../rules/vip.js';
import { HOUR_MS, formatUtcInstant } from '../rules/calendar.js';
import type { Throttle } from '../rules/abuse.js';
import type { TierStep } from '../rules/margins.js';
import type { Plan } from './plan.js';
import type { SpotFillOutlook } from './spot-hours.js';

export { rateUnit, rateUnitWords } from '../rules/rate-unit.js';

/** Decimal places of a ratio in text output. */
export const TEXT_RATIO_PLACES = 4;
/** Decimal places of a ratio in JSON output; `numerator` / `denominator` beside it are exact. */
export const JSON_RATIO_PLACES = 8;

/**
 * A ratio to `places` decimals (rounded half to even). Tiers are decided on the exact fraction,
 * never on this figure.
 */
export function ratioPlaces(ratio: Dec, places: number): string {
  return ratio.toFixed(places);
}

/** A ratio for people: 4 decimals, or "none" when no request was counted. */
export function ratioText(r: RatioResult): string {
  return r.ratio === null ? 'none' : ratioPlaces(r.ratio, TEXT_RATIO_PLACES);
}

/**
 * A fill ratio (USDT traded per request, see docs/rules.md#r9 and #r14) to 4 decimals, rounded down so that a ratio
 * under a threshold never prints as the threshold; "none" without requests.
 */
export function fillRatioText(requests: number, traded: Dec): string {
  return requests === 0 ? 'none' : traded.dividedBy(requests).toFixed(4, Dec.ROUND_DOWN);
}

/** A throttle's limit for people: "10 per 10 s". */
export function throttleText(t: { readonly limit: number; readonly windowMs: number }): string {
  return `${t.limit} per ${t.windowMs / 1000} s`;
}

/**
 * How requests on lighter instruments count, from the instrument weights: "Requests are counted
 * at coefficient 1 (the heaviest); at coefficient 0.4, 2.5 times as many."
 */
export function weightNote(weights: InstrumentWeights): string {
  const h = weights.heaviest;
  const lighter = [...weights.defaultWeights]
    .filter((w) => w.lessThan(h))
    .sort((a, b) => b.comparedTo(a))
    .map(
      (w, i) => `${i === 0 ? `${weights.weightName} ` : ''}${w.toFixed()}, ${h.dividedBy(w).toFixed()} times as many`,
    );
  return `Requests are counted at ${weights.weightName} ${h.toFixed()} (the heaviest)${lighter.length === 0 ? '' : `; at ${lighter.join('; at ')}`}.`;
}

/** An aligned plain-text table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const width = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** A USDT amount: 2 decimals, or as many as it has up to 8. */
export function usdt(d: Dec): string {
  return d.toFixed(d.decimalPlaces() > 2 ? Math.min(8, d.decimalPlaces()) : 2);
}

/** The plan as text. */
export function renderPlan(plan: Plan): string {
  const book = plan.rulebook;
  const unit = rateUnit(book);
  const tiered = isTieredVip(plan.vipLevel, book.tieredVipLevel);
  const head = [
    `Family: ${plan.accounts.length} account${plan.accounts.length === 1 ? '' : 's'}, VIP ${plan.vipLevel}${!tiered ? ` (below ${book.tieredVipLevel}: every account at tier 1)` : ''}; ${book.title}`,
    `Aggregated ratio ${ratioText(plan.aggregated)} (${plan.aggregated.numerator.toFixed()} / ${plan.aggregated.denominator.toFixed()}): tier ${plan.aggregatedTier}, ${plan.aggregatedLimit} ${unit}`,
    '',
  ];
  const rows = plan.accounts.map((a) => {
    const up = a.margins.up;
    const down = a.margins.down;
    return [
      a.account,
      ratioText(a.own),
      ratioText(a.effective),
      a.basis,
      String(a.tier),
      `${a.limit} ${unit}`,
      up === null
        ? '-'
        : `+${usdt(up.makerVolume)} maker USDT (${up.makerPath})${up.fewerRequests === null ? '' : ` or -${up.fewerRequests} request${up.fewerRequests === 1 ? '' : 's'} (${up.requestPath})`} -> ${up.tier.limit} ${unit}`,
      down === null
        ? '-'
        : `${usdt(down.makerVolume)} maker USDT or ${down.spareRequests} request${down.spareRequests === 1 ? '' : 's'}, then ${down.tier.limit} ${unit}`,
    ];
  });
  const notes = !tiered
    ? [
        `Below VIP ${book.tieredVipLevel} every account is at tier 1 whatever its ratio: no volume and no request count changes the limit.`,
      ]
    : [
        'To the tier above: the least maker volume to add, or the fewest requests to drop, that reach it, by whichever of the',
        "account's own ratio, the aggregated ratio or the own-volume threshold gets there first (named in brackets).",
        'Spare before the tier below: the maker volume that may be lost, or the requests that may be added, with the tier kept;',
        'any more drops it.',
        weightNote(book.ratio.instruments.resolve({})),
      ];
  return [
    ...head,
    table(
      [
        'account',
        'own ratio',
        'effective',
        'basis',
        'tier',
        'limit',
        'to the tier above',
        'spare before the tier below',
      ],
      rows,
    ),
    '',
    ...notes,
    ...(plan.spotFill === null ? [] : ['', ...renderSpotFill(plan.spotFill.current, plan.spotFill.accounts)]),
  ].join('\n');
}

/** A throttle in force, or "none". */
function throttleOrNone(t: Throttle | null): string {
  return t === null ? 'none' : `${throttleText(t)} (${t.reason})`;
}

/** The spot low-fill throttle now and at the next hourly check, with what keeps the next one clear (see docs/rules.md#r14). */
function renderSpotFill(current: number, accounts: readonly SpotFillOutlook[]): string[] {
  const next = formatUtcInstant(current + HOUR_MS);
  const rows = accounts.map((o) => [
    o.account,
    throttleOrNone(o.now.throttle),
    throttleOrNone(o.next.throttle),
    String(o.next.requests),
    usdt(o.next.traded),
    fillRatioText(o.next.requests, o.next.traded),
    o.next.throttle !== null
      ? `trade ${usdt(o.clearance.needed)} USDT more`
      : o.clearance.remaining === Infinity
        ? '-'
        : `${o.clearance.remaining} more spot request${o.clearance.remaining === 1 ? '' : 's'} fit`,
  ]);
  return [
    `Spot low-fill throttle (R14) during the hour from ${formatUtcInstant(current)} (the file's latest), and at the check of ${next}:`,
    '',
    table(
      ['account', 'now', 'next check', 'requests 24 h', 'traded USDT', 'fill ratio', 'to stay clear at the next check'],
      rows,
    ),
    '',
    'Now: what the check at the start of the hour put in force. Next check: what the check at its end decides on the 24 hours',
    "up to it (the figures shown; the file's latest hour as it stands), under 0.1 USDT per spot request throttling spot",
    'placement and amendment. To stay clear: the spot USDT to trade before it, or the spot requests that may still be sent.',
  ];
}

/** The spot low-fill throttle of a plan as JSON-ready data. */
function spotFillJson(current: number, accounts: readonly SpotFillOutlook[]): unknown {
  const throttle = (t: Throttle | null) =>
    t === null ? null : { limit: t.limit, windowMs: t.windowMs, reason: t.reason };
  return {
    current: formatUtcInstant(current),
    nextCheck: formatUtcInstant(current + HOUR_MS),
    accounts: accounts.map((o) => ({
      account: o.account,
      now: {
        checkedAt: formatUtcInstant(o.now.checkedAt),
        throttle: throttle(o.now.throttle),
        requests: o.now.requests,
        traded: o.now.traded.toFixed(),
      },
      next: {
        checkedAt: formatUtcInstant(o.next.checkedAt),
        throttle: throttle(o.next.throttle),
        requests: o.next.requests,
        traded: o.next.traded.toFixed(),
        remaining: o.clearance.remaining === Infinity ? null : o.clearance.remaining,
        needed: o.clearance.needed.toFixed(),
      },
    })),
  };
}

/** An account's rating as JSON-ready data: its own and effective ratios, their basis, its tier. */
export function accountRatingJson(a: AccountRating): {
  account: string;
  own: ReturnType<typeof ratioJson>;
  effective: ReturnType<typeof ratioJson>;
  basis: AccountRating['basis'];
  tier: number;
  limit: number;
} {
  return {
    account: a.account,
    own: ratioJson(a.own),
    effective: ratioJson(a.effective),
    basis: a.basis,
    tier: a.tier.tier,
    limit: a.tier.limit,
  };
}

/** A ratio as JSON-ready data: decimals as strings, the ratio to 8 places (exact: numerator / denominator), null when no request was counted. */
export function ratioJson(r: RatioResult): {
  ratio: string | null;
  numerator: string;
  denominator: string;
  volume: string;
} {
  return {
    ratio: r.ratio === null ? null : ratioPlaces(r.ratio, JSON_RATIO_PLACES),
    numerator: r.numerator.toFixed(),
    denominator: r.denominator.toFixed(),
    volume: r.volume.toFixed(),
  };
}

/** What reaches one tier above, as JSON-ready data. */
function stepJson(s: TierStep): unknown {
  return {
    tier: s.tier.tier,
    limit: s.tier.limit,
    makerVolume: s.makerVolume.toFixed(),
    makerPath: s.makerPath,
    requestWeight: s.requestWeight?.toFixed() ?? null,
    fewerRequests: s.fewerRequests,
    requestPath: s.requestPath,
  };
}

/** The plan as JSON-ready data: decimals as strings. */
export function planJson(plan: Plan): unknown {
  const ratio = ratioJson;
  return {
    exchange: plan.rulebook.name,
    windowMs: plan.rulebook.tiers.windowMs,
    vipLevel: plan.vipLevel,
    aggregated: { ...ratio(plan.aggregated), tier: plan.aggregatedTier, limit: plan.aggregatedLimit },
    accounts: plan.accounts.map((a) => ({
      account: a.account,
      own: ratio(a.own),
      effective: ratio(a.effective),
      basis: a.basis,
      tier: a.tier,
      limit: a.limit,
      up: a.margins.up === null ? null : stepJson(a.margins.up),
      steps: a.margins.steps.map(stepJson),
      down:
        a.margins.down === null
          ? null
          : {
              tier: a.margins.down.tier.tier,
              limit: a.margins.down.tier.limit,
              makerVolume: a.margins.down.makerVolume.toFixed(),
              spareRequests: a.margins.down.spareRequests,
            },
    })),
    spotFill: plan.spotFill === null ? null : spotFillJson(plan.spotFill.current, plan.spotFill.accounts),
  };
}
