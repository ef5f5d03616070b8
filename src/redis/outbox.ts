import type { Clock } from '../schedule/clock.js';
import { unrefTimer } from '../schedule/clock.js';
import type { ScriptCall } from './calls.js';

/** A write that must reach Redis. */
export type Pending = ScriptCall;

/** What an {@link Outbox} needs of its store. */
export interface OutboxHost {
  readonly clock: Clock;
  readonly retryMs: number;
  /** Runs one write, failing when Redis does not answer. */
  run(p: Pending): Promise<unknown>;
  /** A write failed: Redis is taken as down until it answers. */
  failed(error: unknown): void;
  /** Whether the store is closed: failed writes are then not retried. */
  isClosed(): boolean;
}

/**
 * Writes that must reach Redis, in order, retried every `retryMs` until they do: releases,
 * feedback, updates, late dispatches. Sent together as they come; what fails goes back to the
 * front and is tried again.
 */
/** A write, and what to run once Redis has run it. */
type Sent = Pending & { readonly done?: () => void };

export class Outbox {
  private queue: Sent[] = [];
  private flushing: Promise<void> | null = null;
  private retryTimer: unknown = null;

  constructor(private readonly host: OutboxHost) {}

  send(p: Pending, done?: () => void): void {
    this.queue.push(done === undefined ? p : { ...p, done });
    this.kick();
  }

  /** Sends what waits, unless a flush is under way. */
  kick(): void {
    if (this.flushing === null && this.queue.length > 0) this.flushing = this.flush();
  }

  /** Sends what waits and resolves when that attempt ends; no retry is left set. */
  async close(): Promise<void> {
    this.kick();
    await this.flushing;
    if (this.retryTimer !== null) this.host.clock.clearTimer(this.retryTimer);
    this.retryTimer = null;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const results = await Promise.allSettled(batch.map((p) => this.host.run(p)));
        batch.forEach((p, i) => {
          if (results[i]!.status === 'fulfilled') p.done?.();
        });
        const failed = batch.filter((_, i) => results[i]!.status === 'rejected');
        if (failed.length === 0) continue;
        this.queue = failed.concat(this.queue);
        this.host.failed((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason);
        if (this.host.isClosed()) return;
        if (this.retryTimer === null) {
          this.retryTimer = unrefTimer(
            this.host.clock.setTimer(() => {
              this.retryTimer = null;
              this.kick();
            }, this.host.retryMs),
          );
        }
        return;
      }
    } finally {
      this.flushing = null;
    }
  }
}
