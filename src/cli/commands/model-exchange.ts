import { InvalidInputError } from '../../errors.js';
import {
  type ModelExchangeOptions,
  type RunningModelExchange,
  startModelExchange,
} from '../../model-exchange/server.js';
import type { ModelExchangeStats } from '../../model-exchange/stats.js';
import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS, rulebookOf } from '../common-options.js';
import { InputFileError } from '../input.js';
import { jsonFile } from '../read-json.js';
import { type ParsedArgs, UsageError } from '../options.js';
import { pathOf } from '../timeline.js';
import { wholeNumber } from '../whole-number.js';

/** What the model exchange's command needs from its caller: where to write, and what ends the run. */
export interface ModelExchangeRun {
  out(line: string): void;
  /** Resolves when the server should stop (SIGINT, SIGTERM). */
  readonly stop: Promise<string>;
  readonly stdin: AsyncIterable<Buffer | string>;
}

/**
 * `traderatio exchange`: the model exchange on localhost. The command keeps the short name; its help
 * says it is the model.
 */
export const modelExchangeCommand: Command = {
  name: 'exchange',
  usage: 'exchange',
  about: `the model exchange: a stand-in for the exchange on localhost, to run engines and tests against

It answers API v4 over HTTP and WebSocket as Gate does, with its limits (docs/rules.md), 429s and headers;
with --exchange okx, API v5 as OKX does (docs/okx.md): OK-ACCESS-* signing, 50061 and 50011 per order.
Prints its base URL; stops on Ctrl-C (SIGINT) or SIGTERM with a summary. Files are JSON (docs/model-exchange.md):
  --accounts FILE  { "families": [{ "id", "vipLevel"?, "kind"?, "ownVolumeThreshold"?, "accounts": [{ "id", "role"?, "createdAt"?, "keys": [{ "key", "secret", "passphrase"? }] }] }] }
  --history FILE   { "activity": [{ "account", "day", "contracts" }] (as timeline reads it), "hours"?: [{ "account", "hour", "requests", "traded" }] }
Without --accounts: one main account, KEY main-key, secret main-secret.`,
  options: [
    { name: 'port', value: 'N', help: 'the port to listen on (default 8080; 0 picks a free one)' },
    {
      name: 'host',
      value: 'ADDR',
      help: 'the address to listen on (default 127.0.0.1); off loopback the administration requires a token',
    },
    {
      name: 'admin-token',
      value: 'TOKEN',
      help: 'the token /_model/ requires as Authorization: Bearer TOKEN (made at random and printed off loopback)',
    },
    {
      name: 'accounts',
      value: 'FILE',
      help: 'families, accounts, API keys and secrets, VIP levels, creation instants',
    },
    { name: 'history', value: 'FILE', help: 'activity of the last days (and hours) to start from' },
    {
      name: 'window',
      value: 'MODE',
      help: 'sliding (never more than N in any W; default) or fixed (counters reset on aligned windows)',
    },
    {
      name: 'clock-offset-ms',
      value: 'N',
      help: "the model's clock runs N ms ahead of this machine's (negative: behind); Timestamps are checked against it",
    },
    {
      name: 'start-at',
      value: 'INSTANT',
      help: "the model's clock starts at INSTANT (2026-11-21T07:59:00Z or epoch ms); Timestamps are checked against this machine's clock",
    },
    {
      name: 'speed',
      value: 'X',
      help: "the model's clock runs X times as fast as this machine's (from --start-at, or now)",
    },
    { name: 'verify-signatures', help: "check the signature of every private request with the key's secret" },
    COMMON_OPTIONS.exchange,
    {
      name: 'fills',
      value: 'FILE',
      help: 'the fill model: { "seed", "maker", "taker", "instruments": { "BTC_USDT": { "maker", "taker" } } }',
    },
    COMMON_OPTIONS.help,
  ],
  async run(args, io, { stdin, stop }) {
    await runModelExchange(args, { out: (line) => io.out(line), stdin, stop: stop() });
    return EXIT.ok;
  },
};

/**
 * `traderatio exchange`: starts the model exchange, prints its base URL, and on SIGINT or SIGTERM
 * stops and prints a summary of what it counted.
 */
export async function runModelExchange(args: ParsedArgs, run: ModelExchangeRun): Promise<void> {
  if (args.positionals.length > 0)
    throw new UsageError(`exchange takes no FILE, got "${args.positionals[0]}" (the accounts file is --accounts FILE)`);
  const { values, typed } = args;
  const options: { -readonly [K in keyof ModelExchangeOptions]: ModelExchangeOptions[K] } = { port: 8080 };
  const port = values.get('port');
  if (port !== undefined) {
    const n = port === true ? undefined : wholeNumber(port);
    if (n === undefined || n > 65_535)
      throw new UsageError(
        `${typed.get('port')} takes a port from 0 to 65535 (0 picks a free one), got "${String(port)}"`,
      );
    options.port = n;
  }
  const host = values.get('host');
  if (host !== undefined) {
    if (host === true || host === '')
      throw new UsageError(`${typed.get('host')} takes an address to listen on (127.0.0.1, 0.0.0.0, ::1...)`);
    options.host = host;
  }
  const token = values.get('admin-token');
  if (token !== undefined) {
    if (token === true || token.length < 8)
      throw new UsageError(`${typed.get('admin-token')} takes a token of at least 8 characters`);
    options.adminToken = token;
  }
  const window = values.get('window');
  if (window !== undefined) {
    if (window !== 'sliding' && window !== 'fixed')
      throw new UsageError(`${typed.get('window')} takes sliding or fixed, got "${String(window)}"`);
    options.window = window;
  }
  const offset = values.get('clock-offset-ms');
  if (offset !== undefined) {
    const ms = offset === true ? undefined : wholeNumber(offset, 'signed');
    if (ms === undefined)
      throw new UsageError(
        `${typed.get('clock-offset-ms')} takes a whole number of milliseconds (such as -3600000), got "${String(offset)}"`,
      );
    options.clockOffsetMs = ms;
  }
  const startAt = values.get('start-at');
  if (startAt !== undefined) {
    const at =
      startAt === true
        ? Number.NaN
        : /^\d+$/.test(startAt)
          ? Number(startAt)
          : /(Z|[+-]\d\d:\d\d)$/.test(startAt)
            ? Date.parse(startAt)
            : Number.NaN;
    if (!Number.isSafeInteger(at))
      throw new UsageError(
        `${typed.get('start-at')} takes an instant with a zone (2026-11-21T07:59:00Z) or epoch milliseconds, got "${String(startAt)}"`,
      );
    options.startAt = at;
  }
  const speed = values.get('speed');
  if (speed !== undefined) {
    const x = speed === true || !/^\d+(\.\d+)?$/.test(speed) ? Number.NaN : Number(speed);
    if (!(x > 0 && x <= 10_000))
      throw new UsageError(
        `${typed.get('speed')} takes how many times faster the model's clock runs, above 0 and at most 10000, got "${String(speed)}"`,
      );
    options.speed = x;
  }
  if ((startAt !== undefined || speed !== undefined) && offset !== undefined) {
    throw new UsageError(
      `${typed.get('clock-offset-ms')} and ${typed.get(startAt !== undefined ? 'start-at' : 'speed')} cannot be given together: the clock starts at --start-at`,
    );
  }
  if (values.has('verify-signatures')) options.verifySignatures = true;
  const rulebook = rulebookOf(args);
  if (rulebook.name === 'okx') options.exchange = 'okx';
  const accounts = await jsonFile(values.get('accounts'), run.stdin);
  const history = await jsonFile(values.get('history'), run.stdin);
  const fills = await jsonFile(values.get('fills'), run.stdin);
  if (accounts !== undefined) options.accounts = accounts.value as NonNullable<ModelExchangeOptions['accounts']>;
  if (history !== undefined) options.history = history.value;
  if (fills !== undefined) options.fills = fills.value as NonNullable<ModelExchangeOptions['fills']>;
  let model: RunningModelExchange;
  try {
    model = await startModelExchange(options);
  } catch (e) {
    if (e instanceof InvalidInputError) {
      const inHistory = /`(activity|hours|spotHours)|the history file/.test(e.message);
      const file = inHistory ? history : /`fills/.test(e.message) ? fills : accounts;
      throw file === undefined ? e : new InputFileError(file.name, inHistory ? file.lineOf(pathOf(e)) : 1, e.message);
    }
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`port ${options.port} is in use; choose another with --port N (0 picks a free one)`);
    throw e;
  }
  run.out(`traderatio exchange: ${model.url}`);
  const okx = options.exchange === 'okx';
  run.out(
    `  ${okx ? 'OKX ' : ''}REST under ${model.url}/api/${okx ? 'v5' : 'v4'}, WebSocket on ${model.wsUrl}${okx ? '/ws/v5/private' : ''}, administration under ${model.url}/_model/`,
  );
  if (model.adminToken !== null)
    run.out(`  administration requires the header Authorization: Bearer ${model.adminToken}`);
  if (options.startAt !== undefined || options.speed !== undefined) {
    run.out(
      `  the model's clock starts at ${new Date(Math.floor(model.clockStart ?? 0)).toISOString()}${options.speed === undefined || options.speed === 1 ? '' : `, running ${options.speed} times as fast`}; Timestamps are checked against this machine's clock`,
    );
  }
  run.out(
    `  window ${options.window ?? 'sliding'}${options.clockOffsetMs ? `, clock offset ${options.clockOffsetMs} ms` : ''}${options.verifySignatures ? ', signatures verified' : ''}; stop with Ctrl-C`,
  );
  const signal = await run.stop;
  const stats = model.stats();
  await model.close();
  run.out(`traderatio exchange: stopped (${signal})`);
  for (const line of summary(stats, rulebook.tiers.windowMs)) run.out(line);
}

/** One line per account and IP: accepted, refused by label, tier (its N per `tierWindowMs`) and throttle. */
export function summary(stats: ModelExchangeStats, tierWindowMs = 1000): string[] {
  const refused = (r: Readonly<Record<string, number>>) =>
    Object.entries(r)
      .map(([label, n]) => `${n} ${label}`)
      .join(', ') || 'none';
  const lines = stats.accounts.map(
    (a) =>
      `  account ${a.account} (${a.family}): ${a.accepted} accepted, refused ${refused(a.refused)}; tier ${a.tier} (${a.limit} ${tierWindowMs === 1000 ? 'r/s' : `per ${tierWindowMs / 1000} s`})${a.throttle === null ? '' : `, throttled to ${a.throttle.limit} per ${a.throttle.windowMs / 1000} s`}`,
  );
  for (const ip of stats.ips) lines.push(`  IP ${ip.ip}: ${ip.accepted} accepted, refused ${refused(ip.refused)}`);
  if (Object.keys(stats.unidentified).length > 0) lines.push(`  unidentified: refused ${refused(stats.unidentified)}`);
  return lines;
}
