import { createHash } from 'node:crypto';
import { InvalidInputError } from '../errors.js';

/** What a Redis store needs of a client: running a Lua script by its SHA1, and by its text. */
export interface RedisScripting {
  evalsha(sha: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  eval(script: string, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
}

interface IoRedisLike {
  evalsha(sha: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown>;
}

interface NodeRedisLike {
  evalSha(sha: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/**
 * Reads an ioredis or a node-redis client as a {@link RedisScripting}: of one Redis, or of a
 * cluster (their cluster clients run a script on the master of its first key's slot).
 */
export function scriptingOf(client: unknown): RedisScripting {
  const c = client as Partial<IoRedisLike & NodeRedisLike> | null;
  if (typeof c !== 'object' || c === null)
    throw new InvalidInputError('`client`', client, 'an ioredis or node-redis client');
  if (typeof c.evalSha === 'function' && typeof c.eval === 'function') {
    const nr = c as NodeRedisLike;
    return {
      evalsha: (sha, keys, args) => nr.evalSha(sha, { keys: [...keys], arguments: args.map(String) }),
      eval: (script, keys, args) => nr.eval(script, { keys: [...keys], arguments: args.map(String) }),
    };
  }
  if (typeof c.evalsha === 'function' && typeof c.eval === 'function') {
    const io = c as IoRedisLike;
    return {
      evalsha: (sha, keys, args) => io.evalsha(sha, keys.length, ...keys, ...args),
      eval: (script, keys, args) => io.eval(script, keys.length, ...keys, ...args),
    };
  }
  throw new InvalidInputError('`client`', client, 'an ioredis or node-redis client (with eval and evalsha)');
}

/** A Lua script run by SHA1, loaded again by its text when Redis has forgotten it (a restart). */
export class Script {
  readonly sha: string;

  constructor(readonly text: string) {
    this.sha = createHash('sha1').update(text).digest('hex');
  }

  async run(redis: RedisScripting, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys, args);
    } catch (e) {
      if (!String((e as Error)?.message).includes('NOSCRIPT')) throw e;
      return redis.eval(this.text, keys, args);
    }
  }
}
