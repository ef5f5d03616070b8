import { spawn } from 'node:child_process';

/**
 * The V8 flag the model exchange runs under: a young generation of 1 MB semi-spaces. V8 grows the
 * young generation to 16 MB semi-spaces when much of it survives, as the model's orders and fills
 * do; a scavenge of that size paused the model for 2 to 11 ms, and at 2,000 requests per second
 * those pauses made its p99 (docs/performance.md). At 1 MB a scavenge pauses about 1 ms, the CPU
 * per request is the same.
 */
export const EXCHANGE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/** Whether node already runs with a young generation size set, on its command line or in NODE_OPTIONS. */
export function youngGenerationSet(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].some((a) => /^--(max-|min-)?semi-space-size(=|$)|^--max-young-generation-size/.test(a.replace(/_/g, '-')));
}

/**
 * Runs this command again in a node started with {@link EXCHANGE_NODE_FLAGS} (a heap's sizes are
 * fixed when node starts), its standard streams the same, and ends as it ends. The node runs in a
 * session of its own, so that a terminal's Ctrl-C reaches this process alone, which hands each
 * SIGINT and SIGTERM on once: a node sent the same signal twice, the second while it exits,
 * could end by that signal instead of with its status. When it reads a terminal (a FILE `-`), it
 * stays in the terminal's group, which sends a Ctrl-C to both.
 */
export function relaunchWithFlags(script: string, args: readonly string[]): void {
  const readsTerminal = process.stdin.isTTY === true && args.includes('-');
  const child = spawn(process.execPath, [...EXCHANGE_NODE_FLAGS, ...process.execArgv, script, ...args], { stdio: 'inherit', detached: !readsTerminal });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  const onInterrupt = readsTerminal ? () => {} : forward;
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', forward);
  child.on('error', (e) => {
    process.stderr.write(`traderatio: cannot start node for the exchange (${e.message})\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', forward);
    if (signal !== null) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
}
