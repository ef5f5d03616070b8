// examples/systemd: the unit starts the command with options it has, and is hardened: where the
// machine has systemd-analyze, it verifies and its exposure is at most 2 (of 10, "OK").
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { proxyCommand } from '../../src/cli/commands/proxy.js';
import { parseOptions } from '../../src/cli/options.js';

const UNIT = resolve(import.meta.dirname, '../../examples/systemd/traderatio-proxy.service');
const text = readFileSync(UNIT, 'utf8');
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;

describe('examples/systemd/traderatio-proxy.service', () => {
  it('starts traderatio proxy with options it takes, and stops it with SIGTERM in time for --timeout-ms', () => {
    const exec = /^ExecStart=\/usr\/bin\/env traderatio proxy (.+)$/m.exec(text)![1]!;
    const parsed = parseOptions('proxy', exec.split(' '), proxyCommand.options);
    expect([...parsed.values.keys()]).toEqual(['config', 'state']);
    expect(text).toMatch(/^KillSignal=SIGTERM$/m);
    // The default --timeout-ms is 30 s: the stop waits that long at most for forwarded requests.
    expect(Number(/^TimeoutStopSec=(\d+)$/m.exec(text)![1])).toBeGreaterThan(30);
  });

  // systemd-analyze comes with systemd; a machine without it (a container) cannot judge a unit.
  it.runIf(analyze)('verifies, and its exposure under systemd-analyze security is at most 2', () => {
    const verify = spawnSync('systemd-analyze', ['verify', UNIT], { encoding: 'utf8' });
    expect(verify.stderr.split('\n').filter((l) => l.includes('traderatio-proxy.service'))).toEqual([]);
    const security = spawnSync('systemd-analyze', ['security', '--offline=yes', UNIT], { encoding: 'utf8' });
    const level = Number(/Overall exposure level for traderatio-proxy\.service: ([\d.]+)/.exec(security.stdout)![1]);
    expect(level).toBeLessThanOrEqual(2);
  });
});
