import { type Clock, unrefTimer } from '../schedule/clock.js';

/** What an {@link Availability} needs of its store. */
export interface AvailabilityHost {
  readonly clock: Clock;
  readonly retryMs: number;
  isClosed(): boolean;
  /** Asks Redis whether it answers, changing nothing there. */
  probe(): Promise<unknown>;
  /** Redis stopped answering. */
  down(error: unknown): void;
  /** Redis answers again. */
  up(): void;
  /** After either: every scheduler on the store looks again. */
  wake(): void;
}

/**
 * Whether Redis answers: down at the first request that fails, then probed every `retryMs` until
 * it answers or any other request does.
 */
export class Availability {
  private isUp = true;
  private probeTimer: unknown = null;

  constructor(private readonly host: AvailabilityHost) {}

  /** Whether Redis answered the last request. */
  get up(): boolean {
    return this.isUp;
  }

  /** A request failed with `error`. */
  failed(error: unknown): void {
    if (!this.isUp || this.host.isClosed()) return;
    this.isUp = false;
    this.host.down(error);
    this.probe();
    this.host.wake();
  }

  /** A request was answered. */
  answered(): void {
    if (this.isUp || this.host.isClosed()) return;
    this.isUp = true;
    this.host.up();
    this.host.wake();
  }

  /** Stops probing. */
  close(): void {
    if (this.probeTimer !== null) this.host.clock.clearTimer(this.probeTimer);
    this.probeTimer = null;
  }

  private probe(): void {
    if (this.probeTimer !== null || this.host.isClosed()) return;
    this.probeTimer = unrefTimer(
      this.host.clock.setTimer(() => {
        this.host.probe().then(
          () => {
            this.probeTimer = null;
            this.answered();
          },
          () => {
            this.probeTimer = null;
            if (!this.isUp) this.probe();
          },
        );
      }, this.host.retryMs),
    );
  }
}
