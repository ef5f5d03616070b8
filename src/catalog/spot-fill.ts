import { type SpotFillConfig, spotFillLimitsOrder } from '../rules/spot-fill.js';

/** The spot batch endpoints (placement, amendment), which R14 does not name. */
const SPOT_BATCH_ENDPOINTS: ReadonlySet<string> = new Set(['/spot/batch_orders', '/spot/amend_batch_orders']);

/**
 * Whether the spot low-fill throttle limits a classified request (R14): a spot placement or
 * amendment, through a batch endpoint only with `includeBatches`.
 */
export function spotFillLimits(
  c: { readonly market: string; readonly action: string; readonly endpoint: string },
  config: SpotFillConfig,
): boolean {
  return c.market === 'spot' && spotFillLimitsOrder(c.action, SPOT_BATCH_ENDPOINTS.has(c.endpoint), config);
}
