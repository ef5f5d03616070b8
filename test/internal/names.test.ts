import { describe, expect, it } from 'vitest';
import { closestName } from '../../src/internal/names.js';

const FIELDS = ['contract', 'makerVolume', 'takerVolume', 'place', 'amend', 'cancel'];

describe('closestName', () => {
  it.each([
    ['maker_volume', 'makerVolume'],
    ['MakerVolume', 'makerVolume'],
    ['taker-volume', 'takerVolume'],
    ['takerVol', 'takerVolume'],
    ['plcae', 'place'],
    ['cancle', 'cancel'],
    ['contracts', 'contract'],
  ])('reads %s as %s', (name, known) => {
    expect(closestName(name, FIELDS)).toBe(known);
  });

  it('maps camelCase to snake_case as well', () => {
    expect(closestName('fillVolume', ['fill_role', 'fill_volume'])).toBe('fill_volume');
  });

  it('suggests nothing for a name far from every known one, or a prefix that begins two', () => {
    expect(closestName('foo', FIELDS)).toBeUndefined();
    expect(closestName('vip_level', FIELDS)).toBeUndefined();
    expect(closestName('fill', ['fill_role', 'fill_volume'])).toBeUndefined();
  });
});
