/**
 * A binary heap kept in an array, `before(a, b)` saying that `a` comes out first: the scheduler's
 * deadlines and its order of queue heads, and the virtual clock's timers.
 */
export type Before<T> = (a: T, b: T) => boolean;

/** `items` in order: a sorted array is a heap. */
export function heapOf<T>(items: T[], before: Before<T>): T[] {
  return items.sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
}

export function heapPush<T>(heap: T[], item: T, before: Before<T>): void {
  let i = heap.length;
  heap.push(item);
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!before(item, heap[parent]!)) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = item;
}

/** Moves the item at `i`, which now comes out later than it did, down to its place. */
export function heapSiftDown<T>(heap: T[], i: number, before: Before<T>): void {
  const item = heap[i]!;
  for (;;) {
    const l = 2 * i + 1;
    if (l >= heap.length) break;
    const r = l + 1;
    const c = r < heap.length && before(heap[r]!, heap[l]!) ? r : l;
    if (!before(heap[c]!, item)) break;
    heap[i] = heap[c]!;
    i = c;
  }
  heap[i] = item;
}

/** Takes the first item out (undefined when the heap is empty). */
export function heapPop<T>(heap: T[], before: Before<T>): T | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length > 0) {
    heap[0] = last!;
    heapSiftDown(heap, 0, before);
  }
  return top;
}
