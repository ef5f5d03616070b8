// A Redis Cluster of a test's own on free loopback ports: three masters and a replica of each by
// default, each a `redis-server --cluster-enabled yes` child process with its files in a temporary
// folder, joined by `redis-cli --cluster create`. `stop` ends every node and removes the folder;
// `stopChildren` does it should the test fail first. Tests and benchmarks use it to run the store
// on a cluster, fail a master over and move a slot while processes send.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, type ClusterOptions } from 'ioredis';
import { killAndWait, sleep, track, waitFor, withNode } from './harness.js';

/** A node of the cluster: its port and process. */
export interface ClusterNode {
  readonly port: number;
  proc: ChildProcess;
}

/** A node as `CLUSTER NODES` lists it. */
export interface NodeInfo {
  readonly id: string;
  readonly port: number;
  readonly master: boolean;
  /** The node is taken as failed (`fail` flag). */
  readonly failed: boolean;
  /** Of a replica, its master's id. */
  readonly masterId: string | null;
  /** Of a master, the slot ranges it serves, ends included. */
  readonly slots: readonly (readonly [number, number])[];
}

export interface ClusterStartOptions {
  /** Masters. @default 3 */
  readonly masters?: number;
  /** Replicas of each master. @default 1 */
  readonly replicas?: number;
  /**
   * `cluster-node-timeout`: how long a master must not answer before it is taken as failed and a
   * replica may be promoted, ms. @default 1000
   */
  readonly nodeTimeoutMs?: number;
}

/** What a failover took, ms of this machine's clock: from the kill to the replica serving the slots. */
export interface ClusterFailover {
  readonly killedAt: number;
  readonly promotedAt: number;
  /** The port of the master promoted. */
  readonly port: number;
}

/** Where a slot moved, and when its keys and ownership went over (ms of this machine's clock). */
export interface SlotMove {
  readonly from: number;
  readonly to: number;
  readonly startedAt: number;
  readonly doneAt: number;
  /** The keys moved. */
  readonly keys: number;
}

/** A cluster on 127.0.0.1, started by {@link RedisCluster.start}. */
export class RedisCluster {
  private constructor(
    private readonly dir: string,
    readonly nodes: readonly ClusterNode[],
    private readonly nodeTimeoutMs: number,
  ) {}

  /** Starts the nodes, joins them into a cluster, and resolves once every node says it is ok. */
  static async start(options: ClusterStartOptions = {}): Promise<RedisCluster> {
    const { masters = 3, replicas = 1, nodeTimeoutMs = 1000 } = options;
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-cluster-'));
    const ports = await clusterPorts(masters * (1 + replicas));
    const nodes = ports.map((port) => ({ port, proc: startNode(dir, port, nodeTimeoutMs) }));
    const cluster = new RedisCluster(dir, nodes, nodeTimeoutMs);
    try {
      await waitFor(async () => (await Promise.all(nodes.map((n) => answers(n.port)))).every(Boolean), 10_000);
      await create(ports, replicas);
      await cluster.ready();
    } catch (e) {
      await cluster.stop();
      throw e;
    }
    return cluster;
  }

  /** The seed nodes a cluster client is given (every node). */
  get seeds(): { host: string; port: number }[] {
    return this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  /** The cluster's nodes as URLs joined by commas: the form `traderatio proxy --redis` takes. */
  get url(): string {
    return this.nodes.map((n) => `redis://127.0.0.1:${n.port}`).join(',');
  }

  /** An ioredis cluster client, as an engine would make it, with `options` over the defaults. */
  client(options: ClusterOptions = {}): Cluster {
    const c = new Cluster(this.seeds, {
      clusterRetryStrategy: () => 50,
      ...options,
      redisOptions: { maxRetriesPerRequest: null, ...options.redisOptions },
    });
    c.on('error', () => {});
    return c;
  }

  /** The nodes as a live node lists them. */
  async info(): Promise<NodeInfo[]> {
    for (const n of this.nodes) {
      if (!running(n)) continue;
      const text = await withNode(n.port, (c) => c.call('CLUSTER', 'NODES') as Promise<string>).catch(() => null);
      if (text !== null) return parseNodes(text);
    }
    throw new Error('no node of the cluster answers');
  }

  /** The slot of `key` (by a node's `CLUSTER KEYSLOT`). */
  async slotOf(key: string): Promise<number> {
    const live = this.nodes.find(running)!;
    return withNode(live.port, async (c) => Number(await c.call('CLUSTER', 'KEYSLOT', key)));
  }

  /** The port of the master serving `slot` now. */
  async masterOf(slot: number): Promise<number> {
    const info = await this.info();
    const m = info.find((n) => n.master && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b));
    if (m === undefined) throw new Error(`no master serves slot ${slot}`);
    return m.port;
  }

  /**
   * Kills the master serving `slot` (SIGKILL) and resolves once its replica serves the slot as
   * master and every live node says the cluster is ok.
   */
  async failOver(slot: number, timeoutMs = 30_000): Promise<ClusterFailover> {
    const old = await this.masterOf(slot);
    const node = this.nodes.find((n) => n.port === old)!;
    node.proc.kill('SIGKILL');
    const killedAt = Date.now();
    let port = old;
    await waitFor(async () => {
      const info = await this.info().catch(() => []);
      const m = info.find((n) => n.master && !n.failed && n.slots.some(([a, b]) => slot >= a && slot <= b));
      if (m === undefined || m.port === old) return false;
      port = m.port;
      return withNode(port, async (c) => /role:master/.test(await c.info('replication'))).catch(() => false);
    }, timeoutMs);
    const promotedAt = Date.now();
    await this.ok(timeoutMs);
    return { killedAt, promotedAt, port };
  }

  /** Starts again a node killed, with its files: it joins as a replica of the master that took its slots. */
  async restart(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port)!;
    if (running(node)) return;
    node.proc = startNode(this.dir, port, this.nodeTimeoutMs);
    await waitFor(() => answers(port), 10_000);
    await this.ready();
  }

  /**
   * Moves `slot` to the master on `to` as `redis-cli --cluster reshard` does: the target set
   * importing and the source migrating, then the keys `MIGRATE`d a few at a time (`pauseMs`
   * between batches, so that requests meet the slot half moved: ASK and TRYAGAIN answers), then
   * the slot given to the target on every master.
   */
  async moveSlot(
    slot: number,
    to: number,
    options: { readonly batch?: number; readonly pauseMs?: number } = {},
  ): Promise<SlotMove> {
    const { batch = 1, pauseMs = 0 } = options;
    const info = await this.info();
    const from = await this.masterOf(slot);
    const id = (port: number) => info.find((n) => n.port === port)!.id;
    if (from === to) throw new Error(`slot ${slot} is on ${to} already`);
    const startedAt = Date.now();
    await withNode(to, (c) => c.call('CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', id(from)));
    await withNode(from, (c) => c.call('CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', id(to)));
    let keys = 0;
    for (;;) {
      const some = (await withNode(from, (c) =>
        c.call('CLUSTER', 'GETKEYSINSLOT', String(slot), String(batch)),
      )) as string[];
      if (some.length === 0) break;
      await withNode(from, (c) => c.call('MIGRATE', '127.0.0.1', String(to), '', '0', '5000', 'KEYS', ...some));
      keys += some.length;
      if (pauseMs > 0) await sleep(pauseMs);
    }
    // The target first, so that no node points back at the source while it still serves the slot.
    const masters = info.filter((n) => n.master && !n.failed).map((n) => n.port);
    for (const port of [to, from, ...masters.filter((p) => p !== to && p !== from)])
      await withNode(port, (c) => c.call('CLUSTER', 'SETSLOT', String(slot), 'NODE', id(to)));
    return { from, to, startedAt, doneAt: Date.now(), keys };
  }

  /** Sums a field of `INFO` section `section` (such as `errorstats` or `cpu`) over the live masters. */
  async sumInfo(section: string, field: RegExp): Promise<number> {
    const info = await this.info();
    let sum = 0;
    for (const n of info.filter((x) => x.master && !x.failed)) {
      const text = await withNode(n.port, (c) => c.info(section)).catch(() => '');
      for (const line of text.split('\n')) {
        const m = field.exec(line);
        if (m !== null) sum += Number(m[1]);
      }
    }
    return sum;
  }

  /** Deletes the keys of `prefix` (all in one slot, on one master). */
  async clean(prefix: string): Promise<void> {
    const port = await this.masterOf(await this.slotOf(`{${prefix}}`));
    await withNode(port, async (c) => {
      const keys = await c.keys(`{${prefix}}:*`);
      if (keys.length > 0) await c.del(...keys);
    });
  }

  /** Stops every node and removes the folder. */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map(({ proc }) => killAndWait(proc)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Every live node says the cluster is ok and knows every slot. */
  private async ok(timeoutMs: number): Promise<void> {
    await waitFor(async () => {
      const states = await Promise.all(
        this.nodes
          .filter(running)
          .map((n) => withNode(n.port, (c) => c.call('CLUSTER', 'INFO') as Promise<string>).catch(() => '')),
      );
      return states.every((s) => /cluster_state:ok/.test(s) && /cluster_slots_ok:16384/.test(s));
    }, timeoutMs);
  }

  /** The cluster is ok on every node, every node knows the others, and each replica is in sync. */
  private async ready(): Promise<void> {
    await this.ok(30_000);
    await waitFor(async () => {
      const views = await Promise.all(
        this.nodes.filter(running).map((n) =>
          withNode(n.port, async (c) => {
            const nodes = parseNodes((await c.call('CLUSTER', 'NODES')) as string);
            const replication = await c.info('replication');
            const synced = !/role:slave/.test(replication) || /master_link_status:up/.test(replication);
            return synced && nodes.length === this.nodes.length && nodes.every((x) => !x.failed);
          }).catch(() => false),
        ),
      );
      return views.every(Boolean);
    }, 30_000);
  }
}

function startNode(dir: string, port: number, nodeTimeoutMs: number): ChildProcess {
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, `nodes-${port}.conf`),
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--dbfilename',
    `dump-${port}.rdb`,
    '--cluster-node-timeout',
    String(nodeTimeoutMs),
  ];
  return track(spawn('redis-server', args, { stdio: 'ignore' }));
}

/** `redis-cli --cluster create`: the first ports become masters, the rest their replicas. */
function create(ports: readonly number[], replicas: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const cli = track(
      spawn(
        'redis-cli',
        [
          '--cluster',
          'create',
          ...ports.map((p) => `127.0.0.1:${p}`),
          '--cluster-replicas',
          String(replicas),
          '--cluster-yes',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );
    let out = '';
    cli.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    cli.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    cli.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`redis-cli --cluster create exited ${code}: ${out}`)),
    );
  });
}

function parseNodes(text: string): NodeInfo[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, addr, flags, masterId, , , , , ...slots] = line.trim().split(' ');
      const port = Number(addr!.split('@')[0]!.split(':')[1]);
      return {
        id: id!,
        port,
        master: flags!.split(',').includes('master'),
        failed: /(^|,)fail(,|$)/.test(flags!),
        masterId: masterId === '-' ? null : masterId!,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [a, b] = s.split('-');
            return [Number(a), Number(b ?? a)] as const;
          }),
      };
    });
}

function running(n: ClusterNode): boolean {
  return n.proc.exitCode === null && n.proc.signalCode === null;
}

function answers(port: number): Promise<boolean> {
  return withNode(port, async (c) => (await c.ping()) === 'PONG').catch(() => false);
}

/** Whether nothing listens on `port` of 127.0.0.1 now. */
function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * `n` ports below 55535 that are free with their cluster bus ports (port + 10000), drawn at random
 * away from the system's own picks and from Redis's usual 6379 and 7000s.
 */
async function clusterPorts(n: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < n) {
    const p = 20_000 + Math.floor(Math.random() * 25_000);
    if (ports.some((q) => Math.abs(q - p) === 10_000 || q === p)) continue;
    if ((await isFree(p)) && (await isFree(p + 10_000))) ports.push(p);
  }
  return ports;
}
