// A slow reference model of OKX's limit timeline, written from docs/okx.md and not from src/rules:
// every query is answered from the decisions alone, by exact integer arithmetic on the input as
// given. Fill ratio = unweighted volume / (new + amend requests x symbol multiplier), OKX's report
// figures where nothing is counted (9999 with volume, 0 without); eight tiers per 2 s; from 08:00
// UTC of day D until 08:00 of D+1 the higher of the tiers of the snapshots of D and D-1; the VIP
// level read at each snapshot (below 5: tier 1); a new sub-account at tier 1 until 08:00 of the
// day after its creation; the family rule with its 1,000,000 USDT threshold, or brokers.

import { DAY, HOUR, type ModelContract, type ModelInput, type ModelOptions } from '../timeline.model.js';

// The input and options are those of the Gate model (the VIP level defaulting to OKX's 5 here).
export { DAY, HOUR, type ModelInput, type ModelOptions };
export type ModelEntry = ModelContract;

/** Lower bounds of tiers 1..8 and their limits per 2 s. */
const BOUNDS = [0n, 1n, 2n, 3n, 5n, 10n, 20n, 50n];
export const LIMITS = [1000, 1250, 1500, 1750, 2000, 2500, 3000, 10_000];

/** The symbol multiplier x 10 of an instrument id, read from the table in docs/okx.md. */
export function multiplier10(id: string): bigint {
  const [base, quote] = id.split('-');
  const family = `${base}-${quote}`;
  const major = ['BTC-USDT', 'BTC-USD', 'ETH-USDT', 'ETH-USD'].includes(family);
  if (id.endsWith('-SWAP')) return major ? 10n : 2n;
  if (/-\d{6}-[\d.]+-[CP]$/.test(id)) return 1n; // options: 0.1
  if (/-\d{6}$/.test(id)) return major ? 3n : 1n; // expiry futures, by family
  return id === 'BTC-USDT' || id === 'ETH-USDT' ? 5n : 1n; // spot, by id
}

function units(text: string | undefined): bigint {
  if (text === undefined) return 0n;
  const [whole, fraction = ''] = text.split('.');
  return BigInt(whole!) * 10n ** 8n + BigInt(fraction.padEnd(8, '0'));
}

/** Sums in 1e-8 USDT and tenths of a weighted request. */
interface Sums {
  volume: bigint;
  weighted10: bigint;
}

function add(s: Sums, entries: readonly ModelEntry[]): void {
  for (const e of entries) {
    s.volume += units(e.makerVolume) + units(e.takerVolume);
    s.weighted10 += BigInt((e.place ?? 0) + (e.amend ?? 0)) * multiplier10(e.contract);
  }
}

/** The tier (1..8) of volume / weighted: ratio >= b <=> 10 x volume >= b x 1e8 x weighted10. */
export function tierOfSums(s: Sums): number {
  if (s.weighted10 === 0n) return s.volume === 0n ? 1 : 8; // 0, or 9999
  let tier = 1;
  for (let i = 0; i < BOUNDS.length; i++) if (10n * s.volume >= BOUNDS[i]! * 10n ** 8n * s.weighted10) tier = i + 1;
  return tier;
}

const dayOf = (t: number) => t - (((t % DAY) + DAY) % DAY);

export class OkxTimelineModel {
  private readonly memo = new Map<string, number>();
  private readonly vipChanges: readonly { at: number; level: number }[];

  constructor(
    private readonly input: ModelInput,
    private readonly options: ModelOptions = {},
  ) {
    this.vipChanges = [...(input.vipChanges ?? [])].sort((a, b) => a.at - b.at);
  }

  vipLevelAt(t: number): number {
    let level = this.input.vipLevel ?? 5;
    for (const v of this.vipChanges) if (v.at <= t) level = v.level;
    return level;
  }

  /** The tier the 00:00 UTC snapshot of `day` gives `account`: the family rule over [day - 7 d, day), VIP read then. */
  snapshotTier(account: string, day: number): number {
    const created = this.input.accounts.find((a) => a.id === account)?.createdAt;
    if (created !== undefined && created > day) return 1;
    if (this.vipLevelAt(day) < 5) return 1;
    const key = `${account} ${day}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    const own: Sums = { volume: 0n, weighted10: 0n };
    const family: Sums = { volume: 0n, weighted10: 0n };
    for (const a of this.input.activity) {
      if (a.day < day - 7 * DAY || a.day >= day) continue;
      add(family, a.contracts);
      if (a.account === account) add(own, a.contracts);
    }
    const threshold = BigInt(this.options.ownVolumeThreshold ?? 1_000_000) * 10n ** 8n;
    const tier =
      this.options.kind === 'broker'
        ? tierOfSums(own)
        : own.volume < threshold
          ? tierOfSums(family)
          : Math.max(tierOfSums(own), tierOfSums(family));
    this.memo.set(key, tier);
    return tier;
  }

  /** The tier (1..8) in force for `account` at `t`. */
  tierAt(account: string, t: number): number {
    const created = this.input.accounts.find((a) => a.id === account)?.createdAt;
    if (created !== undefined && t < dayOf(created) + DAY + 8 * HOUR) return 1;
    // From 08:00 of D until 08:00 of D+1: the higher of the snapshots of D and D-1.
    const d = dayOf(t - 8 * HOUR);
    return Math.max(this.snapshotTier(account, d), this.snapshotTier(account, d - DAY));
  }

  limitAt(account: string, t: number): number {
    return LIMITS[this.tierAt(account, t) - 1]!;
  }
}
