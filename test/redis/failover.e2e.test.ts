import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { luaText, onLines, sleep, stopChildren, track, waitFor } from './harness.js';
import { MASTER_NAME, SentinelSet } from './sentinel.js';

// Four engine processes saturate one account through a Redis store whose master fails over: a
// Redis master, a replica and three Sentinels of the test's own (test/redis/sentinel.ts), the
// master killed mid-run and the replica promoted. The model exchange counts what arrives.
afterEach(stopChildren);

interface FailoverWorker {
  readonly proc: ChildProcess;
  /** Placements sent (counted when they start), epoch ms. */
  readonly sent: number[];
  /** Answers, as they came: epoch ms and status. */
  readonly answers: { at: number; status: number }[];
  readonly events: { at: number; type: string }[];
  ready: boolean;
  readonly exited: Promise<number | null>;
}

const workerPath = fileURLToPath(new URL('./failover-worker.ts', import.meta.url));

function startWorker(set: SentinelSet, prefix: string, exchange: string, name: string): FailoverWorker {
  const proc = track(
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--import',
        luaText,
        workerPath,
        set.sentinels.map((s) => s.port).join(','),
        MASTER_NAME,
        prefix,
        exchange,
        name,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  const w: FailoverWorker = {
    proc,
    sent: [],
    answers: [],
    events: [],
    ready: false,
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
  };
  onLines(proc, (line) => {
    const [tag, at, rest] = line.split(' ');
    if (tag === 'ready') w.ready = true;
    else if (tag === 's') w.sent.push(Number(at));
    else if (tag === 'p') w.answers.push({ at: Number(at), status: Number(rest) });
    else if (tag === 'event') w.events.push({ at: Number(at), type: rest! });
  });
  return w;
}

/** The placements the account's counts in Redis hold (the day's hashes, on the master now). */
async function countedPlacements(port: number, prefix: string): Promise<number> {
  const c = new Redis({ port, host: '127.0.0.1' });
  try {
    let orders = 0;
    for (const key of await c.keys(`{${prefix}}:c:d:*`))
      for (const [field, value] of Object.entries(await c.hgetall(key)))
        if (field.endsWith(':p')) orders += Number(value);
    return orders;
  } finally {
    c.disconnect();
  }
}

/**
 * Each limit's weight counted on the new master, beside the sum of its entries' weights: always
 * equal, whatever a client sent twice across the failover.
 */
async function countedAndEntries(port: number, prefix: string): Promise<Record<string, [number, number]>> {
  const c = new Redis({ port, host: '127.0.0.1' });
  try {
    const out: Record<string, [number, number]> = {};
    for (const key of await c.keys(`{${prefix}}:m:*`)) {
      const fields = Object.entries(await c.hgetall(key));
      const entries = fields.filter(([f]) => f.startsWith('#')).reduce((sum, [, v]) => sum + Number(v), 0);
      out[key.slice(key.indexOf(':m:') + 3)] = [Number(fields.find(([f]) => f === 'used')?.[1] ?? 0), entries];
    }
    return out;
  } finally {
    c.disconnect();
  }
}

/**
 * Four workers on one account through Sentinels for 7 s, the master killed 2.5 s in (`lagMs`: its
 * replica stops reading it for that long first); prints what it saw and asserts what must hold.
 */
async function runFailover(name: string, lagMs: number): Promise<void> {
  const set = await SentinelSet.start();
  // Tier 1: 100 placements a second for the account.
  const exchange = await startModelExchange({ port: 0, fills: { maker: 0, taker: 0 } });
  try {
    const prefix = `tr-test-${name}-${process.pid}`;
    const workers = [0, 1, 2, 3].map((i) => startWorker(set, prefix, exchange.url, `f${i}`));
    await waitFor(() => workers.every((w) => w.ready), 30_000);
    const start = Date.now();
    const until = start + 7000;
    for (const w of workers) w.proc.stdin!.end(`${until}\n`);
    await sleep(start + 2500 - Date.now());
    const failover = await set.failOver({ lagMs });
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);

    const answers = workers.flatMap((w) => w.answers).sort((a, b) => a.at - b.at);
    const placed = answers.filter((a) => a.status < 300);
    const place = exchange.stats().accounts[0]!.limits.find((l) => l.key === 'futures.place')!;
    const resumed = placed.find((a) => a.at >= failover.promotedAt)?.at ?? Number.NaN;
    const perSecond = [0, 1, 2, 3, 4, 5, 6].map(
      (k) => placed.filter((a) => a.at >= start + k * 1000 && a.at < start + (k + 1) * 1000).length,
    );
    const sent = workers.flatMap((w) => w.sent).length;
    const counted = await countedPlacements(failover.port, prefix);
    console.log(
      `${name}: master killed ${failover.killedAt - start} ms into the run${lagMs > 0 ? `, its replica ${lagMs / 2} ms behind (writes lost: ${failover.lost})` : ''}, ` +
        `replica promoted ${failover.promotedAt - failover.killedAt} ms later; placements resumed ${resumed - failover.promotedAt} ms after the promotion; ` +
        `placed per second ${perSecond.join(' ')}; ${answers.length - placed.length} refused; most arrivals in any second at the exchange ${place.most}; ` +
        `${counted} placements counted in Redis of ${sent} sent`,
    );
    // Nothing over the limit at the exchange, which counts arrivals.
    expect(exchange.stats().accounts[0]!.refused).toEqual({});
    expect(place.most).toBeLessThanOrEqual(100);
    // Placing before the kill and again after the promotion, in every process.
    for (const w of workers) {
      expect(w.answers.some((a) => a.at < failover.killedAt && a.status < 300)).toBe(true);
      expect(w.answers.some((a) => a.at >= failover.promotedAt && a.status < 300)).toBe(true);
    }
    // The account's counts on the new master: every placement the four sent, once.
    expect(counted).toBe(sent);
    // And each limit's weight counted is that of its entries: nothing counted that will not leave.
    for (const [used, entries] of Object.values(await countedAndEntries(failover.port, prefix)))
      expect(used).toBe(entries);
  } finally {
    await exchange.close();
    await set.stop();
  }
}

describe('four processes on one account through Redis Sentinel', () => {
  it('go through a failover of the master with nothing over the limit, go on once the replica is promoted, and keep the counts whole', async () => {
    await runFailover('failover', 0);
  }, 90_000);

  it('do the same when the replica promoted lagged the master by 300 ms', async () => {
    await runFailover('failover-lagged', 600);
  }, 90_000);
});
