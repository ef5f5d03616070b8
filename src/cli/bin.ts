#!/usr/bin/env node
import { EXIT, run } from './main.js';

// A reader that stops early (`traderatio plan f.csv | head -2`) closes the pipe: end quietly, with
// the status a Unix tool killed by SIGPIPE has. Any other failure to write is said in one line.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && stream === process.stdout)
      process.stderr.write(`traderatio: cannot write the output (${e.code ?? e.message})\n`);
    process.exit(e.code === 'EPIPE' ? EXIT.closedOutput : EXIT.input);
  });
}

const args = process.argv.slice(2);
void run(
  args,
  {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  },
  { progress: process.stderr.isTTY === true },
).then((code) => {
  process.exitCode = code;
});
