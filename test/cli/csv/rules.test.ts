import { describe, expect, it } from 'vitest';
import { CSV_FAULT_MESSAGES } from '../../../src/cli/csv/rules.js';
import { parsed, scanned } from './read.js';

const ok = (...records: [number, string[]][]) => ({ records: records.map(([line, cells]) => ({ line, cells })) });
const fault = (line: number, f: keyof typeof CSV_FAULT_MESSAGES) => ({
  fault: { line, message: CSV_FAULT_MESSAGES[f] },
});

describe('the CSV rules', () => {
  it.each([
    [
      'skip a comment line, indented or not',
      'a,b\n# note\n  # indented\n\t#tab\n1,2',
      ok([1, ['a', 'b']], [5, ['1', '2']]),
    ],
    [
      'keep a # further in the line as text',
      'a,b\n1,#2\n1, #2',
      ok([1, ['a', 'b']], [2, ['1', '#2']], [3, ['1', '#2']]),
    ],
    ['skip empty lines and lines of spaces and tabs', 'a\n\n  \n\t \r\nx\n', ok([1, ['a']], [5, ['x']])],
    ['drop spaces and tabs around a field', ' a \t,\tb , c d ', ok([1, ['a', 'b', 'c d']])],
    [
      'keep a quoted field as written, its doubled quotes single',
      '" a ", "b,c" ,"say ""hi""","#"',
      ok([1, [' a ', 'b,c', 'say "hi"', '#']]),
    ],
    ['read CRLF line ends', 'a,b\r\n1,2\r\n', ok([1, ['a', 'b']], [2, ['1', '2']])],
    ['read an empty field at the end of a line', 'a,\n,', ok([1, ['a', '']], [2, ['', '']])],
    ['refuse a quoted newline on the line the quote opens', 'a,b\n1,"2\n3",4', fault(2, 'unclosed')],
    ['refuse a quote left open', 'a,b\n\n"1,2', fault(3, 'unclosed')],
    ['refuse a quote inside an unquoted field', 'a,b\n1,x"y', fault(2, 'stray-quote')],
    ['refuse text after a closing quote', 'a,b\n"1"2,3', fault(2, 'stray-quote')],
  ])('both readers %s', (_, text, expected) => {
    expect(parsed(text)).toEqual(expected);
    expect(scanned(text)).toEqual(expected);
  });
});
