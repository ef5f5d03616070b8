import { InvalidInputError } from '../errors.js';
import { type FamilyOptions, resolveFamilyOptions } from '../rules/family.js';
import { TIERED_VIP_LEVEL, parseVipLevel } from '../rules/vip.js';
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
    help: `the family's VIP level (default ${TIERED_VIP_LEVEL}; below ${TIERED_VIP_LEVEL} every account is at tier 1)`,
  },
} as const satisfies Readonly<Record<string, OptionSpec>>;

/** The one FILE a command takes (`-` for standard input). */
export function fileOf(command: Command, { positionals }: ParsedArgs): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      `${command.name} takes one FILE (or - for standard input), got ${positionals.length === 0 ? 'none' : positionals.map((p) => `"${p}"`).join(' ')}\n\n${commandHelp(command)}`,
    );
  }
  return positionals[0]!;
}

/** `--vip N`: the family's VIP level, the tiered level when it is not given. */
export function vipOf({ values, typed }: ParsedArgs): number {
  const value = values.get('vip');
  if (value === undefined || value === true) return TIERED_VIP_LEVEL;
  try {
    return parseVipLevel(wholeNumber(value) ?? Number.NaN);
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('vip')} takes a VIP level (a whole number such as ${TIERED_VIP_LEVEL}), got "${value}"`,
      );
    throw e;
  }
}

/** `--threshold` and `--broker`: how the family's accounts are rated. */
export function familyOptionsOf({ values, typed }: ParsedArgs): FamilyOptions {
  const threshold = values.get('threshold');
  const options: FamilyOptions = {
    ...(typeof threshold === 'string' ? { ownVolumeThreshold: threshold } : {}),
    ...(values.has('broker') ? { kind: 'broker' as const } : {}),
  };
  try {
    resolveFamilyOptions(options);
  } catch (e) {
    if (e instanceof InvalidInputError)
      throw new UsageError(
        `${typed.get('threshold')} takes a non-negative amount of USDT (such as 1000000 or 250000.50), got "${String(threshold)}"`,
      );
    throw e;
  }
  return options;
}
