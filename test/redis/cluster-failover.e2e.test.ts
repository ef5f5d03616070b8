import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { type RedisCluster as Started, RedisCluster } from './cluster.js';
import type { WorkerFamily } from './cluster-worker.js';
import { onLines, sleep, startTsProcess, stopChildren, waitFor, withNode } from './harness.js';

// Four engine processes on a Redis Cluster of the test's own (three masters, a replica of each),
// each placing orders on the model exchange for five accounts in three families: two families
// whose slots one master holds, one on another master. That master is killed mid-run and its
// replica promoted, or one of the two families' slot is moved to another master key by key. The
// model exchange counts what arrives.
afterEach(stopChildren);

/** When the master is killed or the slot moved, ms from the workers' start. */
const DISTURB_AT_MS = 5000;
/**
 * After the disturbance, how long the workers have to place again on every family and in every
 * process (a liveness bound, however busy the machine), and how long they go on after that, ms.
 */
const RESUME_WITHIN_MS = 20_000;
const AFTER_MS = 1000;

interface ClusterWorker {
  readonly proc: ChildProcess;
  /** Placements sent, by family: epoch ms. */
  readonly sent: Map<string, number[]>;
  /** Answers, as they came. */
  readonly answers: { family: string; account: string; at: number; status: number }[];
  /** The stores' events, by family: epoch ms and type. */
  readonly events: { family: string; at: number; type: string }[];
  ready: boolean;
  readonly exited: Promise<number | null>;
}

const workerPath = fileURLToPath(new URL('./cluster-worker.ts', import.meta.url));

function startWorker(cluster: Started, prefix: string, exchange: string, families: readonly WorkerFamily[]) {
  const proc = startTsProcess(workerPath, [
    cluster.nodes.map((n) => n.port).join(','),
    prefix,
    exchange,
    JSON.stringify(families),
    '12',
  ]);
  const w: ClusterWorker = {
    proc,
    sent: new Map(),
    answers: [],
    events: [],
    ready: false,
    exited: new Promise((resolve) => proc.on('exit', (code) => resolve(code))),
  };
  onLines(proc, (line) => {
    const [tag, family, account, at, status] = line.split(' ');
    if (tag === 'ready') w.ready = true;
    else if (tag === 's') w.sent.set(family!, [...(w.sent.get(family!) ?? []), Number(at)]);
    else if (tag === 'event') w.events.push({ family: family!, at: Number(account), type: at! });
    else if (tag === 'p')
      w.answers.push({ family: family!, account: account!, at: Number(at), status: Number(status) });
  });
  return w;
}

/** A family of a main account and `subs` sub-accounts, keys `<family>-<account>-key`. */
function family(id: string, subs: number): WorkerFamily {
  const accounts = [
    { id: `${id}-main`, role: 'main' as const, key: `${id}-main-key` },
    ...Array.from({ length: subs }, (_, i) => ({
      id: `${id}-sub${i}`,
      role: 'sub' as const,
      key: `${id}-sub${i}-key`,
    })),
  ];
  return { id, accounts };
}

/** The placements a family's counts in the cluster hold (its day hashes, on the master of its slot now). */
async function countedPlacements(cluster: Started, prefix: string): Promise<number> {
  const port = await cluster.masterOf(await cluster.slotOf(`{${prefix}}`));
  return withNode(port, async (c) => {
    let orders = 0;
    for (const key of await c.keys(`{${prefix}}:c:d:*`))
      for (const [field, value] of Object.entries(await c.hgetall(key)))
        if (field.endsWith(':p')) orders += Number(value);
    return orders;
  });
}

/**
 * Four workers; 5 s in, `disturb` fails the master of the first two families over or
 * moves the first family's slot. Asserts what must hold; prints what was seen.
 */
async function run(
  name: string,
  disturb: (cluster: Started, slot: number) => Promise<{ from: number; to: number; what: string }>,
): Promise<void> {
  const cluster = await RedisCluster.start();
  const prefix = `tr-test-${name}-${process.pid}`;
  // Two families on one master, a third on another.
  const first = await cluster.masterOf(await cluster.slotOf(`{${prefix}:a0}`));
  const onFirst: string[] = [];
  let elsewhere = '';
  for (let i = 0; onFirst.length < 2 || elsewhere === ''; i++) {
    const id = `a${i}`;
    const port = await cluster.masterOf(await cluster.slotOf(`{${prefix}:${id}}`));
    if (port === first && onFirst.length < 2) onFirst.push(id);
    else if (port !== first && elsewhere === '') elsewhere = id;
  }
  const families = [family(onFirst[0]!, 1), family(onFirst[1]!, 1), family(elsewhere, 0)];
  const exchange = await startModelExchange({
    port: 0,
    fills: { maker: 0, taker: 0 },
    accounts: {
      families: families.map((f) => ({
        id: f.id,
        accounts: f.accounts.map((a) => ({
          id: a.id,
          role: a.role,
          keys: [{ key: a.key, secret: `${a.key}-secret` }],
        })),
      })),
    },
  });
  try {
    const workers = [0, 1, 2, 3].map(() => startWorker(cluster, prefix, exchange.url, families));
    await waitFor(() => workers.every((w) => w.ready), 60_000);
    const start = Date.now();
    // Until told when to stop.
    for (const w of workers) w.proc.stdin!.write(`${start + 120_000}\n`);
    await sleep(start + DISTURB_AT_MS - Date.now());
    const slot = await cluster.slotOf(`{${prefix}:${onFirst[0]}}`);
    const d = await disturb(cluster, slot);
    const placedAfter = (w: ClusterWorker, f?: string) =>
      w.answers.some((a) => a.at > d.to && a.status < 300 && (f === undefined || a.family === f));
    await waitFor(
      () => workers.every((w) => placedAfter(w)) && families.every((f) => workers.some((w) => placedAfter(w, f.id))),
      RESUME_WITHIN_MS,
    ).catch(() => {});
    const until = Date.now() + AFTER_MS;
    for (const w of workers) w.proc.stdin!.end(`${until}\n`);
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes).toEqual([0, 0, 0, 0]);

    const answers = workers.flatMap((w) => w.answers);
    const stats = exchange.stats().accounts;
    const place = (account: string) => stats.find((s) => s.account === account)!;
    const seen = await Promise.all(
      families.map(async (f) => ({
        f,
        sent: workers.reduce((n, w) => n + (w.sent.get(f.id)?.length ?? 0), 0),
        counted: await countedPlacements(cluster, `${prefix}:${f.id}`),
        // From the end of the disturbance to the family's next placement answered.
        resumed:
          Math.min(...answers.filter((a) => a.family === f.id && a.status < 300 && a.at > d.to).map((a) => a.at)) -
          d.to,
        most: f.accounts.map((a) => place(a.id).limits.find((l) => l.key === 'futures.place')?.most ?? 0),
        perSecond: Array.from(
          { length: Math.ceil((until - start) / 1000) },
          (_, k) =>
            answers.filter(
              (a) => a.family === f.id && a.status < 300 && a.at >= start + k * 1000 && a.at < start + (k + 1) * 1000,
            ).length,
        ),
        events: workers.map((w) =>
          w.events
            .filter((e) => e.family === f.id)
            .map((e) => `${e.type}@${e.at - d.from}`)
            .join(','),
        ),
        // Per process: placements answered before the disturbance, and after it.
        each: workers.map((w) => {
          const mine = w.answers.filter((a) => a.family === f.id && a.status < 300);
          return [mine.filter((a) => a.at < d.from).length, mine.filter((a) => a.at > d.to).length] as const;
        }),
      })),
    );
    console.log(
      [
        `${name}: ${d.what}`,
        ...seen.map(
          (x) =>
            `  family ${x.f.id}${onFirst.includes(x.f.id) ? ` (slot's master ${first})` : ''}: ${x.sent} sent, ${x.counted} counted in Redis, ` +
            `most arrivals in any second per account ${x.most.join(', ')}, placing again ${x.resumed} ms after it, ` +
            `placed before/after per process ${x.each.map(([b, a]) => `${b}/${a}`).join(' ')}, per second ${x.perSecond.join(' ')}; events from the disturbance, per process: ${x.events.join(' | ')}`,
        ),
      ].join('\n'),
    );
    for (const x of seen) {
      // Nothing over any account's limit at the exchange, which counts arrivals.
      for (const a of x.f.accounts) expect(place(a.id).refused).toEqual({});
      for (const m of x.most) expect(m).toBeLessThanOrEqual(100);
      // The family's counts on the master that holds them now: every placement sent, once.
      expect(x.counted).toBe(x.sent);
      // Placing before the disturbance, and again after it (how soon, the machine's speed decides:
      // it is printed above).
      expect(x.each.some(([before]) => before > 0)).toBe(true);
      expect(x.resumed).toBeLessThan(RESUME_WITHIN_MS);
    }
    // No process wedged: each places again after the disturbance.
    for (let i = 0; i < workers.length; i++) expect(seen.some((x) => x.each[i]![1] > 0)).toBe(true);
  } finally {
    await exchange.close();
    await cluster.stop();
  }
}

describe('four processes on five accounts of three families on a Redis Cluster', () => {
  it('go through a failover of the master of two families with nothing over any limit, go on after the promotion, and keep the counts whole', async () => {
    await run('cluster-failover', async (cluster, slot) => {
      const f = await cluster.failOver(slot);
      return {
        from: f.killedAt,
        to: f.promotedAt,
        what: `master killed, replica on ${f.port} promoted ${f.promotedAt - f.killedAt} ms later`,
      };
    });
  }, 120_000);

  it('go through a move of a family’s slot to another master, key by key, with the same guarantees', async () => {
    await run('cluster-move', async (cluster, slot) => {
      const from = await cluster.masterOf(slot);
      const to = (await cluster.info()).find((n) => n.master && !n.failed && n.port !== from)!.port;
      const m = await cluster.moveSlot(slot, to, { batch: 2, pauseMs: 20 });
      return {
        from: m.startedAt,
        to: m.doneAt,
        what: `slot ${slot} moved from ${m.from} to ${m.to} (${m.keys} keys) in ${m.doneAt - m.startedAt} ms`,
      };
    });
  }, 120_000);
});
