import type { Clock } from '../schedule/clock.js';
import { Availability } from './availability.js';
import { type Encoded, encodeProbe } from './calls.js';
import type { RedisScripting } from './client.js';
import { ClockOffset } from './clock-offset.js';
import { Outbox } from './outbox.js';
import { type RedisKeys, type ScriptName, runWithin } from './protocol.js';

/** What a {@link Connection} needs of its store, and tells it. */
export interface ConnectionHost {
  readonly redis: RedisScripting;
  readonly keys: RedisKeys;
  readonly clock: Clock;
  /** How long a script may take to answer before it has failed, ms. */
  readonly timeoutMs: number;
  /** How long after a failure Redis is asked again, ms. */
  readonly retryMs: number;
  /** Whether Redis runs its scripts at the instants of `clock` instead of its own. */
  readonly clockInRedis: boolean;
  /** Whether the store is closed: nothing is retried then. */
  isClosed(): boolean;
  /** Redis stopped answering. */
  down(error: unknown): void;
  /**
   * Redis answers again after it failed: it may be another Redis now (a failover). The writes
   * waiting are sent when the store calls {@link Connection.flush}.
   */
  up(): void;
  /** After either: every scheduler on the store looks again. */
  wake(): void;
}

/**
 * A store's way to Redis: each script run within `timeoutMs`, the writes that must reach Redis
 * sent in order and retried until they do ({@link Outbox}), whether Redis answers
 * ({@link Availability}), and Redis's clock as its answers tell it ({@link ClockOffset}). What
 * the answers mean is the store's.
 */
export class Connection {
  /** Redis's clock minus this process's, learnt from the answers the store reads. */
  readonly offset = new ClockOffset();
  readonly #host: ConnectionHost;
  readonly #outbox: Outbox;
  readonly #availability: Availability;

  constructor(host: ConnectionHost) {
    this.#host = host;
    const { clock, retryMs } = host;
    this.#outbox = new Outbox({
      clock,
      retryMs,
      run: (p) => this.run(p.script, p),
      failed: (error) => this.failed(error),
      isClosed: () => host.isClosed(),
    });
    this.#availability = new Availability({
      clock,
      retryMs,
      isClosed: () => host.isClosed(),
      probe: () => this.run('probe', encodeProbe(host.keys)),
      down: (error) => host.down(error),
      up: () => host.up(),
      wake: () => host.wake(),
    });
  }

  /** Whether Redis answered the last request. */
  get up(): boolean {
    return this.#availability.up;
  }

  /**
   * Runs a script, failing with a `NoReplyError` when no answer comes within `timeoutMs`: the
   * script may still have run.
   */
  run(script: ScriptName, encoded: Encoded): Promise<unknown> {
    const h = this.#host;
    return runWithin(h.redis, h.clock, h.timeoutMs, script, encoded);
  }

  /** A write that must reach Redis, sent after those before it; `done` runs once Redis ran it. */
  write(script: ScriptName, encoded: Encoded, done?: () => void): void {
    this.#outbox.send({ script, ...encoded }, done);
  }

  /** Sends the writes that wait, now (they are otherwise retried every `retryMs`). */
  flush(): void {
    this.#outbox.kick();
  }

  /** A request was answered: Redis is up (again). */
  answered(): void {
    this.#availability.answered();
  }

  /** A request failed with `error`: Redis is down until it answers. */
  failed(error: unknown): void {
    this.#availability.failed(error);
  }

  /** The instant Redis is to run a script at: none, its own, unless the options say the store's clock's. */
  at(): number | undefined {
    return this.#host.clockInRedis ? this.#host.clock.now() : undefined;
  }

  /** Stops probing, and waits (one attempt) until Redis has the writes not sent yet. */
  close(): Promise<void> {
    this.#availability.close();
    return this.#outbox.close();
  }
}
