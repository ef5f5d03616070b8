import { dirname, isAbsolute, join } from 'node:path';
import { InputFileError } from './input.js';
import type { OptionSpec, ParsedArgs } from './options.js';
import { jsonFile, type readJson } from './read-json.js';

/** A JSON file given inline in the config file (`accounts`, `history`), as `jsonFile` gives one read from disk. */
export type InlineFile = { name: string } & ReturnType<typeof readJson>;

/** The command line with the config file's options under it, and the files it gives inline. */
export interface MergedArgs {
  readonly args: ParsedArgs;
  readonly inline: ReadonlyMap<string, InlineFile>;
}

// Options whose value may be a file's JSON itself, in the config file, rather than its path.
const INLINE = new Set(['accounts', 'history']);
// Options that take a whole number.
const NUMBERS = new Set(['port', 'margin-ms', 'timeout-ms', 'max-sockets']);

/**
 * `traderatio proxy --config FILE`: a JSON object whose keys are the command's option names
 * (`upstream`, `port`, `accounts`, `timeout-ms`, ...), each with its value (a number for N, a
 * string for the rest; `accounts` and `history` either a file's path, relative to the config
 * file, or the file's JSON itself). An option given on the command line overrides the file's.
 * A key that is no option, or a value of the wrong kind, is refused with the key named and the
 * line it is on.
 */
export async function withConfig(
  args: ParsedArgs,
  specs: readonly OptionSpec[],
  stdin: AsyncIterable<Buffer | string>,
): Promise<MergedArgs> {
  const file = await jsonFile(args.values.get('config'), stdin);
  if (file === undefined) return { args, inline: new Map() };
  const config = file.value;
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new InputFileError(
      file.name,
      1,
      'the config file is a JSON object of options, e.g. { "upstream": "https://api.gateio.ws" }',
    );
  const allowed = specs.filter((s) => s.value !== undefined && s.name !== 'config').map((s) => s.name);
  const values = new Map(args.values);
  const typed = new Map(args.typed);
  const inline = new Map<string, InlineFile>();
  const here = file.name === '-' ? '.' : dirname(file.name);
  for (const [key, value] of Object.entries(config)) {
    const line = file.lineOf([key]);
    const refuse = (expected: string): never => {
      throw new InputFileError(file.name, line, `"${key}" takes ${expected}, got ${JSON.stringify(value)}`);
    };
    if (!allowed.includes(key))
      throw new InputFileError(
        file.name,
        line,
        `"${key}" is not an option of traderatio proxy; the config file takes ${allowed.map((n) => `"${n}"`).join(', ')}`,
      );
    // The command line wins.
    if (args.values.has(key)) continue;
    typed.set(key, `"${key}" of ${file.name}`);
    if (INLINE.has(key) && typeof value === 'object' && value !== null) {
      // Its errors name the config file and the line there.
      inline.set(key, { name: file.name, value, lineOf: (path) => file.lineOf([key, ...path]) });
      continue;
    }
    if (NUMBERS.has(key)) {
      if (typeof value === 'number' || typeof value === 'string') values.set(key, String(value));
      else refuse('a whole number');
      continue;
    }
    if (typeof value !== 'string' || value === '') refuse(INLINE.has(key) ? "a file's path or its JSON" : 'a string');
    const text = value as string;
    values.set(key, INLINE.has(key) || key === 'state' ? (isAbsolute(text) ? text : join(here, text)) : text);
  }
  return { args: { values, typed, positionals: args.positionals }, inline };
}
