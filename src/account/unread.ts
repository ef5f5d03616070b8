import { formatUtcDay, formatUtcInstant, utcDayStart, utcHourStart } from '../rules/calendar.js';
import type { TrackerState } from './tracker.js';

/**
 * Counts as `state` holds them, plus `requests` more order requests of `account` on `contract` at
 * `at` (in its hour and its day): what other processes may have counted and not yet shared when a
 * boundary is decided (see docs/rules.md#r9, #r14, #r1). More requests only lower a fill rate or a ratio, so the
 * limits read from these are never looser than those the counts will show. `state` is not changed.
 */
export function withUnread(
  state: TrackerState,
  account: string,
  contract: string,
  at: number,
  requests: number,
): TrackerState {
  if (!(requests > 0)) return state;
  const day = formatUtcDay(utcDayStart(at));
  const hour = formatUtcInstant(utcHourStart(at));
  const days = state.days.map((d) => d);
  const i = days.findIndex((d) => d.account === account && d.day === day);
  if (i < 0) {
    days.push({
      account,
      day,
      contracts: [{ contract, makerVolume: '0', takerVolume: '0', place: requests, amend: 0, cancel: 0 }],
    });
  } else {
    const d = days[i]!;
    const j = d.contracts.findIndex((c) => c.contract === contract);
    const contracts =
      j < 0
        ? [...d.contracts, { contract, makerVolume: '0', takerVolume: '0', place: requests, amend: 0, cancel: 0 }]
        : d.contracts.map((c, k) => (k === j ? { ...c, place: c.place + requests } : c));
    days[i] = { ...d, contracts };
  }
  const hours = state.hours.map((h) => h);
  const k = hours.findIndex((h) => h.account === account && h.hour === hour);
  if (k < 0) hours.push({ account, hour, requests, traded: '0' });
  else hours[k] = { ...hours[k]!, requests: hours[k]!.requests + requests };
  const byDay = (a: { day: string }, b: { day: string }) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0);
  const byHour = (a: { hour: string }, b: { hour: string }) => (a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0);
  return { latest: Math.max(state.latest ?? -Infinity, at), days: days.sort(byDay), hours: hours.sort(byHour) };
}
