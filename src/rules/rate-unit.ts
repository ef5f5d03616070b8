import type { Rulebook } from './rulebook.js';

/**
 * A tier's limit unit for people, from the rulebook's window: `r/s` for a window of a second
 * (Gate), `per 2 s` otherwise (OKX).
 */
export function rateUnit(rulebook: Rulebook): string {
  const ms = rulebook.tiers.windowMs;
  return ms === 1000 ? 'r/s' : `per ${ms / 1000} s`;
}

/** The same in words: `requests per second`, `requests per 2 s`. */
export function rateUnitWords(rulebook: Rulebook): string {
  const ms = rulebook.tiers.windowMs;
  return ms === 1000 ? 'requests per second' : `requests per ${ms / 1000} s`;
}
