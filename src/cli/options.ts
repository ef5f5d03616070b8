/** A command line option: `--name`, or `--name VALUE` when it has a `value` label. */
export interface OptionSpec {
  readonly name: string;
  /** What the value is called in help (`N`, `OUT`); absent for a flag. */
  readonly value?: string;
  /** A one-letter alias (`h` for `-h`). */
  readonly short?: string;
  readonly help: string;
}

/** A mistake in the command line itself: exit code 2. */
export class UsageError extends Error {}

/** The options given, by name (a flag is `true`), and the other arguments in order. */
export interface ParsedArgs {
  readonly values: ReadonlyMap<string, string | true>;
  /** How each option was typed (`--threshold`, `-h`), for messages. */
  readonly typed: ReadonlyMap<string, string>;
  readonly positionals: readonly string[];
}

/**
 * Reads `args` against `specs`: `--name VALUE`, `--name=VALUE`, flags, `-h`, `--` before
 * arguments that start with a dash. An option that takes a value takes the next argument whatever
 * it looks like (`--threshold -5` gives "-5" to `--threshold`, for it to refuse by name). `-` alone
 * is an argument (standard input). Every error names the option as it was typed.
 */
export function parseOptions(
  command: string,
  args: readonly string[],
  specs: readonly OptionSpec[],
  notes: Readonly<Record<string, string>> = {},
): ParsedArgs {
  const values = new Map<string, string | true>();
  const typed = new Map<string, string>();
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const as = eq < 0 ? arg : arg.slice(0, eq);
    const spec = as.startsWith('--')
      ? specs.find((s) => `--${s.name}` === as)
      : specs.find((s) => s.short !== undefined && `-${s.short}` === as);
    if (spec === undefined) {
      const note = notes[as.replace(/^-+/, '')];
      throw new UsageError(
        `${command} has no option ${as}${note === undefined ? '' : ` (${note})`}; its options are ${specs.map((s) => `--${s.name}`).join(', ')}`,
      );
    }
    if (spec.value === undefined) {
      if (eq >= 0) throw new UsageError(`${as} takes no value, got "${arg.slice(eq + 1)}"`);
      values.set(spec.name, true);
    } else if (eq >= 0) {
      values.set(spec.name, arg.slice(eq + 1));
    } else {
      const next = args[i + 1];
      if (next === undefined) throw new UsageError(`${as} needs a value (${as} ${spec.value}): ${spec.help}`);
      // `--svg --json`: the value was left out, rather than a file named "--json" meant.
      if (specs.some((s) => next === `--${s.name}` || next.startsWith(`--${s.name}=`)))
        throw new UsageError(`${as} needs a value (${as} ${spec.value}), got the option ${next}`);
      values.set(spec.name, next);
      i++;
    }
    typed.set(spec.name, as);
  }
  return { values, typed, positionals };
}

/** The "Options:" part of a command's help, from its specs. */
export function optionsHelp(specs: readonly OptionSpec[]): string {
  const left = specs.map(
    (s) => `${s.short === undefined ? '' : `-${s.short}, `}--${s.name}${s.value === undefined ? '' : ` ${s.value}`}`,
  );
  const width = Math.max(...left.map((l) => l.length)) + 2;
  return ['Options:', ...specs.map((s, i) => `  ${left[i]!.padEnd(width)}${s.help}`)].join('\n');
}
