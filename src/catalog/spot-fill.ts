import { type SpotFillConfig, spotFillLimitsOrder } from '../rules/spot-fill.js';

/** The spot batch endpoints (placement, amendment), which the spot low-fill throttle does not name (see docs/rules.md#r14). */
const SPOT_BATCH_ENDPOINTS: ReadonlySet<string> = new Set(['/spot/batch_orders', '/spot/amend_batch_orders']);

/**
 * Whether the spot low-fill throttle limits a classified request (see docs/rules.md#r14): a spot placement or
 * amendment, through a batch endpoint only with `includeBatches`.
 */
export function spotFillLimits(
  c: { readonly market: string; readonly action: string; readonly endpoint: string },
  config: SpotFillConfig,
): boolean {
  return c.market === 'spot' && spotFillLimitsOrder(c.action, SPOT_BATCH_ENDPOINTS.has(c.endpoint), config);
}
