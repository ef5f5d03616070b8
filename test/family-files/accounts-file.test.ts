import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { readAccountsFile } from '../../src/family-files/accounts-file.js';

const file = (key: Record<string, unknown>, account: Record<string, unknown> = {}) => ({
  families: [{ id: 'desk', vipLevel: 15, accounts: [{ id: 'A', role: 'main', keys: [key], ...account }] }],
});

describe('readAccountsFile', () => {
  it('reads families, accounts and the account of each key', () => {
    const read = readAccountsFile(file({ key: 'a-key', secret: 's' }), { secrets: 'required' });
    expect(read.families).toEqual([{ id: 'desk', vipLevel: 15, accounts: [{ id: 'A', role: 'main' }], options: {} }]);
    expect(read.keys.get('a-key')).toEqual({ account: 'A', secret: 's' });
  });

  it('refuses a key without its secret where secrets are required', () => {
    expect(() => readAccountsFile(file({ key: 'a-key' }), { secrets: 'required' })).toThrow(InvalidInputError);
    expect(() => readAccountsFile(file({ key: 'a-key' }), { secrets: 'required' })).toThrow(
      '`families[0].accounts[0]`.keys[0]',
    );
  });

  it("takes a key without its secret as secret '' where secrets are optional", () => {
    expect(readAccountsFile(file({ key: 'a-key' }), { secrets: 'optional' }).keys.get('a-key')).toEqual({
      account: 'A',
      secret: '',
    });
  });

  it('hands an account its balances to the reader that reads them, and only then', () => {
    const seen: unknown[] = [];
    const balances = { spot: { USDT: '5' } };
    readAccountsFile(file({ key: 'a-key', secret: 's' }, { balances }), {
      secrets: 'required',
      balances: (id, value, field) => seen.push([id, value, field]),
    });
    expect(seen).toEqual([['A', balances, '`families[0].accounts[0]`.balances']]);
    expect(() =>
      readAccountsFile(file({ key: 'a-key', secret: 's' }, { balances }), { secrets: 'optional' }),
    ).not.toThrow();
  });
});
