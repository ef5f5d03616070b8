import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Dec } from '../../src/internal/decimal.js';
import {
  PORT,
  cleanPrefix,
  connect,
  killAndWait,
  luaText,
  onLines,
  sleep,
  stopChildren,
  track,
  uniquePrefix,
  waitFor,
} from './harness.js';
import { freePort } from './sentinel.js';

// Four engine processes on one account, each with an account limiter given a Redis store: the
// counts are the account's, summed in Redis.
const client = connect();
const prefixes: string[] = [];
afterEach(stopChildren);

afterAll(async () => {
  for (const p of prefixes) await cleanPrefix(client, p);
  client.disconnect();
});

interface CountWorker {
  readonly proc: ChildProcess;
  readonly events: { at: number; event: { type: string; [k: string]: unknown } }[];
  /** Counts as the worker made them: instant, orders, USDT. */
  readonly counts: { at: number; orders: number; volume: string }[];
  /** Instants (of its clock) of the orders asked for after the hour that went out (mode `boundary`). */
  readonly sent: number[];
  ready: boolean;
  readonly exited: Promise<number | null>;
}

const workerPath = fileURLToPath(new URL('./count-worker.ts', import.meta.url));

function startCountWorker(
  port: number,
  prefix: string,
  name: string,
  mode: 'requests' | 'fills' | 'boundary',
  count: number,
  threshold: number,
): CountWorker {
  const proc = track(
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        luaText,
        workerPath,
        String(port),
        prefix,
        name,
        mode,
        String(count),
        String(threshold),
      ],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    ),
  );
  const w: CountWorker = {
    proc,
    events: [],
    counts: [],
    sent: [],
    ready: false,
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
  };
  onLines(proc, (line) => {
    const [tag, at, a, b] = line.split(' ');
    if (tag === 'ready') w.ready = true;
    else if (tag === 'event') w.events.push({ at: Number(at), event: JSON.parse(line.slice(line.indexOf('{'))) });
    else if (tag === 'c') w.counts.push({ at: Number(at), orders: Number(a), volume: b! });
    else if (tag === 's') w.sent.push(Number(at));
  });
  return w;
}

/** Redis's totals of the account's day: orders and USDT traded. */
async function dayTotals(port: number, prefix: string): Promise<{ orders: number; volume: Dec }> {
  const c = connect(port);
  try {
    const keys = await c.keys(`{${prefix}}:c:d:*`);
    let orders = 0;
    let volume = new Dec(0);
    for (const key of keys) {
      for (const [field, value] of Object.entries(await c.hgetall(key))) {
        const tag = field.slice(field.lastIndexOf(':') + 1);
        if (tag === 'p') orders += Number(value);
        else if (tag[0] === 'm' || tag[0] === 't')
          volume = volume.plus(new Dec(value).times(new Dec(10).pow(Number(tag.slice(1)))));
      }
    }
    return { orders, volume };
  } finally {
    c.disconnect();
  }
}

/** Starts four workers and, once all are loaded, tells them when to start and stop (from 1 s on). */
async function startFour(
  port: number,
  prefix: string,
  tag: string,
  mode: 'requests' | 'fills' | 'boundary',
  count: number,
  threshold: number,
  runMs: number,
  offsetFrom: (start: number) => number = () => 0,
) {
  const workers = [0, 1, 2, 3].map((i) => startCountWorker(port, prefix, `${tag}${i}`, mode, count, threshold));
  await waitFor(() => workers.every((w) => w.ready), 30_000);
  const start = Date.now() + 1000;
  const until = start + runMs;
  for (const w of workers) w.proc.stdin!.write(`${start} ${until} ${offsetFrom(start)}\n`);
  return { workers, start, until };
}

const sum = (counts: readonly { orders: number; volume: string }[]) =>
  counts.reduce((s, c) => ({ orders: s.orders + c.orders, volume: s.volume.plus(c.volume) }), {
    orders: 0,
    volume: new Dec(0),
  });

/** Makes a prefix look in use for a minute: a new one grants nothing for a window (10 s here). */
async function warm(port: number, prefix: string): Promise<void> {
  const c = connect(port);
  const [s, us] = (await c.call('TIME')) as [string, string];
  await c.set(`{${prefix}}:epoch`, String(Number(s) * 1000 + Number(us) / 1000 - 60_000));
  c.disconnect();
}

const startRedis = (port: number): ChildProcess =>
  track(
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    }),
  );

describe('four processes counting on one account', () => {
  it('engage the abuse throttle in every process on the account total, the early warning first', async () => {
    // A threshold of 100 requests (warning at 90): each process sends 40, never enough alone;
    // together they send 160. A whole hour of their shared clock falls 12 s after the start, and
    // the throttle it starts is in force one window (10 s) before it (see docs/rules.md#r15).
    const prefix = uniquePrefix('count-abuse');
    prefixes.push(prefix);
    await warm(PORT, prefix);
    const virtualHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 10 * 3_600_000;
    const { workers, start } = await startFour(
      PORT,
      prefix,
      'a',
      'requests',
      40,
      100,
      14_000,
      (s) => virtualHour - (s + 12_000),
    );
    const hourAt = start + 12_000;
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    for (const w of workers) {
      const warning = w.events.find((e) => e.event.type === 'abuse-warning');
      const throttle = w.events.find((e) => e.event.type === 'throttle' && e.event.throttle !== null);
      expect(warning).toBeDefined();
      expect(throttle).toBeDefined();
      // Warned on the account's requests (more than its own 40), before the hour.
      expect(warning!.event.requests).toBeGreaterThanOrEqual(90);
      expect(warning!.at).toBeLessThan(hourAt);
      // Throttled for the hourly check, one window before it, on nothing traded (see docs/rules.md#r9, #r15).
      expect(throttle!.at).toBeGreaterThanOrEqual(hourAt - 10_050);
      expect(throttle!.event.throttle).toMatchObject({ reason: 'no-fills', limit: 10 });
    }
  }, 60_000);

  it('have a throttle starting at a whole hour in force in every process at that hour (see docs/rules.md#r9, #r15)', async () => {
    // A threshold of 100 requests: the four send 30 each 12 s before a whole hour of their shared
    // clock, so its check throttles placement to 10 per 10 s, in force one window (10 s) before
    // it (see docs/rules.md#r15). Each asks for 20 more placements 1 ms after the hour: the account
    // may send at most 10 in its first 10 s, whichever process sends them.
    const prefix = uniquePrefix('count-boundary');
    prefixes.push(prefix);
    await warm(PORT, prefix);
    const virtualHour = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 10 * 3_600_000;
    const { workers } = await startFour(
      PORT,
      prefix,
      'b',
      'boundary',
      30,
      100,
      14_000,
      (s) => virtualHour - (s + 12_000),
    );
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);
    const sent = workers.flatMap((w) => w.sent).sort((a, b) => a - b);
    console.log(
      `after the hour: ${sent.length} placements sent, the first ${sent.length === 0 ? '-' : `${(sent[0]! - virtualHour).toFixed(0)} ms`} after it`,
    );
    for (const w of workers)
      expect(w.events.some((e) => e.event.type === 'throttle' && e.event.throttle !== null)).toBe(true);
    // The throttle, in force since 10 s before the hour: 10 in its first 10 s, and those at once.
    expect(sent.filter((at) => at < virtualHour + 10_000).length).toBeLessThanOrEqual(10);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent[0]! - virtualHour).toBeLessThan(1000);
  }, 60_000);

  it('sum in Redis what each process counted, across lost connections, a Redis restart and a killed process', async () => {
    const port = await freePort();
    let server = startRedis(port);
    const probe = connect(port);
    // A ping waits in the client's queue while nothing answers: looked at again every 250 ms.
    const answers = async () =>
      (await Promise.race([probe.ping().catch(() => ''), sleep(250).then(() => '')])) === 'PONG';
    try {
      await waitFor(answers, 5000);
      const prefix = uniquePrefix('count-faults');
      await warm(port, prefix);
      const { workers, start } = await startFour(port, prefix, 'f', 'fills', 0, 86_400, 9000);
      await sleep(start + 1500 - Date.now());
      // Every connection killed.
      const list = (await probe.call('CLIENT', 'LIST')) as string;
      const ours = list.split('\n').filter((line) => line.includes(`name=${prefix}-`));
      expect(ours).toHaveLength(4);
      for (const line of ours) await probe.call('CLIENT', 'KILL', 'ID', /id=(\d+)/.exec(line)![1]!);
      // Redis restarted, its data gone: each process writes again what it counted.
      await sleep(start + 3000 - Date.now());
      // Down for half a second; the new server takes the port once the old one is gone.
      await killAndWait(server);
      await sleep(500);
      server = startRedis(port);
      await waitFor(answers, 5000);
      // One process killed.
      await sleep(start + 6000 - Date.now());
      const victim = workers[0]!;
      victim.proc.kill('SIGKILL');
      const killedAt = Date.now();
      const codes = await Promise.all(workers.slice(1).map((w) => w.exited));
      expect(codes).toEqual([0, 0, 0]);
      await sleep(300);
      const totals = await dayTotals(port, prefix);
      const survivors = sum(workers.slice(1).flatMap((w) => w.counts));
      const killed = sum(victim.counts);
      // The killed process loses at most what it counted in its last 2 x (50 + 250) ms.
      const bound = sum(victim.counts.filter((c) => c.at >= killedAt - 600));
      expect(survivors.orders).toBeGreaterThan(0);
      expect(totals.orders).toBeLessThanOrEqual(survivors.orders + killed.orders);
      expect(totals.orders).toBeGreaterThanOrEqual(survivors.orders + killed.orders - bound.orders);
      expect(totals.volume.lessThanOrEqualTo(survivors.volume.plus(killed.volume))).toBe(true);
      expect(totals.volume.greaterThanOrEqualTo(survivors.volume.plus(killed.volume).minus(bound.volume))).toBe(true);
    } finally {
      server.kill('SIGKILL');
      probe.disconnect();
    }
  }, 60_000);
});
