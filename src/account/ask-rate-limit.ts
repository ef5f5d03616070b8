import type { AccountLimiter } from './limiter.js';

/** An answer of GET /account/rate_limit as an adapter's client gave it: its HTTP status and parsed body. */
export interface RateLimitAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * Asks the exchange's own figure for `account` once (GET /account/rate_limit, see docs/rules.md#r16) through an
 * adapter's client, and gives it to the limiter: a report is applied under the limiter's
 * `reportPolicy`; a status other than 200, a client that throws, or an answer that is not a
 * report marks the endpoint not open (`rateLimitUnavailable`), never an error: the headers of
 * placements' answers take over. Never rejects.
 */
export async function askRateLimit(
  limiter: AccountLimiter,
  account: string,
  ask: () => Promise<RateLimitAnswer>,
): Promise<void> {
  let answer: RateLimitAnswer;
  try {
    answer = await ask();
  } catch (error) {
    limiter.rateLimitUnavailable(account, reasonOf(error));
    return;
  }
  if (answer.status !== 200) {
    limiter.rateLimitUnavailable(account, `HTTP ${answer.status}`);
    return;
  }
  try {
    if (limiter.reportRateLimit(account, answer.body) === null)
      limiter.rateLimitUnavailable(account, 'an answer without a futures row');
  } catch (error) {
    limiter.rateLimitUnavailable(account, reasonOf(error));
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
