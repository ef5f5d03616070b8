import type { WindowLimit } from '../schedule/window.js';
import { linkOf, type SharedLimit } from './shared-limit.js';

/** The settings of `onUnavailable: "local"` (see `RedisStoreOptions`). */
export interface LocalShareOptions {
  /** Whether the policy is `"local"`; with `"wait"` no share ever starts. */
  readonly local: boolean;
  readonly processes: number;
  readonly staleMs: number;
  readonly leaseMs: number;
  readonly fallbackMaxMs: number;
}

/**
 * While Redis cannot be reached (`onUnavailable: "local"`): each process sends on a share of its
 * own, floor(N / processes) per window, from when nothing Redis granted it can still be in a
 * window with what the share sends, until Redis may stop holding the share back from the others.
 * Keeps what that needs: until when a request of ours may still act in Redis, and when Redis last
 * heard of this process.
 */
export class LocalShares {
  /** The latest local instant at which a request of ours may still take effect in Redis. */
  private lastEffect = -Infinity;
  /** When a request last said this process is here. */
  lastSent = -Infinity;
  /**
   * The latest send instant of a request of ours that Redis is known to have run: Redis last
   * heard of this process no earlier than this.
   */
  private lastHeard = -Infinity;
  /** Local-share dispatches Redis has not been told of yet. */
  unreported = false;

  constructor(private readonly options: LocalShareOptions) {}

  get enabled(): boolean {
    return this.options.local;
  }

  /** A request saying this process is here was sent at `sentAt`: it may act until `until`. */
  said(sentAt: number, until: number): void {
    this.lastSent = sentAt;
    this.mayActUntil(until);
  }

  /** Something of ours may still take effect in Redis until `at`. */
  mayActUntil(at: number): void {
    if (at > this.lastEffect) this.lastEffect = at;
  }

  /** Redis ran a request of ours sent at `sentAt`. */
  heard(sentAt: number): void {
    if (sentAt > this.lastHeard) this.lastHeard = sentAt;
  }

  /** This process's share of a limit of N: floor(N / processes), 0 when that is less than one. */
  size(limit: number): number {
    return Math.floor(limit / this.options.processes);
  }

  /**
   * The local share `limit` sends on at `at`, or null (the policy is to wait, or the share has not
   * started or has run out). `start` is called when a share starts. Only while Redis is down and
   * after its clock offset is known.
   */
  fallback(limit: SharedLimit, at: number, start: (limit: SharedLimit) => void): WindowLimit | null {
    if (!this.options.local) return null;
    // Redis holds the share back from the others for fallbackMaxMs and two spans past the last it
    // heard of this process, which is no earlier than lastHeard.
    if (
      at < this.startsAt(limit, this.lastEffect) ||
      at >= this.startsAt(limit, this.lastHeard) + this.options.fallbackMaxMs
    )
      return null;
    if (linkOf(limit).share !== null) return linkOf(limit).share;
    const n = this.size(limit.limit);
    if (n < 1) return null;
    const share = linkOf(limit).startShare(n);
    this.unreported = true;
    start(limit);
    return share;
  }

  /**
   * While Redis fails, how long from `at` a task on `limit` should wait before looking again:
   * until its local share starts, or a while (Redis answering again wakes the scheduler).
   */
  downWait(limit: SharedLimit, at: number, offsetKnown: boolean): number {
    if (this.options.local && offsetKnown && this.size(limit.limit) >= 1) {
      const from = this.startsAt(limit, this.lastEffect);
      if (from > at) return from - at;
    }
    return 1000;
  }

  /** When a local share of `limit` may start, counted from `last`: a stale span, a lease and a window past it. */
  private startsAt(limit: SharedLimit, last: number): number {
    return last + this.options.staleMs + this.options.leaseMs + limit.windowMs + limit.marginMs;
  }

  /** `limit` has a new N or W: its share, if it has one, follows. */
  resize(limit: SharedLimit): void {
    const share = linkOf(limit).share;
    if (share === null) return;
    const n = this.size(limit.limit);
    if (n >= 1) share.update({ limit: n, windowMs: Math.min(limit.windowMs, share.maxWindowMs) });
    else share.pause(Infinity);
  }
}
