import { InvalidInputError } from '../errors.js';
import { UsageError } from './options.js';

export type IoRedis = Pick<typeof import('ioredis'), 'Redis' | 'Cluster'>;
export type NodeRedis = Pick<typeof import('redis'), 'createClient' | 'createCluster'>;

/** A Redis client the store can use, and how to let it go. */
export interface RedisConnection {
  readonly client: unknown;
  /** Whether the client is a cluster client. */
  readonly cluster: boolean;
  close(): Promise<void>;
}

/**
 * The nodes `--redis` names: one URL (`redis://host:6379`, `rediss://user:pass@host:6380/0`), or a
 * Redis Cluster's seed nodes, several URLs joined by commas (`redis://a:7000,redis://b:7001`),
 * where a node after the first may be written `host:port` alone and takes the first one's scheme
 * and credentials (`redis://:pass@a:7000,b:7001,c:7002`): `redis://10.0.0.1:7000,10.0.0.2:7001` names
 * `redis://10.0.0.1:7000` and `redis://10.0.0.2:7001`.
 */
export function redisNodes(value: string): URL[] {
  const parts = value.split(',').map((p) => p.trim());
  const bad = (part: string): never => {
    throw new UsageError(
      `--redis takes a Redis URL such as redis://127.0.0.1:6379, or a cluster's nodes joined by commas such as redis://10.0.0.1:7000,redis://10.0.0.2:7001, got "${redact(part)}"`,
    );
  };
  const urls: URL[] = [];
  for (const part of parts) {
    const first = urls[0];
    const text = first !== undefined && !part.includes('://') ? withOrigin(first, part) : part;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return bad(part);
    }
    if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') return bad(part);
    urls.push(url);
  }
  return urls;
}

/** `host:port` with the scheme and credentials of `first`. */
function withOrigin(first: URL, hostPort: string): string {
  const auth = first.username !== '' || first.password !== '' ? `${first.username}:${first.password}@` : '';
  return `${first.protocol}//${auth}${hostPort}`;
}

/** The URLs without their passwords, for printing. */
export function redact(value: string): string {
  return value
    .split(',')
    .map((part) => {
      try {
        const u = new URL(part.trim());
        if (u.password !== '') u.password = '***';
        return u.toString().replace(/\/$/, '');
      } catch {
        return part.includes('@') ? '(a URL with credentials)' : part.trim();
      }
    })
    .join(',');
}

/**
 * A client of ioredis, else of node-redis, whichever the user installed (optional peer
 * dependencies), connected to what `value` names: a cluster client for several nodes, or for one
 * node whose `INFO cluster` says it is in a cluster; a client of the one server otherwise.
 */
export async function connectRedis(value: string): Promise<RedisConnection> {
  const nodes = redisNodes(value);
  const failed = (e: unknown): InvalidInputError =>
    new InvalidInputError('--redis', redact(value), `a Redis that answers (${(e as Error).message})`);
  let io: IoRedis | null = null;
  try {
    io = await import('ioredis');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
  if (io !== null) {
    try {
      return await connectIoRedis(io, nodes);
    } catch (e) {
      throw failed(e);
    }
  }
  let nr: NodeRedis;
  try {
    nr = await import('redis');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new UsageError('--redis needs a Redis client installed beside traderatio: npm install ioredis (or redis)');
    throw e;
  }
  try {
    return await connectNodeRedis(nr, nodes);
  } catch (e) {
    throw failed(e);
  }
}

/** What a cluster client needs of every node: credentials, TLS and the database of the first URL. */
function nodeOptions(url: URL) {
  return {
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    tls: url.protocol === 'rediss:',
  };
}

function isCluster(info: string): boolean {
  return /cluster_enabled:1/.test(info);
}

/** {@link connectRedis} with ioredis. */
export async function connectIoRedis(io: IoRedis, nodes: readonly URL[]): Promise<RedisConnection> {
  const first = nodes[0]!;
  if (nodes.length === 1) {
    const client = new io.Redis(first.toString(), { lazyConnect: true, maxRetriesPerRequest: null });
    try {
      await client.connect();
      if (!isCluster(await client.info('cluster')))
        return { client, cluster: false, close: async () => void (await client.quit()) };
    } catch (e) {
      client.disconnect();
      throw e;
    }
    client.disconnect();
  }
  const { tls, ...auth } = nodeOptions(first);
  const cluster = new io.Cluster(
    nodes.map((u) => ({ host: u.hostname, port: Number(u.port || 6379) })),
    {
      lazyConnect: true,
      redisOptions: { ...auth, ...(tls ? { tls: {} } : {}), maxRetriesPerRequest: null },
      // Kept trying while no node answers, as the single client is (the store waits meanwhile).
      clusterRetryStrategy: () => 100,
    },
  );
  // A failed start is this function's error to throw, not an event of the client's to print.
  const quiet = (): void => {};
  cluster.on('error', quiet);
  try {
    await cluster.connect();
  } catch (e) {
    cluster.disconnect();
    throw e;
  } finally {
    cluster.off('error', quiet);
  }
  return { client: cluster, cluster: true, close: async () => void (await cluster.quit()) };
}

/** {@link connectRedis} with node-redis (where ioredis is not installed). */
export async function connectNodeRedis(nr: NodeRedis, nodes: readonly URL[]): Promise<RedisConnection> {
  const first = nodes[0]!;
  if (nodes.length === 1) {
    const client = nr.createClient({ url: first.toString() });
    await client.connect();
    if (!isCluster(await client.info('cluster')))
      return { client, cluster: false, close: async () => void (await client.quit()) };
    await client.quit();
  }
  const { tls, ...auth } = nodeOptions(first);
  const cluster = nr.createCluster({
    rootNodes: nodes.map((u) => ({ url: u.toString() })),
    defaults: { ...auth, ...(tls ? { socket: { tls: true } } : {}) },
  });
  await cluster.connect();
  // node-redis 5 closes with close(), 4 with quit().
  const c = cluster as unknown as { close?: () => Promise<unknown>; quit: () => Promise<unknown> };
  return { client: cluster, cluster: true, close: async () => void (await (c.close ?? c.quit).call(c)) };
}
