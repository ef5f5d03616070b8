import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { UNANSWERED_MAX_MS, Unanswered, type UnansweredRequest } from '../../src/schedule/unanswered.js';

// The reference: a look through every request given, answered or not, at what each says of itself.
function weightAt(given: readonly UnansweredRequest[], x: number): number {
  let weight = 0;
  for (const r of given) if (r.state < 2 && r.from <= x && r.until > x) weight += r.weight;
  return weight;
}

const step = fc.oneof(
  // Mostly sent in order, as a scheduler sends them; now and then one sent earlier than the last.
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      after: fc.integer({ min: -300, max: 400 }),
      weight: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      pick: fc.nat(),
      after: fc.integer({ min: 0, max: 3000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      after: fc.integer({ min: 0, max: UNANSWERED_MAX_MS + 3000 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('rebase' as const), span: fc.integer({ min: 100, max: 2000 }) }),
  },
);

describe('Unanswered', () => {
  test.prop([fc.array(step, { maxLength: 80 }), fc.array(fc.integer({ min: -500, max: 70_000 }), { maxLength: 8 })])(
    'says the weight counting at an instant as a look through every request does',
    (steps, offsets) => {
      const u = new Unanswered();
      const given: UnansweredRequest[] = [];
      let span = 1000;
      let now = 0;
      for (const s of steps) {
        if (s.kind === 'add') {
          const sentAt = Math.max(0, now + s.after);
          if (sentAt > now) now = sentAt;
          given.push(u.add(s.weight, sentAt, span));
        } else if (s.kind === 'answer') {
          if (given.length > 0) u.answer(given[s.pick % given.length]!, now + s.after);
        } else if (s.kind === 'advance') {
          now += s.after;
          u.advance(now);
        } else {
          span = s.span;
          u.rebase(span, now);
        }
        const instants = [now, ...offsets.map((o) => now + o), ...given.flatMap((r) => [r.from, r.until])];
        for (const x of instants) expect(u.at(x)).toBe(weightAt(given, x));
      }
    },
  );
});
