import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../../src/errors.js';
import { OKX_INSTRUMENTS, OKX_MULTIPLIERS, readInstrument } from '../../../src/rules/okx/instruments.js';

describe('readInstrument', () => {
  it.each([
    ['BTC-USDT-SWAP', 'SWAP', 'BTC-USDT'],
    ['ETH-USD-SWAP', 'SWAP', 'ETH-USD'],
    ['1INCH-USDT-SWAP', 'SWAP', '1INCH-USDT'],
    ['BTC-USDT-250328', 'FUTURES', 'BTC-USDT'],
    ['SOL-USD-261231', 'FUTURES', 'SOL-USD'],
    ['BTC-USD-250328-60000-C', 'OPTION', 'BTC-USD'],
    ['ETH-USD-250328-2500.5-P', 'OPTION', 'ETH-USD'],
    ['BTC-USDT', 'SPOT', 'BTC-USDT'],
    ['xrp-usdt', 'SPOT', 'XRP-USDT'],
  ])('reads %s as %s of family %s', (id, kind, family) => {
    expect(readInstrument(id)).toEqual({ id: id.toUpperCase(), kind, family });
  });

  it('takes a kind given that agrees with the id, MARGIN for a spot pair', () => {
    expect(readInstrument('BTC-USDT-SWAP', 'SWAP').kind).toBe('SWAP');
    expect(readInstrument('BTC-USDT', 'margin').kind).toBe('MARGIN');
    expect(readInstrument('BTC-USDT', 'SPOT').kind).toBe('SPOT');
  });

  it.each([
    ['BTC_USDT', 'a Gate contract name'],
    ['BTC-USDT-PERP', 'no kind of that suffix'],
    ['BTC-USDT-251328', 'a month 13'],
    ['BTC-USDT-250300', 'a day 0'],
    ['BTC-USD-250328-60000-X', 'an option neither call nor put'],
    ['BTC', 'a single part'],
    ['', 'nothing'],
  ])('refuses %s (%s), naming the field and the value', (id) => {
    let refused: unknown;
    try {
      readInstrument(id);
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as InvalidInputError).field).toBe('contract');
    expect((refused as InvalidInputError).message).toContain(`got "${id}"`);
    expect((refused as InvalidInputError).message).toContain('an OKX instrument id whose kind can be read');
  });

  it('refuses an unknown kind and a kind the id contradicts, naming them', () => {
    expect(() => readInstrument('BTC-USDT', 'PERP')).toThrow(
      'Expected `kind` of BTC-USDT to be one of SPOT, MARGIN, SWAP, FUTURES, OPTION, got "PERP"',
    );
    expect(() => readInstrument('BTC-USDT-SWAP', 'FUTURES')).toThrow(
      'Expected `kind` of BTC-USDT-SWAP to be "SWAP", as its id reads, got "FUTURES"',
    );
    expect(() => readInstrument('BTC-USDT', 'SWAP')).toThrow('"SPOT" or "MARGIN", as its id reads');
    expect(() => readInstrument(42)).toThrow('got 42');
  });
});

describe('the symbol multipliers', () => {
  const weights = OKX_INSTRUMENTS.resolve({});
  const weight = (id: string) => weights.weightOf(readInstrument(id).id).toString();

  it.each([
    ['BTC-USDT-SWAP', '1'],
    ['BTC-USD-SWAP', '1'],
    ['ETH-USDT-SWAP', '1'],
    ['ETH-USD-SWAP', '1'],
    ['SOL-USDT-SWAP', '0.2'],
    ['BTC-USDC-SWAP', '0.2'],
    ['BTC-USDT-250328', '0.3'],
    ['ETH-USD-261231', '0.3'],
    ['SOL-USDT-250328', '0.1'],
    ['BTC-USDT', '0.5'],
    ['ETH-USDT', '0.5'],
    ['BTC-USDC', '0.1'],
    ['XRP-USDT', '0.1'],
    ['BTC-USD-250328-60000-C', '0.1'],
  ])('weigh %s %s', (id, multiplier) => {
    expect(weight(id)).toBe(multiplier);
  });

  it('weigh a margin order as its spot pair', () => {
    expect(weights.read({ contract: 'BTC-USDT', kind: 'MARGIN' }, '`contract`')).toBe('BTC-USDT');
  });

  it('say which instruments are listed, the default of each kind and the heaviest', () => {
    expect(weights.isListed('BTC-USDT-250328')).toBe(true);
    expect(weights.isListed('SOL-USDT-250328')).toBe(false);
    expect(weights.defaultWeightOf('BTC-USDT-SWAP').toString()).toBe('0.2');
    expect(weights.heaviest.toString()).toBe('1');
    expect(weights.defaultWeights.map(String)).toEqual(['0.1', '0.2']);
    expect(weights.unlistedLike('BTC-USDT-250328', () => false)).toBe('OTHER-USDT-250328');
    expect(weights.unlistedLike('BTC-USDT-SWAP', (n) => n === 'OTHER-USDT-SWAP')).toBe('OTHER2-USDT-SWAP');
  });

  it('are replaced as a whole, each kind checked', () => {
    const multipliers = {
      ...OKX_MULTIPLIERS,
      SPOT: { by: 'instrument', listed: { 'SOL-USDT': '0.4' }, other: '0.05' },
    };
    const mine = OKX_INSTRUMENTS.resolve({ multipliers });
    expect(mine.weightOf('SOL-USDT').toString()).toBe('0.4');
    expect(mine.weightOf('BTC-USDT').toString()).toBe('0.05');
    expect(() => OKX_INSTRUMENTS.resolve({ multipliers: { SWAP: OKX_MULTIPLIERS.SWAP } })).toThrow(
      'Expected `multipliers.SPOT` to be a rule { by, listed, other } (the table is replaced as a whole), got undefined',
    );
    expect(() =>
      OKX_INSTRUMENTS.resolve({ multipliers: { ...OKX_MULTIPLIERS, SWAP: { ...OKX_MULTIPLIERS.SWAP, by: 'id' } } }),
    ).toThrow('Expected `multipliers.SWAP.by` to be "instrument" or "family", got "id"');
    expect(() =>
      OKX_INSTRUMENTS.resolve({
        multipliers: { ...OKX_MULTIPLIERS, SWAP: { by: 'instrument', listed: { 'BTC-USDT': '1' }, other: '0.2' } },
      }),
    ).toThrow('an instrument id of kind SWAP');
    expect(() =>
      OKX_INSTRUMENTS.resolve({
        multipliers: { ...OKX_MULTIPLIERS, FUTURES: { by: 'family', listed: { 'BTC-USDT': '0' }, other: '0.1' } },
      }),
    ).toThrow('`multipliers.FUTURES.listed.BTC-USDT`');
    expect(() => OKX_INSTRUMENTS.resolve({ multipliers: { ...OKX_MULTIPLIERS, PERP: OKX_MULTIPLIERS.SWAP } })).toThrow(
      'Unknown field `PERP`',
    );
  });
});
