import { addUtcDays, formatUtcDay } from '../rules/calendar.js';
import type { TierChange } from '../rules/timeline/timeline.js';
import type { TimelineRun } from './timeline.js';

/**
 * The instant from which an account's limits are a projection, not history: the first 00:00 UTC
 * snapshot whose 7 days (see docs/rules.md#r5) hold a day after the account's data ends, read as a day it did
 * nothing. Up to it every limit follows from the file (the snapshot at the end of the last day,
 * and its 08:00 raise, count only days the file gives).
 */
export function projectedFrom(run: TimelineRun, account: string): number {
  return addUtcDays(run.dataEnds.get(account) ?? run.dataEnd, 1);
}

/** Whether a change is projected (see {@link projectedFrom}). */
export function isProjected(run: TimelineRun, c: TierChange): boolean {
  return c.at >= projectedFrom(run, c.account);
}

/** The last UTC day of an account's data, as text. */
export function lastDataDay(run: TimelineRun, account: string): string {
  return formatUtcDay(addUtcDays(run.dataEnds.get(account) ?? run.dataEnd, -1));
}
