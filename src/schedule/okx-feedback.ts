// OKX's rate-limit signals (see docs/okx.md#o8) as one plain value, and the reader of the codes of
// its answers. OKX names no rate-limit headers: an answer says a request was refused for its rate
// by a code in its body, `code` for the request or `sCode` for each order of a batch.
import type { RateLimitSignals } from './feedback.js';

/**
 * How OKX says a request was refused for its rate (see docs/okx.md#o8): no rate-limit headers;
 * HTTP 429 (documented with 50011); the codes 50061 (the sub-account limit, the tier's) and 50011
 * (every other limit) in the body of a REST answer or a WebSocket reply, read by
 * {@link okxRefusals}.
 */
export const OKX_RATE_LIMIT_SIGNALS: RateLimitSignals = Object.freeze({
  headers: Object.freeze({ prefixes: Object.freeze([]), remaining: '', limit: '', reset: '' }),
  limitedStatuses: Object.freeze([429]),
  limitedLabels: Object.freeze([]),
  websocket: Object.freeze({
    remaining: Object.freeze([]),
    limit: Object.freeze([]),
    reset: Object.freeze([]),
    hidesZero: false,
    limitedCodes: Object.freeze([50061, 50011]),
    tierCodes: Object.freeze([50061]),
    otherCodes: Object.freeze([50011]),
  }),
});

/**
 * What an OKX answer's body says was refused for its rate (see docs/okx.md#o8): how many orders
 * the sub-account limit refused (50061) and how many another limit did (50011). A batch answers
 * order by order (`data[i].sCode`), each refusal counting once; a request refused whole answers
 * `code` alone. Anything else (a success, another error, a body that is not OKX's) refuses none.
 *
 * @example
 * ```ts
 * import { okxRefusals } from 'traderatio'
 *
 * okxRefusals({ code: '50061', msg: 'Sub-account rate limit reached', data: [] }) // { tier: 1, other: 0 }
 * const batch = { code: '2', msg: '', data: [{ sCode: '0' }, { sCode: '50011' }, { sCode: '50011' }] }
 * okxRefusals(batch) // { tier: 0, other: 2 }
 * ```
 */
export function okxRefusals(body: unknown): { readonly tier: number; readonly other: number } {
  let tier = 0;
  let other = 0;
  const count = (code: unknown): void => {
    const c = String(code);
    if (c === '50061') tier++;
    else if (c === '50011') other++;
  };
  if (typeof body !== 'object' || body === null) return { tier, other };
  const data = (body as { data?: unknown }).data;
  if (Array.isArray(data))
    for (const row of data) if (typeof row === 'object' && row !== null) count((row as { sCode?: unknown }).sCode);
  if (tier === 0 && other === 0) count((body as { code?: unknown }).code);
  return { tier, other };
}
