import { describe, expect, it } from 'vitest';
import { foldPrivates } from '../../scripts/declarations.js';

describe('foldPrivates', () => {
  it("folds each class's private members and their doc comments into one #private, and keeps a private constructor", () => {
    const text = [
      'declare class A {',
      '    /** Why the timer is kept. */',
      '    private timer;',
      '    private readonly listeners;',
      '    run(): void;',
      '    private emit;',
      '}',
      'declare class B {',
      '    #private;',
      '    private seq;',
      '    private constructor();',
      '}',
      'export declare class C {',
      '    value: number;',
      '}',
    ].join('\n');
    expect(foldPrivates(text).split('\n')).toEqual([
      'declare class A {',
      '    #private;',
      '    run(): void;',
      '}',
      'declare class B {',
      '    #private;',
      '    private constructor();',
      '}',
      'export declare class C {',
      '    value: number;',
      '}',
    ]);
  });
});
