import { InvalidInputError } from '../errors.js';
import { type Dispatcher, runSubmitted } from './dispatcher.js';
import type { LimitBook } from './limit-book.js';
import type { StoreLimit } from './limit.js';
import type { Submission } from './queue.js';
import { readLimits, readPriority, readWeight } from './task-input.js';
import type { Group } from './waiting.js';

/**
 * @internal What a kind of task draws on, checked once for many `submit`s: its limits (each
 * made by the scheduler, each once), its weight and its priority.
 */
export interface SubmitRoute {
  readonly limits: readonly StoreLimit[];
  readonly weight: number;
  readonly priority: number;
  /** @internal */
  readonly books: readonly LimitBook[];
  /** @internal The group its tasks wait in, kept while the scheduler keeps it. */
  group: Group | null;
  /** @internal The dispatcher of the scheduler that checked it. */
  readonly owner: object;
}

// The replay's path into a scheduler: many tasks given in one synchronous run, without a promise
// or an object per task, through the same queue, order and limits as `schedule`.

/** The route of `options` through `d`, checked once as `schedule` checks a task's options. */
export function makeRoute(
  d: Dispatcher,
  options: { readonly limits: readonly StoreLimit[]; readonly weight: number; readonly priority: number },
): SubmitRoute {
  if (typeof options !== 'object' || options === null)
    throw new InvalidInputError('the route', options, 'an object { limits, weight, priority }');
  const limits = [...readLimits(d.books, options.limits)];
  return {
    limits,
    weight: readWeight(options.weight),
    priority: readPriority(options.priority),
    books: limits.map((l) => d.books.get(l)!),
    group: null,
    owner: d,
  };
}

/** Runs `fn(arg)` through `d` when every limit of `route` allows its weight (see `Scheduler.submit`). */
export function submitTask(
  d: Dispatcher,
  maxQueue: number,
  fn: (arg: number) => void,
  arg: number,
  route: SubmitRoute,
  submission: Submission,
): void {
  if (typeof fn !== 'function') throw new InvalidInputError('the task', fn, 'a function');
  if (route?.owner !== d)
    throw new InvalidInputError('the route', route, 'a route of this scheduler (scheduler.route(...))');
  const { limits, books, weight, priority } = route;
  if (d.closed) return d.refusals.tell(submission, 'closed', limits, '');
  const now = d.clock.now();
  if (now >= d.boundaryAt) d.reachBoundary();
  d.stampAll(now);
  // What fits now is not too heavy: the check of every limit's capacity waits for a task that
  // does not go at once.
  if (!d.draining && d.admitBooks(books, weight, priority, now)) {
    d.countDispatch(limits, weight, priority, now);
    runSubmitted(fn, arg, submission);
    d.stampAll(d.clock.now());
    return;
  }
  for (let i = 0; i < limits.length; i++) {
    if (weight > limits[i]!.capacity(priority)) return d.refusals.tell(submission, 'too-heavy', limits, '');
  }
  if (d.waiting.live >= maxQueue) return d.refusals.tell(submission, 'queue-full', limits, '');
  let group = route.group;
  if (group === null || group.gone) group = route.group = d.groupFor(priority, limits);
  d.enqueue(group, fn, submission, weight, arg);
  // Behind a task of its group, with the timer set for the heads: a pass would find what the
  // last one found (no permits of a shared store to ask for).
  if (group.live > 1 && d.timerSet && !d.shares) return;
  d.pass();
}
