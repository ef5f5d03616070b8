// Tests against a real Redis on a virtual clock. The stores have Redis run their scripts at the
// clock's instants (the internal `instants: "clock"` option) and the clock moves only when every
// script sent has been answered, so no test waits for real time to pass, and a loaded machine
// changes nothing a test sees.
import { setImmediate as turn } from 'node:timers/promises';
import type { Cluster, Redis } from 'ioredis';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

/** A VirtualClock that says when its next timer is due. */
export class SteppedClock extends VirtualClock {
  private readonly due = new Map<unknown, number>();

  override setTimer(callback: () => void, delayMs: number): unknown {
    const handle: unknown = super.setTimer(() => {
      this.due.delete(handle);
      callback();
    }, delayMs);
    this.due.set(handle, this.now() + Math.max(0, delayMs));
    return handle;
  }

  override clearTimer(handle: unknown): void {
    this.due.delete(handle);
    super.clearTimer(handle);
  }

  /** When the next timer is due, or undefined when none is set. */
  nextAt(): number | undefined {
    let next: number | undefined;
    for (const at of this.due.values()) if (next === undefined || at < next) next = at;
    return next;
  }
}

/** What a store needs of an ioredis client: its scripts. */
export interface Scripting {
  evalsha(sha: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...rest: (string | number)[]): Promise<unknown>;
}

/** One test's Redis on one virtual clock: the clients its stores take, and the clock's driver. */
export class VirtualRedis {
  readonly clock: SteppedClock;
  private inflight = 0;
  private drained: (() => void)[] = [];

  /** `start`: the clock's first instant; `wallStart`: its first wall-clock reading (dates), this machine's by default. */
  constructor(
    private readonly redis: Redis | Cluster,
    start = 1_000_000,
    wallStart = Date.now(),
  ) {
    this.clock = new SteppedClock({ start, wallStart });
  }

  /**
   * A client's scripts (ioredis's `evalsha` and `eval`, or node-redis's `evalSha` and `eval`;
   * this test's ioredis client by default) with those in flight counted: the clock waits for
   * their answers.
   */
  track(scripting: object = this.redis): Scripting {
    const counted =
      (call: (...a: any[]) => Promise<unknown>) =>
      async (...a: any[]): Promise<unknown> => {
        this.inflight++;
        try {
          return await call(...a);
        } finally {
          if (--this.inflight === 0) for (const r of this.drained.splice(0)) r();
        }
      };
    const c = scripting as Record<string, (...a: any[]) => Promise<unknown>>;
    const out: Record<string, unknown> = {};
    for (const name of ['evalsha', 'evalSha', 'eval'])
      if (typeof c[name] === 'function') out[name] = counted(c[name].bind(c));
    return out as unknown as Scripting;
  }

  /** The options of a store of this test on `prefix`: the tracked client, the clock, Redis at its instants. */
  options(prefix: string, scripting?: object) {
    return { client: this.track(scripting), prefix, clock: this.clock, instants: 'clock' } as const;
  }

  /** Has Redis take `prefix` as known for long: no first-use wait (a new Redis grants nothing for one span). */
  async warm(prefix: string): Promise<void> {
    await this.redis.set(`{${prefix}}:epoch`, String(this.clock.now() - 1e7));
  }

  /** Resolves once no script is in flight and what their answers set off has run. */
  async idle(): Promise<void> {
    for (;;) {
      if (this.inflight > 0) await new Promise<void>((r) => this.drained.push(r));
      await turn();
      if (this.inflight > 0) continue;
      await turn();
      if (this.inflight === 0) return;
    }
  }

  /** Moves the clock to `at`, timer by timer, each once Redis has answered what the last sent. */
  async advanceTo(at: number): Promise<void> {
    for (;;) {
      await this.idle();
      const next = this.clock.nextAt();
      if (next === undefined || next > at) break;
      await this.clock.advanceTo(next);
    }
    await this.clock.advanceTo(at);
  }

  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.clock.now() + ms);
  }

  /** Fires timers, timer by timer, until `done` holds; fails past `maxMs` of the clock. */
  async until(done: () => boolean | Promise<boolean>, maxMs = 60_000): Promise<void> {
    const end = this.clock.now() + maxMs;
    for (;;) {
      await this.idle();
      if (await done()) return;
      const next = this.clock.nextAt();
      if (next === undefined || next > end)
        throw new Error(`not done within ${maxMs} ms of the clock (next timer ${String(next)})`);
      await this.clock.advanceTo(next);
    }
  }

  /** Fires every timer, timer by timer, until none is left (at most `limit`). */
  async runAll(limit = 1_000_000): Promise<void> {
    for (let n = 0; n < limit; n++) {
      await this.idle();
      const next = this.clock.nextAt();
      if (next === undefined) return;
      await this.clock.advanceTo(next);
    }
    throw new Error(`more than ${limit} timers`);
  }
}

/** Runs `v`'s clock until every one of `tasks` has settled; their outcomes. */
export async function settleOn<T>(
  v: VirtualRedis,
  tasks: readonly Promise<T>[],
  maxMs?: number,
): Promise<PromiseSettledResult<T>[]> {
  let done = false;
  const all = Promise.allSettled(tasks).finally(() => (done = true));
  await v.until(() => done, maxMs);
  return all;
}
