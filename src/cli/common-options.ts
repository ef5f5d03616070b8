import { InvalidInputError } from '../errors.js';
import { RULEBOOK_NAMES, rulebookNamed } from '../rules/exchange-rules.js';
import { type FamilyOptions, resolveFamilyOptions } from '../rules/family.js';
import { GATE } from '../rules/gate/rulebook.js';
import type { Rulebook } from '../rules/rulebook.js';
import { parseVipLevel } from '../rules/vip.js';
import { type Command, commandHelp } from './command.js';
import { type OptionSpec, type ParsedArgs, UsageError } from './options.js';
import { wholeNumber } from './whole-number.js';

/**
 * The options several commands take, written once; a command lists those it takes in its
 * `options`. The readers below check their values, each error naming the option as it was typed.
 */
export const COMMON_OPTIONS = {
  help: { name: 'help', short: 'h', help: 'this help' },
  json: { name: 'json', help: 'print JSON' },
  threshold: {
    name: 'threshold',
    value: 'X',
    help: 'own 7-day volume (USDT) from which an account takes max(own, aggregated) (default 1000000)',
  },
  broker: { name: 'broker', help: 'rate every account by its own ratio only' },
  vip: {
    name: 'vip',
    value: 'N',
    help: `the family's VIP level (default: the level the exchange tiers from, ${tieredLevels()}; below it every account is at tier 1)`,
  },
  exchange: {
    name: 'exchange',
    value: 'NAME',
    help: `the exchange whose rules apply: ${RULEBOOK_NAMES.join(' or ')} (default ${GATE.name}); its instrument names, tiers, window and timing`,
  },
} as const satisfies Readonly<Record<string, OptionSpec>>;

/** Each rulebook's tiered VIP level, for help: `gate 14, okx 5`. */
function tieredLevels(): string {
  return RULEBOOK_NAMES.map((name) => `${name} ${rulebookNamed(name).tieredVipLevel}`).join(', ');
}

/**
 * `--exchange NAME`: the rulebook whose rules the command applies, Gate's when it is not given.
 * A name no rulebook has is refused, naming the option as typed and the names known.
 */
export function rulebookOf({ values, typed }: ParsedArgs): Rulebook {
  const value = values.get('exchange');
  if (value === undefined) return GATE;
  try {
    return rulebookNamed(value === true ? '' : value, typed.get('exchange'));
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('exchange')} takes the name of an exchange, one of ${RULEBOOK_NAMES.join(', ')}, got ${value === true ? 'nothing' : `"${value}"`}`,
      );
    throw e;
  }
}

/** The one FILE a command takes (`-` for standard input). */
export function fileOf(command: Command, { positionals }: ParsedArgs): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      `${command.name} takes one FILE (or - for standard input), got ${positionals.length === 0 ? 'none' : positionals.map((p) => `"${p}"`).join(' ')}\n\n${commandHelp(command)}`,
    );
  }
  return positionals[0]!;
}

/** `--vip N`: the family's VIP level, the rulebook's tiered level when it is not given. */
export function vipOf({ values, typed }: ParsedArgs, rulebook: Rulebook = GATE): number {
  const value = values.get('vip');
  if (value === undefined || value === true) return rulebook.tieredVipLevel;
  try {
    return parseVipLevel(wholeNumber(value) ?? Number.NaN);
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('vip')} takes a VIP level (a whole number such as ${rulebook.tieredVipLevel}), got "${value}"`,
      );
    throw e;
  }
}

/** `--threshold` and `--broker`: how the family's accounts are rated, under the rulebook's rules. */
export function familyOptionsOf({ values, typed }: ParsedArgs, rulebook: Rulebook = GATE): FamilyOptions {
  const threshold = values.get('threshold');
  const options: FamilyOptions = {
    ...(typeof threshold === 'string' ? { ownVolumeThreshold: threshold } : {}),
    ...(values.has('broker') ? { kind: 'broker' as const } : {}),
  };
  try {
    resolveFamilyOptions(options, rulebook);
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('threshold')} takes a non-negative amount of USDT (such as 1000000 or 250000.50), got "${String(threshold)}"`,
      );
    throw e;
  }
  return options;
}
