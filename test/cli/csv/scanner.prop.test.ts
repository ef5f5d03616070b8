// The request log's byte scanner and csv-parse (the plan reader) read the same records, lines and
// faults from the same text: one set of CSV rules, two readers.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { parsed, scanned } from './read.js';

const pad = fc.stringMatching(/^[ \t]{0,2}$/);
const plain = fc.stringMatching(/^[a-z0-9_./#é -]{0,6}$/);
const quoted = fc.stringMatching(/^([a-z0-9 ,#\t-]|"")*$/).map((s) => `"${s}"`);
/** A field that breaks a rule: a quote inside, text after a closing quote, a quote left open, a quoted newline. */
const broken = fc.constantFrom('x"y', '"x"y', '"x', '"a\nb"', '"a\r\nb"', ' "x" z');

const field = (bad: boolean) =>
  fc
    .tuple(
      pad,
      bad
        ? fc.oneof({ weight: 8, arbitrary: plain }, { weight: 4, arbitrary: quoted }, { weight: 1, arbitrary: broken })
        : fc.oneof(plain, quoted),
      pad,
    )
    .map((p) => p.join(''));
const line = (bad: boolean) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.array(field(bad), { minLength: 1, maxLength: 5 }).map((fs) => fs.join(',')) },
    { weight: 1, arbitrary: fc.tuple(pad, fc.stringMatching(/^[a-z ,"#\t]{0,8}$/)).map(([p, s]) => `${p}#${s}`) },
    { weight: 1, arbitrary: pad },
  );
const text = (bad: boolean) =>
  fc
    .tuple(fc.array(line(bad), { maxLength: 8 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
    .map(([ls, eol, last]) => ls.join(eol) + (last ? eol : ''));

describe('the byte scanner and csv-parse', () => {
  test.prop([text(false)])('read the same fields on the same lines from valid CSV', (t) => {
    const read = scanned(t);
    expect('records' in read).toBe(true);
    expect(read).toEqual(parsed(t));
  });

  test.prop([text(true)])('refuse the same line with the same fault, or read the same fields', (t) => {
    expect(scanned(t)).toEqual(parsed(t));
  });
});
