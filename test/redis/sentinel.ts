// A Redis master, its replicas and three Sentinels of a test's own, on free loopback ports, for
// tests that fail a Redis over: each server is a child process started with a configuration file
// in a temporary folder, stopped (and the folder removed) by `stop`, or by `stopChildren` should
// the test fail first.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAndWait, sleep, track, waitFor, withNode } from './harness.js';

/** The name the Sentinels monitor the master under. */
export const MASTER_NAME = 'traderatio-test';

/** A loopback port nothing listens on now (the system's pick). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A `redis-server` of its own on a free loopback port, keeping nothing on disk, once it answers. */
export async function privateRedis(): Promise<{ port: number; proc: ChildProcess }> {
  const port = await freePort();
  const proc = track(
    spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    }),
  );
  await waitFor(() => withNode(port, async (c) => (await c.ping()) === 'PONG').catch(() => false), 10_000);
  return { port, proc };
}

/** A `redis-server` (or Sentinel) of the set: its port and process. */
export interface SentinelNode {
  readonly port: number;
  readonly proc: ChildProcess;
}

export interface SentinelOptions {
  /** Replicas of the master. @default 1 */
  readonly replicas?: number;
  /** How long a master must not answer before a Sentinel takes it as down, ms. @default 300 */
  readonly downAfterMs?: number;
  /** Sentinel's failover timeout, ms. @default 2000 */
  readonly failoverTimeoutMs?: number;
}

/** What a failover took, ms of this machine's clock: from the kill to the replica answering as master. */
export interface Failover {
  readonly killedAt: number;
  readonly promotedAt: number;
  /** The port of the new master. */
  readonly port: number;
  /** Whether writes the master acknowledged were lost with it (with `lagMs`: its ballast is not on the new master). */
  readonly lost: boolean;
}

/**
 * A master, its replicas and three Sentinels (quorum 2) on 127.0.0.1. `clientOptions` connect an
 * ioredis client through the Sentinels, as an engine would.
 */
export class SentinelSet {
  private constructor(
    private readonly dir: string,
    readonly master: SentinelNode,
    readonly replicas: readonly SentinelNode[],
    readonly sentinels: readonly SentinelNode[],
  ) {}

  /** Starts the set and resolves once every Sentinel knows the master, the replicas and the other two. */
  static async start(options: SentinelOptions = {}): Promise<SentinelSet> {
    const { replicas = 1, downAfterMs = 300, failoverTimeoutMs = 2000 } = options;
    const dir = mkdtempSync(join(tmpdir(), 'traderatio-sentinel-'));
    const ports = await distinctPorts(2 + replicas + 2);
    const server = (port: number, extra: string[] = []): SentinelNode => {
      const file = join(dir, `redis-${port}.conf`);
      writeFileSync(
        file,
        [`port ${port}`, 'bind 127.0.0.1', 'save ""', 'appendonly no', `dir ${dir}`, ...extra].join('\n'),
      );
      return { port, proc: track(spawn('redis-server', [file], { stdio: 'ignore' })) };
    };
    const [masterPort, ...rest] = ports;
    const master = server(masterPort!);
    const replicaNodes = rest.slice(0, replicas).map((p) => server(p, [`replicaof 127.0.0.1 ${masterPort}`]));
    const sentinelNodes = rest.slice(replicas).map((port) => {
      const file = join(dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          'bind 127.0.0.1',
          `dir ${dir}`,
          `sentinel monitor ${MASTER_NAME} 127.0.0.1 ${masterPort} 2`,
          `sentinel down-after-milliseconds ${MASTER_NAME} ${downAfterMs}`,
          `sentinel failover-timeout ${MASTER_NAME} ${failoverTimeoutMs}`,
          `sentinel parallel-syncs ${MASTER_NAME} 1`,
        ].join('\n'),
      );
      return { port, proc: track(spawn('redis-server', [file, '--sentinel'], { stdio: 'ignore' })) };
    });
    const set = new SentinelSet(dir, master, replicaNodes, sentinelNodes);
    try {
      await set.ready();
    } catch (e) {
      await set.stop();
      throw e;
    }
    return set;
  }

  /** ioredis options that reach the master through the Sentinels, whichever node it is. */
  clientOptions(name?: string) {
    return {
      sentinels: this.sentinels.map((s) => ({ host: '127.0.0.1', port: s.port })),
      name: MASTER_NAME,
      maxRetriesPerRequest: null,
      retryStrategy: () => 20,
      sentinelRetryStrategy: () => 20,
      ...(name === undefined ? {} : { connectionName: name }),
    };
  }

  /** The port of the master the Sentinels name now. */
  async masterPort(): Promise<number> {
    return withNode(this.sentinels[0]!.port, async (c) => {
      const [, port] = (await c.call('SENTINEL', 'get-master-addr-by-name', MASTER_NAME)) as [string, string];
      return Number(port);
    });
  }

  /**
   * Kills the master (SIGKILL: what it had not replicated is lost) and resolves once a replica
   * answers as master and the Sentinels name it. With `lagMs`, the replicas are stopped (SIGSTOP)
   * and the master killed `lagMs / 2` after the master took a ballast too large to wait in the
   * sockets: what it wrote since is lost with it, as behind a replica that lagged. The replicas go
   * on `lagMs / 2` after the kill.
   */
  async failOver(options: { readonly lagMs?: number; readonly timeoutMs?: number } = {}): Promise<Failover> {
    const { lagMs = 0, timeoutMs = 20_000 } = options;
    const old = this.master.port;
    if (lagMs > 0) {
      // The replicas stopped (SIGSTOP), then a ballast larger than the sockets' buffers: what the
      // master writes after it waits in its own memory, and dies with it.
      for (const r of this.replicas) r.proc.kill('SIGSTOP');
      await withNode(old, (c) => c.set('traderatio-test-ballast', Buffer.alloc(32 * 1024 * 1024, 120)));
      await sleep(lagMs / 2);
    }
    this.master.proc.kill('SIGKILL');
    const killedAt = Date.now();
    if (lagMs > 0) {
      await sleep(lagMs / 2);
      for (const r of this.replicas) r.proc.kill('SIGCONT');
    }
    let port = old;
    await waitFor(async () => {
      port = await this.masterPort().catch(() => old);
      if (port === old) return false;
      return withNode(port, async (c) => /role:master/.test(await c.info('replication'))).catch(() => false);
    }, timeoutMs);
    const lost = lagMs > 0 && (await withNode(port, (c) => c.exists('traderatio-test-ballast'))) === 0;
    return { killedAt, promotedAt: Date.now(), port, lost };
  }

  /** Stops every server of the set and removes its folder. */
  async stop(): Promise<void> {
    const all = [this.master, ...this.replicas, ...this.sentinels];
    for (const r of this.replicas) r.proc.kill('SIGCONT');
    await Promise.all(all.map(({ proc }) => killAndWait(proc)));
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Every node answers, each replica is in sync, and each Sentinel knows the replicas and the other Sentinels. */
  private async ready(): Promise<void> {
    const answers = (port: number) => withNode(port, async (c) => (await c.ping()) === 'PONG').catch(() => false);
    await waitFor(
      async () => (await Promise.all([this.master, ...this.replicas].map((n) => answers(n.port)))).every(Boolean),
      10_000,
    );
    await waitFor(
      async () =>
        (
          await Promise.all(
            this.replicas.map((r) =>
              withNode(r.port, async (c) => /master_link_status:up/.test(await c.info('replication'))).catch(
                () => false,
              ),
            ),
          )
        ).every(Boolean),
      10_000,
    );
    // Sentinels find the replicas by asking the master, and each other on its hello channel
    // (every 2 s): until each knows both, a vote could not be won.
    await waitFor(async () => {
      const known = await Promise.all(
        this.sentinels.map((s) =>
          withNode(s.port, async (c) => {
            const others = (await c.call('SENTINEL', 'sentinels', MASTER_NAME)) as unknown[];
            const replicas = (await c.call('SENTINEL', 'replicas', MASTER_NAME)) as string[][];
            const up = replicas.filter((r) => !String(r[r.indexOf('flags') + 1]).includes('down'));
            return others.length === this.sentinels.length - 1 && up.length === this.replicas.length;
          }).catch(() => false),
        ),
      );
      return known.every(Boolean);
    }, 20_000);
  }
}

async function distinctPorts(n: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}
