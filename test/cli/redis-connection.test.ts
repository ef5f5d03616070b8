import type { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proxyCommand as proxyCommandSpec } from '../../src/cli/commands/proxy.js';
import { proxyCommand } from '../../src/cli/proxy.js';
import {
  type RedisConnection,
  connectNodeRedis,
  connectRedis,
  redact,
  redisNodes,
} from '../../src/cli/redis-connection.js';
import { startModelExchange } from '../../src/model-exchange/index.js';
import { RedisStore } from '../../src/redis/store.js';
import { Scheduler } from '../../src/schedule/scheduler.js';
import { REDIS_URL } from '../redis/address.js';
import { RedisCluster } from '../redis/cluster.js';
import { stopChildren, uniquePrefix } from '../redis/harness.js';

describe('redisNodes', () => {
  it('reads one URL, or a cluster’s nodes joined by commas', () => {
    expect(redisNodes('redis://127.0.0.1:6379').map(String)).toEqual(['redis://127.0.0.1:6379']);
    expect(redisNodes('redis://a:7000, redis://b:7001').map(String)).toEqual(['redis://a:7000', 'redis://b:7001']);
  });

  it('gives a node written host:port the first one’s scheme and credentials', () => {
    expect(redisNodes('rediss://u:p@a:7000,b:7001,c:7002').map(String)).toEqual([
      'rediss://u:p@a:7000',
      'rediss://u:p@b:7001',
      'rediss://u:p@c:7002',
    ]);
  });

  it('refuses what is not a Redis URL, naming it without its password', () => {
    expect(() => redisNodes('http://a:7000')).toThrow(/--redis takes a Redis URL .* got "http:\/\/a:7000"/);
    expect(() => redisNodes('redis://a:7000,')).toThrow(/got ""/);
    expect(() => redisNodes('a:7000')).toThrow(/got "a:7000"/);
    expect(() => redisNodes('redis://u:secret@a:7000,http://b')).toThrow(/got "http:\/\/b"/);
  });
});

describe('redact', () => {
  it('hides each node’s password', () => {
    expect(redact('redis://u:secret@a:7000,redis://:secret@b:7001')).toBe('redis://u:***@a:7000,redis://:***@b:7001');
  });
});

describe('connectRedis and traderatio proxy --redis on a Redis Cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start();
  });
  afterAll(async () => {
    await cluster?.stop();
    stopChildren();
  });

  /** A cluster client (`c`) sends one task through a store on a prefix of its own, cleaned after. */
  async function sendsOnCluster(c: RedisConnection, name: string): Promise<void> {
    expect(c.cluster).toBe(true);
    const prefix = uniquePrefix(name);
    const store = new RedisStore({ client: c.client, prefix });
    const scheduler = new Scheduler({ store });
    const l = scheduler.limit({ name: 'x', limit: 1_000_000_000, windowMs: 1000 });
    expect(await scheduler.schedule(() => 'sent', { limits: l })).toBe('sent');
    scheduler.close();
    await store.close();
    await cluster.clean(prefix);
    await c.close();
  }

  it('connects a cluster client to several nodes, or to one node of a cluster, and a plain one to one Redis', async () => {
    const [first] = cluster.seeds;
    for (const value of [cluster.url, `redis://127.0.0.1:${first!.port}`])
      await sendsOnCluster(await connectRedis(value), 'cli-cluster');
    const single = await connectRedis(REDIS_URL);
    expect(single.cluster).toBe(false);
    await single.close();
  });

  it('connects node-redis the same ways where ioredis is not installed', async () => {
    const nr = await import('redis');
    const [first] = cluster.seeds;
    for (const value of [cluster.url, `redis://127.0.0.1:${first!.port}`])
      await sendsOnCluster(await connectNodeRedis(nr, redisNodes(value)), 'cli-cluster-nr');
    const single = await connectNodeRedis(nr, redisNodes(REDIS_URL));
    expect(single.cluster).toBe(false);
    await single.close();
  });

  it('refuses a cluster none of whose nodes answers, naming the option', async () => {
    const dead = cluster.seeds.map((s) => `redis://127.0.0.1:${s.port + 1}`).join(',');
    await expect(connectRedis(dead)).rejects.toThrow(/--redis/);
  }, 30_000);

  it('keeps each family’s limits and counts under its prefix in the cluster', async () => {
    const exchange = await startModelExchange({ port: 0 });
    const prefix = uniquePrefix('cli-proxy');
    const lines: string[] = [];
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    const values = { port: '0', upstream: exchange.url, redis: cluster.url, 'redis-prefix': prefix };
    await proxyCommand(
      {
        values: new Map(Object.entries(values)),
        typed: new Map(Object.keys(values).map((k) => [k, `--${k}`])),
        positionals: [],
      },
      {
        out: (line) => {
          lines.push(line);
          const url = /^traderatio proxy: (http:\/\/\S+) -> /.exec(line)?.[1];
          if (url === undefined) return;
          void fetch(`${url}/api/v4/futures/usdt/orders`, {
            method: 'POST',
            headers: { KEY: 'main-key' },
            body: JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' }),
          })
            .then((res) => res.text())
            .then(() => stop('SIGTERM'));
        },
        stop: stopped,
        stdin: (async function* () {})(),
      },
      proxyCommandSpec.options,
    );
    await exchange.close();
    expect(lines[2]).toMatch(
      /^ {2}1 family, limits and counts shared in a Redis Cluster \(redis:\/\/127\.0\.0\.1:\d+,/,
    );
    expect(lines).toContain('  default: 1 sent, 0 answered by the proxy');
    const client: Cluster = cluster.client();
    const family = `${prefix}:default`;
    const port = await cluster.masterOf(await cluster.slotOf(`{${family}}`));
    const node = client.nodes('master').find((n) => n.options.port === port)!;
    expect((await node.keys(`{${family}}:*`)).length).toBeGreaterThan(0);
    await cluster.clean(family);
    client.disconnect();
  });
});
