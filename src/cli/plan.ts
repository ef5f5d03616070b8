import { type FamilyConfig, type FamilyOptions, rateFamily, resolveFamilyOptions } from '../rules/family.js';
import { GATE } from '../rules/gate/rulebook.js';
import type { Rulebook } from '../rules/rulebook.js';
import { tierOfRatio } from '../rules/tiers.js';
import { isTieredVip, tierInForce } from '../rules/vip.js';
import { type AccountMargins, accountMargins } from '../rules/margins.js';
import type { ContractActivity, RatioResult } from '../rules/ratio.js';
import { UnknownFieldError } from '../errors.js';
import { checkFields } from '../internal/parse.js';
import { type Row, readCsv } from './csv/read-csv.js';
import { InputFileError, atRow } from './input.js';
import { readJson } from './read-json.js';
import { type SpotFillOutlook, type SpotHour, readSpotHour, spotFillOutlook, spotTimelines } from './spot-hours.js';
import { wholeNumber } from './whole-number.js';

const COLUMNS = [
  'account',
  'contract',
  'maker_volume',
  'taker_volume',
  'place',
  'amend',
  'cancel',
  'hour',
  'spot_requests',
  'spot_traded',
];
/** The same fields in a JSON file, spelt as the library spells them. */
const JSON_FIELDS = [
  'account',
  'contract',
  'makerVolume',
  'takerVolume',
  'place',
  'amend',
  'cancel',
  'hour',
  'spotRequests',
  'spotTraded',
];
/** The columns of a row of 7-day figures, and of a row of an hour's spot activity. */
const WEEK_COLUMNS = COLUMNS.slice(1, 7);
const SPOT_COLUMNS = COLUMNS.slice(8);

/** A family's 7-day activity read from a plan file, and its accounts' hourly spot activity. */
export interface PlanInput {
  readonly accounts: readonly {
    readonly account: string;
    readonly contracts: ContractActivity[];
    readonly line: number;
  }[];
  /** Hours of spot requests and USDT traded (see docs/rules.md#r14), in the file's order. */
  readonly spotHours: readonly SpotHour[];
}

/**
 * Reads a plan file: CSV with a header row, or JSON (an array of objects). CSV columns are
 * snake_case: account, contract, maker_volume, taker_volume, place, amend, cancel (the last five
 * default to 0); JSON fields are camelCase, as the library spells them (makerVolume, takerVolume).
 * A row with an `hour` instead of a contract is an hour of the account's spot activity (see docs/rules.md#r14):
 * spot_requests and spot_traded (spotRequests, spotTraded in JSON). An unknown column or field is
 * refused with the closest known one. Each account and contract, and each account and hour, once.
 * A name ending in .json or .csv says which; otherwise (standard input) JSON is told by its
 * opening bracket. Instruments are named as `rulebook`'s exchange names them (Gate's `BTC_USDT`,
 * OKX's `BTC-USDT-SWAP`); hours of spot activity only where the rulebook has the spot low-fill
 * throttle.
 */
export function readPlan(file: string, text: string, rulebook: Rulebook = GATE): PlanInput {
  const config = resolveFamilyOptions({}, rulebook);
  const json = /\.json$/i.test(file) || (!/\.csv$/i.test(file) && /^\s*\[/.test(text));
  const rows = json ? jsonRows(file, text) : readCsv(file, text, ['account', 'contract'], COLUMNS);
  const accounts = new Map<string, { account: string; contracts: ContractActivity[]; line: number }>();
  const spotHours: SpotHour[] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const f = row.fields;
    // A column as the file spells it: the JSON field, or the CSV header's own cell.
    const name = (column: string): string =>
      json ? JSON_FIELDS[COLUMNS.indexOf(column)]! : (row.spelled?.[column] ?? column);
    const account = f.account ?? '';
    if (account === '') throw new InputFileError(file, row.line, `the field \`${name('account')}\` is empty`);
    const given = (columns: readonly string[]) => columns.filter((c) => (f[c] ?? '') !== '').map(name);
    if ((f.hour ?? '') !== '') {
      if (rulebook.throttles.spotFill === null)
        throw new InputFileError(
          file,
          row.line,
          `Expected no \`${name('hour')}\` under ${rulebook.title}, got "${f.hour}": an hour of spot activity is read for the spot low-fill throttle, which ${rulebook.name} does not have`,
        );
      const extra = given(WEEK_COLUMNS);
      if (extra.length > 0)
        throw new InputFileError(
          file,
          row.line,
          `a row with an \`${name('hour')}\` is an hour of spot activity (${SPOT_COLUMNS.map(name).join(', ')}): it takes no ${extra.map((c) => `\`${c}\``).join(', ')}`,
        );
      const h = atRow(file, row.line, () =>
        readSpotHour(
          account,
          [f.hour, f.spot_requests ?? '', f.spot_traded],
          ['hour', ...SPOT_COLUMNS].map(name) as [string, string, string],
        ),
      );
      const key = `${account}\u0001${h.hour}`;
      const first = seen.get(key);
      if (first !== undefined)
        throw new InputFileError(
          file,
          row.line,
          `account ${account} lists the hour ${f.hour} again (first on line ${first})`,
        );
      seen.set(key, row.line);
      spotHours.push(h);
      continue;
    }
    const spot = given(SPOT_COLUMNS);
    if (spot.length > 0)
      throw new InputFileError(
        file,
        row.line,
        `${spot.map((c) => `\`${c}\``).join(', ')} ${spot.length === 1 ? 'belongs' : 'belong'} to an hour of spot activity: give its \`${name('hour')}\``,
      );
    const contract = f.contract ?? '';
    const key = `${account}\u0000${(config.ratio.weights.nameOf(contract) ?? contract).toUpperCase()}`;
    const first = seen.get(key);
    if (first !== undefined)
      throw new InputFileError(file, row.line, `account ${account} lists ${contract} again (first on line ${first})`);
    seen.set(key, row.line);
    const count = (column: string): number | undefined => {
      const v = f[column];
      if (v === undefined || v === '') return undefined;
      const n = wholeNumber(v);
      if (n === undefined)
        throw new InputFileError(
          file,
          row.line,
          `Expected \`${name(column)}\` to be a non-negative integer, got "${v}"`,
        );
      return n;
    };
    const entry: ContractActivity = {
      contract,
      ...(f.maker_volume ? { makerVolume: f.maker_volume } : {}),
      ...(f.taker_volume ? { takerVolume: f.taker_volume } : {}),
      ...(count('place') === undefined ? {} : { place: count('place')! }),
      ...(count('amend') === undefined ? {} : { amend: count('amend')! }),
      ...(count('cancel') === undefined ? {} : { cancel: count('cancel')! }),
    };
    // Validates the entry now, so that an error names its line and the file's own column names.
    try {
      atRow(file, row.line, () => rateFamily([{ account, contracts: [entry] }], config));
    } catch (e) {
      if (e instanceof InputFileError) {
        const message = e.message.slice(e.message.indexOf(': ') + 2);
        throw new InputFileError(
          file,
          row.line,
          json
            ? message
            : message
                .replace('`makerVolume`', `\`${name('maker_volume')}\``)
                .replace('`takerVolume`', `\`${name('taker_volume')}\``)
                .replace('`contract`', `\`${name('contract')}\``),
        );
      }
      throw e;
    }
    let a = accounts.get(account);
    if (a === undefined) accounts.set(account, (a = { account, contracts: [], line: row.line }));
    a.contracts.push(entry);
  }
  if (accounts.size === 0) {
    throw new InputFileError(
      file,
      1,
      spotHours.length === 0
        ? 'no activity: the file needs at least one row'
        : 'no 7-day figures: the file needs at least one row with a contract beside its spot hours',
    );
  }
  return { accounts: [...accounts.values()], spotHours };
}

function jsonRows(file: string, text: string): Row[] {
  const { value, lineOf } = readJson(file, text);
  if (!Array.isArray(value))
    throw new InputFileError(file, 1, 'Expected an array of rows ({ "account", "contract", "makerVolume", ... })');
  return value.map((item, i) => {
    const line = lineOf([i]);
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw new InputFileError(file, line, `Expected row ${i} to be an object`);
    try {
      checkFields(item, JSON_FIELDS, `row ${i}`);
    } catch (e) {
      if (e instanceof UnknownFieldError) throw new InputFileError(file, lineOf([i, e.key]), e.message);
      throw e;
    }
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(item as Record<string, unknown>)) {
      if (typeof v !== 'string' && typeof v !== 'number')
        throw new InputFileError(
          file,
          lineOf([i, k]),
          `Expected \`${k}\` to be a string or a number, got ${JSON.stringify(v)}`,
        );
      fields[COLUMNS[JSON_FIELDS.indexOf(k)]!] = String(v);
    }
    return { line, fields };
  });
}

/** One account's plan. */
export interface AccountPlan {
  readonly account: string;
  readonly own: RatioResult;
  readonly effective: RatioResult;
  readonly basis: string;
  readonly tier: number;
  readonly limit: number;
  /** Every tier above and the spare before the one below, over every path of the family rules (see docs/rules.md#r7) (`accountMargins`). */
  readonly margins: AccountMargins;
}

/** The plan of a family. */
export interface Plan {
  /** The rules the plan follows. */
  readonly rulebook: Rulebook;
  readonly vipLevel: number;
  readonly aggregated: RatioResult;
  readonly aggregatedTier: number;
  readonly aggregatedLimit: number;
  readonly accounts: readonly AccountPlan[];
  /**
   * The spot low-fill throttle (see docs/rules.md#r14) of the accounts with spot hours, during the file's latest hour
   * (`current`, its activity so far); null when the file has no spot hours.
   */
  readonly spotFill: { readonly current: number; readonly accounts: readonly SpotFillOutlook[] } | null;
}

/** Ratios, tiers, limits and margins of every account and of the family (see docs/rules.md#r1 to #r4, #r7), under `rulebook`'s rules. */
export function makePlan(input: PlanInput, options: FamilyOptions, vipLevel: number, rulebook: Rulebook = GATE): Plan {
  const config: FamilyConfig = resolveFamilyOptions(options, rulebook);
  const rating = rateFamily(
    input.accounts.map((a) => ({ account: a.account, contracts: a.contracts })),
    config,
    vipLevel,
  );
  const tiered = isTieredVip(vipLevel, rulebook.tieredVipLevel);
  const aggregatedTier = tierInForce(
    vipLevel,
    tierOfRatio(rating.aggregated, config.tiers),
    config.tiers,
    rulebook.tieredVipLevel,
  );
  const current = Math.max(...input.spotHours.map((h) => h.hour));
  return {
    rulebook,
    spotFill:
      input.spotHours.length === 0
        ? null
        : { current, accounts: spotFillOutlook(spotTimelines(input.spotHours), current) },
    vipLevel,
    aggregated: rating.aggregated,
    aggregatedTier: aggregatedTier.tier,
    aggregatedLimit: aggregatedTier.limit,
    accounts: rating.accounts.map((a) => ({
      account: a.account,
      own: a.own,
      effective: a.effective,
      basis: a.basis,
      tier: a.tier.tier,
      limit: a.tier.limit,
      // Below the tiered VIP level no volume and no request count moves the account from the tier 1 its rating
      // gave (see docs/rules.md#r4): no margins to give.
      margins: tiered
        ? accountMargins(a.own, rating.aggregated, config)
        : { tier: a.tier, up: null, down: null, steps: [] },
    })),
  };
}
