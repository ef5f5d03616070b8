import { describe, expect, it } from 'vitest';
import { spotFillLimits } from '../../src/catalog/spot-fill.js';
import { resolveSpotFillOptions } from '../../src/rules/spot-fill.js';

describe('spotFillLimits', () => {
  const plain = resolveSpotFillOptions({});
  const batches = resolveSpotFillOptions({ includeBatches: true });

  it.each([
    ['spot', 'place', '/spot/orders', false, true],
    ['spot', 'amend', '/spot/orders/{order_id}', false, true],
    ['spot', 'place', '/spot/batch_orders', false, false],
    ['spot', 'place', '/spot/batch_orders', true, true],
    ['spot', 'amend', '/spot/amend_batch_orders', false, false],
    ['spot', 'amend', '/spot/amend_batch_orders', true, true],
    ['spot', 'cancel', '/spot/orders/{order_id}', true, false],
    ['spot', 'other', '/spot/accounts', true, false],
    ['futures', 'place', '/futures/{settle}/orders', true, false],
    ['margin', 'place', '/spot/orders', false, false],
  ] as const)('on %s, %s through %s (includeBatches %s): %s', (market, action, endpoint, includeBatches, limited) => {
    expect(spotFillLimits({ market, action, endpoint }, includeBatches ? batches : plain)).toBe(limited);
  });
});
