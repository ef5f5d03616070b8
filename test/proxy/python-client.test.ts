// examples/python: the standard-library signing client, run as a desk would run it, through the
// proxy against the model exchange verifying every signature.
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/index.js';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { ACCOUNTS, runPython } from './helpers.js';

const EXAMPLE = resolve(import.meta.dirname, '../../examples/python/example.py');
let exchange: RunningModelExchange | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await exchange?.close();
  proxy = exchange = undefined;
});

describe('examples/python (gate_client.py)', () => {
  it('signs as the exchange verifies, and tells the proxy’s own answers from the exchange’s', async () => {
    exchange = await startModelExchange({
      port: 0,
      accounts: ACCOUNTS,
      verifySignatures: true,
      fills: { seed: 3, maker: 0.5, taker: 0 },
    });
    proxy = await startProxy({ upstream: exchange.url, accounts: ACCOUNTS });
    const r = await runPython(EXAMPLE, { GATE_URL: proxy.url }, 30_000);
    expect(r.err).toBe('');
    const m =
      /^4 placed, (\d+) cancelled, (\d+) filled; TRADERATIO_UNKNOWN_KEY from the proxy, (\w+) from the exchange\n$/.exec(
        r.out,
      );
    expect(m).not.toBeNull();
    expect(Number(m![1]) + Number(m![2])).toBe(4);
    expect(m![3]).toBe('CONTRACT_NOT_FOUND');
    // Every signature verified: the model refused nothing for its signature.
    expect(Object.keys(exchange.stats().accounts[0]!.refused).filter((l) => /SIGNATURE|HEADER|KEY/.test(l))).toEqual(
      [],
    );
    expect(proxy.limiters.get('desk')!.abuseHeadroom('main').requests).toBe(4 + Number(m![1]) + 1);
  });

  it('is typed: every parameter and return of gate_client.py annotated (a checker such as mypy has them all)', async () => {
    const check = `
import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
missing = []
for node in ast.walk(tree):
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        args = [a for a in node.args.args + node.args.kwonlyargs if a.arg not in ("self", "cls")]
        missing += ["%s(%s)" % (node.name, a.arg) for a in args if a.annotation is None]
        if node.returns is None:
            missing.append("%s -> ?" % node.name)
print(len([n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]), missing)
`;
    const r = await runPython('-c', {}, 10_000, [
      check,
      resolve(import.meta.dirname, '../../examples/python/gate_client.py'),
    ]);
    expect(r.err).toBe('');
    const [functions, missing] = [Number(r.out.split(' ')[0]), r.out.slice(r.out.indexOf(' ') + 1).trim()];
    expect(functions).toBeGreaterThanOrEqual(8);
    expect(missing).toBe('[]');
  });
});
