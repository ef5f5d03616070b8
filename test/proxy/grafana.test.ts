// examples/grafana/traderatio.json: every query names metrics the proxy exposes, with labels they
// have, so that the dashboard imported beside a running proxy shows data and no error.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Metric } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningProxy, startProxy } from '../../src/proxy/server.js';
import { ACCOUNTS } from './helpers.js';

interface Dashboard {
  readonly panels: readonly { readonly title: string; readonly targets: readonly { readonly expr: string }[] }[];
  readonly templating: {
    readonly list: readonly { readonly name: string; readonly query: { readonly query: string } }[];
  };
}
const dashboard = JSON.parse(
  readFileSync(resolve(import.meta.dirname, '../../examples/grafana/traderatio.json'), 'utf8'),
) as Dashboard;
const queries = [
  ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: p.title, expr: t.expr }))),
  ...dashboard.templating.list.map((v) => ({ where: `variable ${v.name}`, expr: v.query.query })),
];

let proxy: RunningProxy;
/** The label names of each series name the proxy exposes (a histogram's _bucket, _sum and _count too). */
const exposed = new Map<string, readonly string[]>();
beforeAll(async () => {
  proxy = await startProxy({ upstream: 'http://127.0.0.1:1', accounts: ACCOUNTS });
  for (const m of proxy.metrics.registry.getMetricsAsArray() as unknown as (Metric & {
    labelNames: string[];
    name: string;
  })[]) {
    const type = String((await m.get()).type);
    if (type === 'histogram') {
      exposed.set(`${m.name}_bucket`, [...m.labelNames, 'le']);
      exposed.set(`${m.name}_sum`, m.labelNames);
      exposed.set(`${m.name}_count`, m.labelNames);
    } else exposed.set(m.name, m.labelNames);
  }
});
afterAll(() => proxy.close());

describe('the Grafana dashboard', () => {
  it('shows the limit and use per account, waits, 429s, the proxy’s own answers, the tier and the next 08:00', () => {
    const all = queries.map((q) => q.expr).join('\n');
    for (const name of [
      'traderatio_limit',
      'traderatio_limit_used',
      'traderatio_limit_waiting',
      'traderatio_wait_seconds_bucket',
      'traderatio_answers_429_total',
      'traderatio_proxy_answers_total',
      'traderatio_exchange_answers_total',
      'traderatio_tier',
      'traderatio_next_tier',
      'traderatio_next_tier_change_timestamp_seconds',
    ])
      expect(all).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('queries only metrics the proxy exposes, with labels they have', () => {
    expect(exposed.size).toBeGreaterThan(15);
    const wrong: string[] = [];
    for (const { where, expr } of queries) {
      const names = [...expr.matchAll(/\b(traderatio_[a-z0-9_]+)/g)].map((m) => m[1]!);
      expect(names.length, where).toBeGreaterThan(0);
      for (const name of names) if (!exposed.has(name)) wrong.push(`${where}: ${name} is not exposed`);
      // Each selector's matchers name labels of its metric.
      for (const m of expr.matchAll(/\b(traderatio_[a-z0-9_]+)\{([^}]*)\}/g)) {
        for (const label of [...m[2]!.matchAll(/(\w+)\s*(?:=~|!=|!~|=)/g)].map((x) => x[1]!))
          if (!(exposed.get(m[1]!) ?? []).includes(label)) wrong.push(`${where}: ${m[1]} has no label ${label}`);
      }
      // Each aggregation's labels are labels of the metrics it aggregates.
      const labels = new Set(names.flatMap((n) => exposed.get(n) ?? []));
      for (const by of expr.matchAll(/\bby \(([^)]*)\)/g))
        for (const label of by[1]!.split(',').map((l) => l.trim()))
          if (!labels.has(label)) wrong.push(`${where}: by (${label}) is no label of ${names.join(', ')}`);
      // Brackets balance.
      let depth = 0;
      for (const c of expr) {
        depth += '({['.includes(c) ? 1 : ')}]'.includes(c) ? -1 : 0;
        if (depth < 0) break;
      }
      if (depth !== 0) wrong.push(`${where}: brackets do not balance in ${expr}`);
    }
    expect(wrong).toEqual([]);
  });
});
