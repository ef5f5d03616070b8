import type { OptionSpec, ParsedArgs } from './options.js';
import { optionsHelp } from './options.js';

/** Where the command line writes: standard output and standard error, one line per call. */
export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** How the command line is run beside its arguments. */
export interface RunOptions {
  /** Draw a progress bar on standard error (simulate, advise). @default false */
  readonly progress?: boolean;
  /** What `-` reads, given as a FILE. @default process.stdin */
  readonly stdin?: AsyncIterable<Buffer | string>;
  /** What ends a long-running command (the model exchange, the proxy): resolves with the signal's name. @default SIGINT or SIGTERM */
  readonly stop?: () => Promise<string>;
}

/** What every command is run with: the run options, each resolved. */
export type CommandContext = Required<RunOptions>;

/**
 * Exit codes: 0 done, 1 bad input (a file, a value), 2 bad usage (a command or option), 141 the
 * output closed early (a reader such as `head` done with it), as a Unix tool ended by SIGPIPE.
 */
export const EXIT = { ok: 0, input: 1, usage: 2, closedOutput: 141 } as const;

/**
 * A command of `traderatio`: its name, its usage line, what it reads (`about`, whose first line is
 * its entry in the list of commands), its options and what it does. Each lives in a file of
 * src/cli/commands/; src/cli/main.ts lists them.
 */
export interface Command {
  readonly name: string;
  readonly usage: string;
  readonly about: string;
  readonly options: readonly OptionSpec[];
  /** Why an option that other commands take is not here. */
  readonly notes?: Readonly<Record<string, string>>;
  run(args: ParsedArgs, io: Io, context: CommandContext): number | Promise<number>;
}

/** A command's help: its usage, what it does and its options. */
export function commandHelp(c: Command): string {
  return `Usage: traderatio ${c.usage} [options]\n\n${c.about.charAt(0).toUpperCase()}${c.about.slice(1)}\n\n${optionsHelp(c.options)}`;
}
