import { createHash, createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { runModelExchange } from '../../src/cli/commands/model-exchange.js';
import { type RunningModelExchange, startModelExchange } from '../../src/model-exchange/server.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { gateAt } from '../ccxt/helpers.js';
import { EXAMPLE_ACCOUNTS, EXAMPLE_HISTORY, call } from './helpers.js';

const ORDERS = '/api/v4/futures/usdt/orders';
const body = JSON.stringify({ contract: 'BTC_USDT', size: 1, price: '60000' });
let running: RunningModelExchange | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

/** A placement signed as an engine signs it (section 5), with the Timestamp it is given. */
function signed(key: string, secret: string, timestamp: number): Record<string, string> {
  const ts = String(Math.floor(timestamp));
  const hashed = createHash('sha512').update(body).digest('hex');
  return {
    KEY: key,
    Timestamp: ts,
    SIGN: createHmac('sha512', secret).update(`POST\n${ORDERS}\n\n${hashed}\n${ts}`).digest('hex'),
  };
}

/** The machine's clock, made to move only when told: engines sign with its `wall()`. */
const machine = () => new VirtualClock({ wallStart: Date.now() });

describe('startAt: the model clock started at any instant', () => {
  it('runs an engine signing with the machine clock across an 08:00 raise: Timestamps are checked against that clock', async () => {
    const clock = machine();
    const ex = (running = await startModelExchange({
      clock,
      startAt: '2026-11-21T07:59:59Z',
      accounts: EXAMPLE_ACCOUNTS,
      history: EXAMPLE_HISTORY,
      verifySignatures: true,
    }));
    const before = await call(ex, 'POST', ORDERS, 'key-C', body, signed('key-C', 'secret-C', clock.wall() / 1000));
    expect([before.status, before.headers.get('x-gate-ratelimit-limit'), before.headers.get('x-in-time')]).toEqual([
      200,
      '100',
      String(Date.parse('2026-11-21T07:59:59Z') * 1000),
    ]);
    await clock.advance(1000);
    const after = await call(ex, 'POST', ORDERS, 'key-C', body, signed('key-C', 'secret-C', clock.wall() / 1000));
    expect([after.status, after.headers.get('x-gate-ratelimit-limit')]).toEqual([200, '300']);
    // A Timestamp on the model's clock is days from the machine's: refused.
    const modelTime = await call(
      ex,
      'POST',
      ORDERS,
      'key-C',
      body,
      signed('key-C', 'secret-C', Date.parse('2026-11-21T08:00:00Z') / 1000),
    );
    expect([modelTime.status, modelTime.body.label]).toEqual([401, 'REQUEST_EXPIRED']);
    expect((await call(ex, 'GET', '/_model/clock')).body).toEqual({
      now: '2026-11-21T08:00:00.000Z',
      ms: Date.parse('2026-11-21T08:00:00Z'),
      startAt: Date.parse('2026-11-21T07:59:59Z'),
      speed: 1,
      timestamps: 'machine',
    });
  });

  it('runs ccxt, unmodified and signing with the real clock, across the raise', async () => {
    const clock = new VirtualClock({ wallStart: Date.now() });
    const ex = (running = await startModelExchange({
      clock,
      startAt: '2026-11-21T07:59:59.500Z',
      accounts: EXAMPLE_ACCOUNTS,
      history: EXAMPLE_HISTORY,
      verifySignatures: true,
    }));
    const gate = gateAt(ex, { apiKey: 'key-C', secret: 'secret-C', enableLastResponseHeaders: true });
    const limit = () =>
      Object.entries(gate.last_response_headers as Record<string, string>).find(
        ([k]) => k.toLowerCase() === 'x-gate-ratelimit-limit',
      )?.[1];
    await gate.loadMarkets();
    await gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000);
    expect(limit()).toBe('100');
    await clock.advance(500);
    const placed = await gate.createOrder('BTC/USDT:USDT', 'limit', 'buy', 1, 60000);
    expect([limit(), typeof placed.id]).toEqual(['300', 'string']);
  }, 30_000);

  it('keeps the model clock for Timestamps with clockOffsetMs, and refuses both ways of moving it together', async () => {
    const clock = machine();
    const ex = (running = await startModelExchange({ clock, clockOffsetMs: 3_600_000, verifySignatures: true }));
    const machineTime = await call(
      ex,
      'POST',
      ORDERS,
      'main-key',
      body,
      signed('main-key', 'main-secret', clock.wall() / 1000),
    );
    expect(machineTime.body.label).toBe('REQUEST_EXPIRED');
    expect(
      (await call(ex, 'POST', ORDERS, 'main-key', body, signed('main-key', 'main-secret', clock.wall() / 1000 + 3600)))
        .status,
    ).toBe(200);
    expect((await call(ex, 'GET', '/_model/clock')).body).toMatchObject({
      startAt: null,
      speed: 1,
      timestamps: 'model',
    });
    await expect(startModelExchange({ clock, clockOffsetMs: 1000, startAt: '2026-11-21T07:59:59Z' })).rejects.toThrow(
      /clockOffsetMs.*none with `startAt`.*got 1000/,
    );
    await expect(startModelExchange({ clock, startAt: 'yesterday' })).rejects.toThrow(/startAt.*"yesterday"/);
    for (const speed of [0, -1, Number.NaN, 20_000])
      await expect(startModelExchange({ clock, speed })).rejects.toThrow(/`speed`/);
  });
});

describe('speed: the model clock running faster', () => {
  it('passes a minute of the model clock in a second of the machine at speed 60, from startAt', async () => {
    const clock = machine();
    const ex = (running = await startModelExchange({
      clock,
      startAt: '2026-11-21T07:59:00Z',
      speed: 60,
      accounts: EXAMPLE_ACCOUNTS,
      history: EXAMPLE_HISTORY,
    }));
    expect((await call(ex, 'POST', ORDERS, 'key-C', body)).headers.get('x-gate-ratelimit-limit')).toBe('100');
    await clock.advance(999);
    expect((await call(ex, 'POST', ORDERS, 'key-C', body)).headers.get('x-gate-ratelimit-limit')).toBe('100');
    await clock.advance(1);
    const r = await call(ex, 'POST', ORDERS, 'key-C', body);
    expect([r.headers.get('x-gate-ratelimit-limit'), r.headers.get('x-in-time')]).toEqual([
      '300',
      String(Date.parse('2026-11-21T08:00:00Z') * 1000),
    ]);
    // Windows pass 60 times sooner: 300 per second of the model are 300 per 1/60 s of the machine.
    expect((await call(ex, 'GET', '/_model/clock')).body).toMatchObject({ speed: 60, timestamps: 'machine' });
  });

  it('starts at the machine clock when only speed is given', async () => {
    const clock = machine();
    const start = clock.wall();
    const ex = (running = await startModelExchange({ clock, speed: 10 }));
    await clock.advance(100);
    expect((await call(ex, 'GET', '/_model/clock')).body.ms).toBe(Math.floor(start + 1000));
  });
});

describe('traderatio exchange --start-at --speed', () => {
  const args = (values: Record<string, string | true>) => ({
    values: new Map(Object.entries(values)),
    typed: new Map(Object.keys(values).map((k) => [k, `--${k}`])),
    positionals: [],
  });
  const never = { out: () => {}, stop: new Promise<string>(() => {}), stdin: (async function* () {})() };

  it('prints where the model clock starts and how fast it runs', async () => {
    const lines: string[] = [];
    let clockBody: any;
    let stop!: (signal: string) => void;
    const stopped = new Promise<string>((resolve) => (stop = resolve));
    await runModelExchange(args({ port: '0', 'start-at': '2026-11-21T07:59:00Z', speed: '60' }), {
      out: (line) => {
        lines.push(line);
        const url = /^traderatio exchange: (http:\/\/\S+)$/.exec(line)?.[1];
        if (url !== undefined)
          void fetch(`${url}/_model/clock`)
            .then((r) => r.json())
            .then((b) => ((clockBody = b), stop('SIGINT')));
      },
      stop: stopped,
      stdin: (async function* () {})(),
    });
    expect(lines).toContain(
      "  the model's clock starts at 2026-11-21T07:59:00.000Z, running 60 times as fast; Timestamps are checked against this machine's clock",
    );
    expect(clockBody).toMatchObject({ startAt: Date.parse('2026-11-21T07:59:00Z'), speed: 60, timestamps: 'machine' });
  });

  it('refuses an instant without a zone, a speed of 0, and --clock-offset-ms beside --start-at', async () => {
    await expect(runModelExchange(args({ port: '0', 'start-at': '2026-11-21T07:59:00' }), never)).rejects.toThrow(
      '--start-at takes an instant with a zone',
    );
    await expect(runModelExchange(args({ port: '0', speed: '0' }), never)).rejects.toThrow(
      '--speed takes how many times faster',
    );
    await expect(
      runModelExchange(args({ port: '0', 'start-at': '1795334340000', 'clock-offset-ms': '5' }), never),
    ).rejects.toThrow('--clock-offset-ms and --start-at cannot be given together');
  });
});
