import { InvalidInputError } from '../errors.js';
import { rulebookOf } from './common-options.js';
import type { ProxyOptions } from '../proxy/options.js';
import { type ProxySummary, startProxy } from '../proxy/server.js';
import { RedisStore } from '../redis/store.js';
import { InputFileError } from './input.js';
import { jsonFile } from './read-json.js';
import { type OptionSpec, type ParsedArgs, UsageError } from './options.js';
import { withConfig } from './proxy-config.js';
import { connectRedis, redact } from './redis-connection.js';
import { pathOf } from './timeline.js';
import { wholeNumber } from './whole-number.js';

/** Where `--exchange okx` forwards to when no `--upstream` is given. */
const OKX_UPSTREAM = 'https://www.okx.com';

/** What the proxy command needs from its caller: where to write, and what ends the run. */
export interface ProxyRun {
  out(line: string): void;
  /** Resolves when the proxy should stop (SIGINT, SIGTERM). */
  readonly stop: Promise<string>;
  readonly stdin: AsyncIterable<Buffer | string>;
}

/**
 * `traderatio proxy`: starts the proxy in front of `--upstream`, prints its URL, and on SIGINT or
 * SIGTERM stops (refusing what still waits) and prints what each account sent.
 */
export async function proxyCommand(given: ParsedArgs, run: ProxyRun, specs: readonly OptionSpec[] = []): Promise<void> {
  if (given.positionals.length > 0)
    throw new UsageError(`proxy takes no FILE, got "${given.positionals[0]}" (the accounts file is --accounts FILE)`);
  const { args, inline } = await withConfig(given, specs, run.stdin);
  const { values, typed } = args;
  const exchange = rulebookOf(args).name === 'okx' ? 'okx' : 'gate';
  const upstream = values.get('upstream') ?? (exchange === 'okx' ? OKX_UPSTREAM : undefined);
  if (typeof upstream !== 'string')
    throw new UsageError(
      'proxy needs --upstream URL (or "upstream" in --config FILE): the exchange to forward to, e.g. --upstream https://api.gateio.ws',
    );
  const number = (name: string, least: number): number | undefined => {
    const v = values.get(name);
    if (v === undefined) return undefined;
    const n = v === true ? undefined : wholeNumber(v);
    if (n === undefined || n < least || (name === 'port' && n > 65_535)) {
      throw new UsageError(
        `${typed.get(name)} takes a whole number${least > 0 ? ` from ${least}` : ''}${name === 'port' ? ' to 65535 (0 picks a free one)' : ''}, got "${String(v)}"`,
      );
    }
    return n;
  };
  const port = number('port', 0) ?? 8081;
  const marginMs = number('margin-ms', 0);
  const timeoutMs = number('timeout-ms', 1);
  const maxSockets = number('max-sockets', 1);
  const accounts = inline.get('accounts') ?? (await jsonFile(values.get('accounts'), run.stdin));
  const history = inline.get('history') ?? (await jsonFile(values.get('history'), run.stdin));
  const redisUrl = values.get('redis');
  if (redisUrl === true)
    throw new UsageError(
      `${typed.get('redis')} takes a Redis URL, e.g. redis://127.0.0.1:6379, or a cluster's nodes, e.g. redis://10.0.0.1:7000,redis://10.0.0.2:7001`,
    );
  const prefix = values.get('redis-prefix');
  if (prefix === true || (prefix !== undefined && redisUrl === undefined))
    throw new UsageError(`${typed.get('redis-prefix')} takes a name, and goes with --redis URL`);
  const redis = redisUrl === undefined ? null : await connectRedis(redisUrl);
  const stores: RedisStore[] = [];
  const logValue = values.get('log');
  if (logValue !== undefined && logValue !== 'text' && logValue !== 'json')
    throw new UsageError(`${typed.get('log')} takes text or json, got "${String(logValue)}"`);
  const log = logValue;
  const state = values.get('state');
  if (state === true) throw new UsageError(`${typed.get('state')} takes a file, e.g. --state proxy-state.json`);
  const futuresWs = values.get('futures-ws');
  if (futuresWs === true)
    throw new UsageError(`${typed.get('futures-ws')} takes a ws or wss URL, e.g. wss://fx-ws.gateio.ws`);
  const options: ProxyOptions = {
    ...(exchange === 'okx' ? { exchange } : {}),
    upstream,
    port,
    ...(futuresWs === undefined ? {} : { futuresWebSocket: futuresWs }),
    ...(marginMs === undefined ? {} : { marginMs }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(maxSockets === undefined ? {} : { maxSockets }),
    ...(accounts === undefined ? {} : { accounts: accounts.value }),
    ...(history === undefined ? {} : { history: history.value }),
    ...(state === undefined
      ? {}
      : { stateFile: state, warn: (message: string) => run.out(`traderatio proxy: ${message}`) }),
    ...(log === undefined ? {} : { log: (line: string) => run.out(line), logFormat: log }),
    ...(redis === null
      ? {}
      : {
          store: (family: string) => {
            const store = new RedisStore({ client: redis.client, prefix: `${prefix ?? 'traderatio'}:${family}` });
            stores.push(store);
            return store;
          },
        }),
  };
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  try {
    proxy = await startProxy(options);
  } catch (e) {
    await redis?.close();
    if (e instanceof InvalidInputError) {
      if (e.message.startsWith('Expected `upstream`')) {
        const plain = e.message.includes('without credentials') ? ' without credentials, query or fragment' : '';
        throw new UsageError(`${typed.get('upstream')} takes an http or https URL${plain}, got "${upstream}"`);
      }
      if (e.message.startsWith('Expected `futuresWebSocket`'))
        throw new UsageError(`${typed.get('futures-ws')} takes a ws or wss URL, got "${String(futuresWs)}"`);
      if (/the state file/.test(e.message)) throw new InputFileError(String(state), null, e.message);
      const inHistory = /`(activity|hours|spotHours)|the history file/.test(e.message);
      const file = inHistory ? history : accounts;
      throw file === undefined ? e : new InputFileError(file.name, inHistory ? file.lineOf(pathOf(e)) : 1, e.message);
    }
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`port ${port} is in use; choose another with --port N (0 picks a free one)`);
    throw e;
  }
  const target = new URL(upstream);
  run.out(`traderatio proxy: ${proxy.url} -> ${target.origin}${target.pathname.replace(/\/+$/, '')}`);
  run.out(
    exchange === 'okx'
      ? `  OKX REST under ${proxy.url}/api/v5 (the account by OK-ACCESS-KEY), metrics at ${proxy.url}/metrics, status at ${proxy.url}/`
      : `  REST under ${proxy.url}/api/v4, WebSocket on ${proxy.wsUrl}, metrics at ${proxy.url}/metrics, status at ${proxy.url}/`,
  );
  const families = proxy.limiters.size - 1;
  run.out(
    `  ${families} ${families === 1 ? 'family' : 'families'}${redis === null ? '' : `, limits and counts shared in ${redis.cluster ? 'a Redis Cluster' : 'Redis'} (${redact(redisUrl!)})`}; stop with Ctrl-C`,
  );
  if (state !== undefined)
    run.out(
      proxy.restoredFrom === null
        ? `  counts kept in ${state} (none there yet: it is written every 5 s and on stopping)`
        : `  counts restored from ${state}, written ${new Date(proxy.restoredFrom).toISOString()}; kept there every 5 s and on stopping`,
    );
  else if (redis === null) run.out('  counts kept in memory only: a restart forgets them (--state FILE keeps them)');
  const signal = await run.stop;
  run.out(`traderatio proxy: stopping (${signal}): refusing what waits, awaiting what was sent`);
  await proxy.close();
  for (const s of stores) await s.close();
  await redis?.close();
  run.out(`traderatio proxy: stopped (${signal})`);
  for (const line of summaryLines(proxy.summary())) run.out(line);
}

/** The summary printed on stopping: per family, what it sent and what the proxy answered itself. */
export function summaryLines(summary: ProxySummary): string[] {
  const answered = (labels: Readonly<Record<string, number>>): string => {
    const entries = Object.entries(labels);
    const total = entries.reduce((n, [, c]) => n + c, 0);
    return `${total} answered by the proxy${entries.length === 0 ? '' : ` (${entries.map(([l, c]) => `${c} ${l}`).join(', ')})`}`;
  };
  const lines = summary.families.map((f) => `  ${f.family}: ${f.sent} sent, ${answered(f.ownAnswers)}`);
  if (Object.keys(summary.unrouted).length > 0) lines.push(`  no family (KEY unknown): ${answered(summary.unrouted)}`);
  return lines;
}
