import { InvalidInputError } from '../errors.js';
import { Dispatcher, type Group, readPriority, readWeight, runSubmitted } from './dispatcher.js';
import type { LimitBook } from './limit-book.js';
import type { StoreLimit } from './limit.js';
import type { Submission } from './queue.js';

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
  /** @internal The scheduler that checked it. */
  readonly owner: object;
}

/**
 * The replay's path into a {@link Scheduler}: many tasks given in one synchronous run, without a
 * promise or an object per task, through the same queue, order and limits as `schedule`.
 */
export abstract class SubmitPath<L extends StoreLimit> extends Dispatcher<L> {
  /**
   * @internal Checks once what a kind of task draws on, for {@link Scheduler.submit}: the limits
   * (each made by this scheduler, each once), the weight and the priority, as `schedule` does.
   */
  route(options: {
    readonly limits: readonly StoreLimit[];
    readonly weight: number;
    readonly priority: number;
  }): SubmitRoute {
    if (typeof options !== 'object' || options === null)
      throw new InvalidInputError('the route', options, 'an object { limits, weight, priority }');
    const limits = [...this.readLimits(options.limits)];
    return {
      limits,
      weight: readWeight(options.weight),
      priority: readPriority(options.priority),
      books: limits.map((l) => this.books.get(l)!),
      group: null,
      owner: this,
    };
  }

  /**
   * @internal Runs `fn(arg)` when every limit of `route` allows its weight, as `schedule` does
   * (the same queue, order and limits), for callers that give many tasks in one synchronous run
   * on a clock that moves only when told: a replay on a `VirtualClock`. No promise and no object
   * per task: `fn` runs inside `submit` or inside the scheduler's timer, and what it took gets
   * the instant read right after it returns. A refusal calls `submission.refused(reason)`, an
   * error `fn` throws `submission.failed(error)`; one `fn` and one submission may serve every
   * task of a route, `arg` telling them apart (a replay's arrival instant).
   */
  submit(fn: (arg: number) => void, arg: number, route: SubmitRoute, submission: Submission): void {
    if (typeof fn !== 'function') throw new InvalidInputError('the task', fn, 'a function');
    if (route?.owner !== this)
      throw new InvalidInputError('the route', route, 'a route of this scheduler (scheduler.route(...))');
    const { limits, books, weight, priority } = route;
    if (this.closed) return this.rejectWith(submission, 'closed', limits, '');
    const now = this.clock.now();
    if (now >= this.boundaryAt) this.reachBoundary();
    if (this.unstampedCount > 0) this.stampAll(now);
    // What fits now is not too heavy: the check of every limit's capacity waits for a task that
    // does not go at once.
    if (!this.draining && this.admitBooks(books, weight, priority, now)) {
      this.countDispatch(limits, weight, priority, now);
      runSubmitted(fn, arg, submission);
      this.stampAll(this.clock.now());
      return;
    }
    for (let i = 0; i < limits.length; i++) {
      if (weight > limits[i]!.capacity(priority)) return this.rejectWith(submission, 'too-heavy', limits, '');
    }
    if (this.live >= this.maxQueue) return this.rejectWith(submission, 'queue-full', limits, '');
    let group = route.group;
    if (group === null || group.gone) group = route.group = this.groupFor(priority, limits);
    this.enqueue(group, fn, submission, weight, arg);
    // Behind a task of its group, with the timer set for the heads: a pass would find what the
    // last one found (no permits of a shared store to ask for).
    if (group.live > 1 && this.timer !== null && this.shared === 0) return;
    this.pass();
  }
}
