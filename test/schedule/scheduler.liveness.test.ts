import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidInputError, RefusedError } from '../../src/errors.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { Scheduler, type SchedulerEvent } from '../../src/schedule/scheduler.js';

function setup() {
  const clock = new VirtualClock();
  const scheduler = new Scheduler({ clock, maxQueue: 1_000_000 });
  const log: string[] = [];
  const task = (name: string) => () => {
    log.push(name);
    return name;
  };
  return { clock, scheduler, log, task };
}

/** The refusal reason a promise rejected with, or 'ran'. */
function outcome(p: Promise<unknown>): Promise<string> {
  return p.then(
    () => 'ran',
    (e: unknown) => (e instanceof RefusedError ? e.reason : `threw ${String(e)}`),
  );
}

describe('Scheduler: a changed limit never wedges its waiting tasks', () => {
  it('refuses a waiting task that a lowered limit can no longer fit, and runs those behind it', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ name: 'place', limit: 10, windowMs: 1000 });
    await scheduler.schedule(task('first'), { limits: l, weight: 5 });
    const heavy = outcome(scheduler.schedule(task('heavy'), { limits: l, weight: 8 }));
    const light = outcome(scheduler.schedule(task('light'), { limits: l, weight: 2 }));
    l.update({ limit: 5 });
    // Refused the moment the change is made, not when it reaches the head.
    expect(await heavy).toBe('too-heavy');
    await clock.advance(1000);
    expect(await light).toBe('ran');
    expect(log).toEqual(['first', 'light']);
    expect(scheduler.stats()).toMatchObject({ queued: 0, refused: { 'too-heavy': 1 } });
  });

  it('refuses a task queued behind others that a lowered limit can no longer fit, at once', async () => {
    const { scheduler, task } = setup();
    const l = scheduler.limit({ limit: 10, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l, weight: 10 });
    const waiting = [1, 9, 1].map((weight) => outcome(scheduler.schedule(task(`w${weight}`), { limits: l, weight })));
    l.update({ limit: 4 });
    const settled = await Promise.race([Promise.all(waiting), new Promise((r) => setTimeout(() => r('pending'), 50))]);
    expect(settled).toBe('pending');
    expect(await waiting[1]).toBe('too-heavy');
    expect(scheduler.stats().limits[0]).toMatchObject({ waiting: 2 });
  });

  it('refuses a waiting task too heavy for a limit lowered by feedback', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 10, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l, weight: 6 });
    const heavy = outcome(scheduler.schedule(task('heavy'), { limits: l, weight: 8 }));
    const light = outcome(scheduler.schedule(task('light'), { limits: l, weight: 1 }));
    scheduler.feedback(l, { limited: false, limit: 5 });
    expect(await heavy).toBe('too-heavy');
    await clock.advance(1000);
    expect(await light).toBe('ran');
    expect(log).toEqual(['a', 'light']);
  });

  it('refuses a low-priority waiting task that a lowered limit minus its reserve can no longer fit', async () => {
    const { clock, scheduler, task } = setup();
    const l = scheduler.limit({ limit: 10, windowMs: 1000, reserve: { priority: 5, weight: 3 } });
    await scheduler.schedule(task('a'), { limits: l, weight: 7 });
    const low = outcome(scheduler.schedule(task('low'), { limits: l, weight: 6 }));
    const high = outcome(scheduler.schedule(task('high'), { limits: l, weight: 6, priority: 5 }));
    l.update({ limit: 8 });
    expect(await low).toBe('too-heavy');
    await clock.advance(1000);
    expect(await high).toBe('ran');
  });

  it('refuses a waiting task on linked limits when one of them is lowered below its weight', async () => {
    const { clock, scheduler, task } = setup();
    const a = scheduler.limit({ name: 'a', limit: 10, windowMs: 1000 });
    const b = scheduler.limit({ name: 'b', limit: 10, windowMs: 1000 });
    await scheduler.schedule(task('x'), { limits: [a, b], weight: 10 });
    const heavy = outcome(scheduler.schedule(task('heavy'), { limits: [a, b], weight: 6 }));
    const onA = outcome(scheduler.schedule(task('onA'), { limits: a, weight: 3 }));
    b.update({ limit: 5 });
    expect(await heavy).toBe('too-heavy');
    await clock.advance(1000);
    expect(await onA).toBe('ran');
    expect(scheduler.stats().limits.map((s) => s.waiting)).toEqual([0, 0]);
  });
});

describe('Scheduler: bad options queue nothing', () => {
  it('refuses a signal that is not an AbortSignal before queueing the task, which never runs', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l });
    for (const signal of [{}, null, 'abort', { aborted: false }, { aborted: false, addEventListener: 5 }]) {
      expect(() => scheduler.schedule(task('bad'), { limits: l, signal: signal as unknown as AbortSignal })).toThrow(
        InvalidInputError,
      );
      expect(() => scheduler.schedule(task('bad'), { limits: l, signal: signal as unknown as AbortSignal })).toThrow(
        /`signal`/,
      );
    }
    expect(scheduler.stats()).toMatchObject({ queued: 0, dispatched: 1 });
    await clock.advance(5000);
    expect(log).toEqual(['a']);
  });

  it('names the field of every bad option, and counts or queues nothing', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    await scheduler.schedule(task('a'), { limits: l });
    const bad: [string, object | null][] = [
      ['the schedule options', null],
      ['`limits`', { limits: [l, l] }],
      ['each of `limits`', { limits: {} }],
      ['`weight`', { limits: l, weight: 0 }],
      ['`weight`', { limits: l, weight: '2' }],
      ['`priority`', { limits: l, priority: Number.NaN }],
      ['`deadline`', { limits: l, deadline: '5' }],
      ['`signal`', { limits: l, signal: {} }],
    ];
    for (const [field, options] of bad) {
      let error: unknown;
      try {
        void scheduler.schedule(task('bad'), options as never);
      } catch (e) {
        error = e;
      }
      expect(error, field).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message, field).toContain(field);
    }
    expect(scheduler.stats()).toMatchObject({
      queued: 0,
      dispatched: 1,
      refused: { 'queue-full': 0, aborted: 0, deadline: 0, 'too-heavy': 0, closed: 0 },
    });
    await clock.advance(5000);
    expect(log).toEqual(['a']);
  });
});

describe('Scheduler: a listener that throws breaks nothing', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('still runs the dispatched task and the ones after it when a listener throws on dispatch', async () => {
    const { clock, scheduler, log, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    const errors: SchedulerEvent[] = [];
    scheduler.on((e) => {
      if (e.type === 'dispatch') throw new Error('listener bug');
    });
    scheduler.on((e) => {
      if (e.type === 'error') errors.push(e);
    });
    const all = ['a', 'b', 'c'].map((n) => scheduler.schedule(task(n), { limits: l }));
    await clock.advance(2000);
    await expect(Promise.all(all)).resolves.toEqual(['a', 'b', 'c']);
    expect(log).toEqual(['a', 'b', 'c']);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatchObject({ type: 'error', source: 'listener', error: new Error('listener bug') });
    expect(clock.pendingTimers).toBe(0);
  });

  it('still refuses the task when a listener throws on refusal, and tells the others', async () => {
    const { clock, scheduler, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    const seen: string[] = [];
    scheduler.on((e) => {
      if (e.type === 'refuse') throw new Error('on refuse');
    });
    scheduler.on((e) => seen.push(e.type === 'error' ? `error:${(e.error as Error).message}` : e.type));
    await scheduler.schedule(task('a'), { limits: l });
    const late = outcome(scheduler.schedule(task('late'), { limits: l, deadline: 10 }));
    const next = outcome(scheduler.schedule(task('next'), { limits: l }));
    await clock.advance(1000);
    expect(await late).toBe('deadline');
    expect(await next).toBe('ran');
    expect(seen).toEqual(['dispatch', 'refuse', 'error:on refuse', 'dispatch']);
  });

  it('turns an error thrown on an error event, or with nobody else to hear it, into a process warning', async () => {
    const { clock, scheduler, task } = setup();
    const l = scheduler.limit({ limit: 1, windowMs: 1000 });
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    scheduler.on(() => {
      throw new Error('always');
    });
    const all = ['a', 'b'].map((n) => scheduler.schedule(task(n), { limits: l }));
    await clock.advance(1000);
    await expect(Promise.all(all)).resolves.toEqual(['a', 'b']);
    // Each dispatch: the error event reaches the thrower, whose second throw becomes a warning.
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls[0]).toEqual([new Error('always'), 'TraderatioWarning']);
  });

  it('refuses a listener that is not a function where it is given', () => {
    const { scheduler } = setup();
    expect(() => scheduler.on('dispatch' as never)).toThrow(InvalidInputError);
    expect(() => scheduler.on('dispatch' as never)).toThrow(/listener/);
  });
});

describe('Scheduler: deadlines hold nothing once their task has left', () => {
  it('keeps no timer once the tasks with deadlines ran', async () => {
    const { clock, scheduler } = setup();
    const l = scheduler.limit({ limit: 1000, windowMs: 10 });
    const all = Array.from({ length: 5000 }, () => scheduler.schedule(() => 1, { limits: l, deadline: 3_600_000 }));
    await clock.advance(100);
    await Promise.all(all);
    expect(scheduler.stats().queued).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('keeps no timer after close() is called by a running task', async () => {
    const { clock, scheduler } = setup();
    const l = scheduler.limit({ name: 'l', limit: 1, windowMs: 1000 });
    const slow = scheduler.limit({ name: 'slow', limit: 1, windowMs: 5000 });
    await scheduler.schedule(() => 0, { limits: l });
    await scheduler.schedule(() => 0, { limits: slow });
    // Looked at first in the pass, and still blocked until 5000: the pass plans a timer for it.
    const blocked = outcome(scheduler.schedule(() => 1, { limits: slow, priority: 1 }));
    const closing = outcome(scheduler.schedule(() => scheduler.close(), { limits: l }));
    const after = outcome(scheduler.schedule(() => 2, { limits: l, deadline: 60_000 }));
    await clock.advance(1000);
    expect(await closing).toBe('ran');
    expect(await blocked).toBe('closed');
    expect(await after).toBe('closed');
    expect(clock.pendingTimers).toBe(0);
  });
});
