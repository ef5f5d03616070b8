#!/usr/bin/env node
import { run } from './main.js';

void run(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}, { progress: process.stderr.isTTY === true }).then((code) => {
  process.exitCode = code;
});
