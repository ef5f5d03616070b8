import type { ServerResponse } from 'node:http';
import type { AccountLimiter } from '../account/limiter.js';
import type { Clock } from '../schedule/clock.js';
import type { ActivityCounts } from './activity.js';
import { PUBLIC } from './family-limiters.js';
import { type ProxyStatus, proxyStatus } from './status.js';
import { statusPage } from './status-page.js';
import { renderStatus } from './status-view.js';

/** How long the status page's chart goes back, in milliseconds. */
const HISTORY_MS = 5 * 60_000;

/**
 * The proxy's live state for its own pages: the status now, as JSON; the page, with the chart of
 * the last minutes (drawn by the server for its first state, carried on by the page from the
 * events); and the open event streams, each sent the status every `everyMs`.
 */
export class StatusFeed {
  /** The open `/events` answers. */
  readonly events = new Set<ServerResponse>();
  /** The statuses of the last minutes, one a tick. */
  readonly #recent: ProxyStatus[] = [];
  readonly #ticker: ReturnType<typeof setInterval>;

  constructor(
    private readonly limiters: ReadonlyMap<string, AccountLimiter>,
    private readonly clock: Clock,
    private readonly activity: ActivityCounts,
    everyMs: number,
  ) {
    this.#ticker = setInterval(() => this.#tick(), everyMs);
    this.#ticker.unref();
  }

  /** The status now. */
  now(): ProxyStatus {
    return proxyStatus(this.limiters, PUBLIC, this.clock.wall(), this.activity);
  }

  /** The status now, as JSON. */
  status(): string {
    return JSON.stringify(this.now());
  }

  /** The status page: the status now and the chart of the last minutes. */
  page(): string {
    const s = this.now();
    const shown = [...this.#recent, s];
    return statusPage(renderStatus(s, shown), shown, HISTORY_MS);
  }

  /** Stops the ticks and ends every event stream. */
  close(): void {
    clearInterval(this.#ticker);
    for (const res of this.events) res.end();
  }

  #tick(): void {
    const s = this.now();
    const recent = this.#recent;
    recent.push(s);
    while (recent.length > 1 && s.at - recent[0]!.at > HISTORY_MS) recent.shift();
    if (this.events.size === 0) return;
    const text = `data: ${JSON.stringify(s)}\n\n`;
    for (const res of this.events) res.write(text);
  }
}
