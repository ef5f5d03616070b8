// What the proxy's tests share: an accounts file both the model exchange and the proxy read, a
// history that puts the account at tier 4 (250 placements a second) all day, and the Python
// engine of examples/proxy run in a child process.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import type { AccountsFile } from '../../src/model-exchange/index.js';

export const ENGINE_PY = resolve(import.meta.dirname, '../../examples/proxy/engine.py');

/** One family, one main account; the model verifies signatures with the secret. */
export const ACCOUNTS: AccountsFile = {
  families: [
    { id: 'desk', accounts: [{ id: 'main', role: 'main', keys: [{ key: 'main-key', secret: 'main-secret' }] }] },
  ],
};

/**
 * A ratio of 9 the day before yesterday: the snapshots of yesterday's and today's 00:00 both see
 * it, so tier 4 is in force at any hour of today (see docs/rules.md#r3, #r5).
 */
export const TIER4_HISTORY = {
  activity: [
    { account: 'main', day: -2, contracts: [{ contract: 'BTC_USDT', makerVolume: '900000', place: 100_000 }] },
  ],
};

export interface EngineRun {
  readonly statuses: Readonly<Record<string, number>>;
  readonly placed: number;
  readonly cancels: number;
  readonly seconds: number;
}

/** Runs a Python script with `env`; resolves with its standard output and error when it exits. */
export function runPython(
  script: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  args: readonly string[] = [],
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((done, fail) => {
    const child = spawn('python3', [script, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', fail);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out, err });
    });
  });
}

/** The Python engine for `seconds` against `url`: its figures. */
export async function runEngine(url: string, seconds: number, threads = 32): Promise<EngineRun> {
  const r = await runPython(
    ENGINE_PY,
    {
      GATE_URL: url,
      GATE_KEY: 'main-key',
      GATE_SECRET: 'main-secret',
      SECONDS: String(seconds),
      THREADS: String(threads),
    },
    (seconds + 60) * 1000,
  );
  if (r.code !== 0) throw new Error(`engine.py exited ${r.code}: ${r.err.slice(-2000)}`);
  return JSON.parse(r.out.trim().split('\n').at(-1)!) as EngineRun;
}
