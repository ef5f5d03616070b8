/**
 * `text` as a whole number when it is one written in decimal digits (with a sign in front when
 * `signed`) and a safe integer; otherwise undefined. Every count, level, port and duration typed
 * on the command line or read from a CSV field goes through it, so that they all accept the same
 * spellings: no `1e3`, no `0x10`, no `1.0`, no blank, no spaces.
 */
export function wholeNumber(text: string, sign?: 'signed'): number | undefined {
  const n = (sign === undefined ? /^\d+$/ : /^[+-]?\d+$/).test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(n) ? n : undefined;
}
