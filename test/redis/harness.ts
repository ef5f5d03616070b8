// Helpers for tests against a real Redis: a key prefix of the test's own, cleaning only its keys,
// worker processes, and window checks on merged dispatch logs.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Redis, type RedisOptions } from 'ioredis';
import { REDIS_PORT, REDIS_URL } from './address.js';

/** The port of the tests' Redis (REDIS_URL); another port is a server of a test's own on 127.0.0.1. */
export const PORT = REDIS_PORT;

export function uniquePrefix(name: string): string {
  return `tr-test-${name}-${randomBytes(4).toString('hex')}`;
}

/** Deletes the keys of `prefix` only. */
export async function cleanPrefix(client: Redis, prefix: string): Promise<void> {
  const keys = await client.keys(`{${prefix}}:*`);
  if (keys.length > 0) await client.del(...keys);
}

/**
 * Takes a copy of `prefix`'s keys now; the function returned puts them back as they were (and
 * deletes any key of the prefix made since), as a failover to a replica that lagged from now on
 * would. Keys that expire keep what was left of their time.
 */
export async function copyPrefix(client: Redis, prefix: string): Promise<() => Promise<void>> {
  const keys = await client.keys(`{${prefix}}:*`);
  const copies = await Promise.all(
    keys.map(async (key) => ({ key, dump: await client.dumpBuffer(key), ttl: await client.pttl(key) })),
  );
  return async () => {
    await cleanPrefix(client, prefix);
    for (const { key, dump, ttl } of copies) if (dump !== null) await client.restore(key, Math.max(0, ttl), dump);
  };
}

export function connect(port = PORT, name?: string): Redis {
  const options: RedisOptions = {
    lazyConnect: false,
    maxRetriesPerRequest: null,
    retryStrategy: () => 20,
    ...(name === undefined ? {} : { connectionName: name }),
  };
  const client = port === PORT ? new Redis(REDIS_URL, options) : new Redis({ port, host: '127.0.0.1', ...options });
  client.on('error', () => {});
  return client;
}

/** Every child process a test of this file started and that has not exited. */
const children = new Set<ChildProcess>();

/**
 * Counts `proc` among the children {@link stopChildren} stops: a test that fails or times out
 * leaves no worker or server running after it.
 */
export function track<P extends ChildProcess>(proc: P): P {
  children.add(proc);
  proc.on('exit', () => children.delete(proc));
  return proc;
}

/** Kills `proc` (SIGKILL) and resolves once it has exited. */
export function killAndWait(proc: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
    proc.once('exit', () => resolve());
    proc.kill('SIGKILL');
  });
}

/** Kills every child process still running (afterEach of the tests that start them). */
export function stopChildren(): void {
  for (const proc of children) proc.kill('SIGKILL');
  children.clear();
}

export interface Worker {
  readonly name: string;
  readonly proc: ChildProcess;
  /** Dispatch instants, epoch ms. */
  readonly times: number[];
  readonly events: string[];
  id: string;
  /** Loaded, and waiting to be told when to stop. */
  ready: boolean;
  readonly exited: Promise<number | null>;
}

const workerPath = fileURLToPath(new URL('./worker.ts', import.meta.url));
/** Loads the store's .lua files as text in a process run with tsx (see scripts/lua.ts). */
export const luaText = new URL('../../scripts/lua.ts', import.meta.url).href;

/**
 * Starts a TypeScript file as a child process (tsx, with the store's .lua files loaded as text),
 * its stdin and stdout piped to the test; tracked, so that {@link stopChildren} ends it.
 */
export function startTsProcess(path: string, args: readonly string[]): ChildProcess {
  return track(
    spawn(process.execPath, ['--import', 'tsx', '--import', luaText, path, ...args], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
}

/**
 * Starts a worker process. `slowMs` > 0: one task in five does random synchronous work of up to
 * `slowMs` after its dispatch (a slow signer, a large serialisation, a GC pause).
 */
export function startWorker(
  port: number,
  prefix: string,
  name: string,
  limit = 100,
  windowMs = 1000,
  policy: 'wait' | 'local' = 'wait',
  slowMs = 0,
): Worker {
  const proc = startTsProcess(workerPath, [
    String(port),
    prefix,
    String(limit),
    String(windowMs),
    name,
    policy,
    String(slowMs),
  ]);
  const w: Worker = {
    name,
    proc,
    times: [],
    events: [],
    id: '',
    ready: false,
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
  };
  onLines(proc, (line) => {
    if (line.startsWith('id ')) w.id = line.slice(3);
    else if (line === 'ready') w.ready = true;
    else if (line.startsWith('event ')) w.events.push(line.slice(6));
    else if (line.length > 0) w.times.push(Number(line));
  });
  return w;
}

/**
 * Starts `count` workers at once and, when every one is loaded, tells them to run for `runMs`
 * from now: a run's length does not include the processes' start-up, however slow.
 */
export async function startWorkers(
  count: number,
  runMs: number,
  port: number,
  prefix: string,
  limit = 100,
  windowMs = 1000,
  policy: 'wait' | 'local' = 'wait',
  slowMs = 0,
): Promise<{ workers: Worker[]; until: number }> {
  const workers = Array.from({ length: count }, (_, i) =>
    startWorker(port, prefix, `w${i}`, limit, windowMs, policy, slowMs),
  );
  await waitFor(() => workers.every((w) => w.ready), 30_000);
  const until = Date.now() + runMs;
  for (const w of workers) w.proc.stdin!.end(`${until}\n`);
  return { workers, until };
}

/** Calls `onLine` with each whole line a child process writes to its stdout. */
export function onLines(proc: ChildProcess, onLine: (line: string) => void): void {
  let rest = '';
  proc.stdout!.setEncoding('utf8');
  proc.stdout!.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}

/** The most dispatches in any interval [x, x + windowMs). */
export function mostInAnyWindow(times: readonly number[], windowMs: number): number {
  const t = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < t.length; i++) {
    while (j < t.length && t[j]! < t[i]! + windowMs) j++;
    most = Math.max(most, j - i);
  }
  return most;
}

export function countIn(times: readonly number[], from: number, to: number): number {
  let n = 0;
  for (const t of times) if (t >= from && t < to) n++;
  return n;
}

/**
 * The furthest any process's share strays from an equal one over any `spanMs` from `from` to `to`
 * (start instants every 50 ms): |sent - total / processes| / (total / processes).
 */
export function worstShare(each: readonly (readonly number[])[], from: number, to: number, spanMs: number): number {
  let worst = 0;
  for (let a = from; a + spanMs <= to; a += 50) {
    const counts = each.map((ts) => countIn(ts, a, a + spanMs));
    const equal = counts.reduce((x, y) => x + y, 0) / counts.length;
    for (const c of counts) worst = Math.max(worst, Math.abs(c - equal) / equal);
  }
  return worst;
}

/** Runs `f` with a client of its own on the server at `port` of 127.0.0.1, closed after (and not retried: a server down fails at once). */
export async function withNode<T>(port: number, f: (c: Redis) => Promise<T>): Promise<T> {
  const c = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  c.on('error', () => {});
  try {
    await c.connect();
    return await f(c);
  } finally {
    c.disconnect();
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await sleep(10);
  }
}
