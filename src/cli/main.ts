import { adviseCommand } from './commands/advise.js';
import { exampleCommand } from './commands/example.js';
import { modelExchangeCommand } from './commands/model-exchange.js';
import { planCommand } from './commands/plan.js';
import { proxyCommand } from './commands/proxy.js';
import { simulateCommand } from './commands/simulate.js';
import { timelineCommand } from './commands/timeline.js';
import { type Command, type CommandContext, EXIT, type Io, type RunOptions, commandHelp } from './command.js';
import { UsageError, parseOptions } from './options.js';

export type { CliErrorCode } from './input.js';
export { EXIT, type Io, type RunOptions } from './command.js';

// The package's version, written in at build time (tsup.config.ts, vitest.config.ts).
declare const __TRADERATIO_VERSION__: string;

const ignore = (): void => {};

/**
 * The first of SIGINT and SIGTERM to arrive. Later ones are let pass while the command ends (a
 * Ctrl-C reaches both the command and the node it runs the model exchange in, which is also sent it).
 */
function onSignal(): Promise<string> {
  return new Promise((resolve) => {
    const done = (signal: string) => {
      // Ignoring first: were a signal's last listener removed, even for an instant, node would give
      // it back its default action, and a second Ctrl-C arriving then would end the process.
      process.on('SIGINT', ignore);
      process.on('SIGTERM', ignore);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve(signal);
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}

/** The commands, in the order help lists them; each is a file of src/cli/commands/. */
const COMMANDS: ReadonlyMap<string, Command> = new Map(
  [
    planCommand,
    timelineCommand,
    simulateCommand,
    adviseCommand,
    modelExchangeCommand,
    proxyCommand,
    exampleCommand,
  ].map((c) => [c.name, c]),
);

const HELP = `Usage: traderatio <command> [options]

Commands:
${[...COMMANDS.values()].map((c) => `  ${c.usage.padEnd(16)} ${c.about.split('\n')[0]}`).join('\n')}
  help [COMMAND]   this help, or a command's

Options:
  --version        print the version
  -h, --help       this help

Run "traderatio <command> --help" for a command's options.`;

/** Control characters of a message shown as escapes, so that input never drives the terminal. */
function printable(message: string): string {
  return message.replace(/(?![\t\n])\p{Cc}/gu, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Runs the command line with `argv` (without node and the script); resolves to the exit code. */
export async function run(argv: readonly string[], io: Io, options: RunOptions = {}): Promise<number> {
  const context: CommandContext = {
    progress: options.progress ?? false,
    stdin: options.stdin ?? process.stdin,
    stop: options.stop ?? onSignal,
  };
  const [name, ...rest] = argv;
  try {
    if (name === undefined || name === '--help' || name === '-h') {
      io.out(HELP);
      return EXIT.ok;
    }
    if (name === '--version') {
      io.out(__TRADERATIO_VERSION__);
      return EXIT.ok;
    }
    if (name === 'help') {
      if (rest.length > 1) throw new UsageError(`help takes at most one COMMAND, got ${rest.length}`);
      const topic = rest[0];
      if (topic === undefined) io.out(HELP);
      else if (COMMANDS.has(topic)) io.out(commandHelp(COMMANDS.get(topic)!));
      else throw new UsageError(`no command "${topic}"; the commands are ${[...COMMANDS.keys()].join(', ')}`);
      return EXIT.ok;
    }
    if (!COMMANDS.has(name)) {
      throw new UsageError(
        name.startsWith('-')
          ? `unknown option ${name}; run "traderatio --help"`
          : `unknown command "${name}"; the commands are ${[...COMMANDS.keys()].join(', ')}`,
      );
    }
    const command = COMMANDS.get(name)!;
    const args = parseOptions(name, rest, command.options, command.notes);
    if (args.values.has('help')) {
      io.out(commandHelp(command));
      return EXIT.ok;
    }
    return await command.run(args, io, context);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`traderatio: ${printable(e.message)}`);
      return EXIT.usage;
    }
    io.err(`traderatio: ${printable(e instanceof Error ? e.message : String(e))}`);
    return EXIT.input;
  }
}
