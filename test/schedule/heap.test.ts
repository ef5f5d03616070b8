import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { heapOf, heapPop, heapPush, heapSiftDown } from '../../src/schedule/heap.js';

interface Item {
  key: number;
  readonly id: number;
}
const before = (a: Item, b: Item): boolean => a.key < b.key || (a.key === b.key && a.id < b.id);
const byOrder = (a: Item, b: Item): number => (before(a, b) ? -1 : before(b, a) ? 1 : 0);

describe('binary heap', () => {
  test.prop([
    fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 30 }),
    fc.array(
      fc.oneof(
        fc.record({ push: fc.integer({ min: 0, max: 20 }) }),
        fc.constant({ pop: true }),
        fc.record({ later: fc.integer({ min: 1, max: 10 }) }),
      ),
      { maxLength: 80 },
    ),
  ])(
    'gives its items out in order, whatever was pushed, popped or moved later, as a sorted list does',
    (start, steps) => {
      let id = 0;
      const heap = heapOf(
        start.map((key) => ({ key, id: id++ })),
        before,
      );
      const list = [...heap];
      for (const step of steps) {
        if ('push' in step) {
          const item = { key: step.push, id: id++ };
          heapPush(heap, item, before);
          list.push(item);
        } else if ('pop' in step) {
          list.sort(byOrder);
          expect(heapPop(heap, before)).toBe(list.shift());
        } else if (heap.length > 0) {
          // The first item comes out later: its key grows.
          heap[0]!.key += step.later;
          heapSiftDown(heap, 0, before);
        }
      }
      list.sort(byOrder);
      const out: Item[] = [];
      for (let item = heapPop(heap, before); item !== undefined; item = heapPop(heap, before)) out.push(item);
      expect(out).toEqual(list);
    },
  );
});
