import { Counter, type Registry } from 'prom-client';
import type { ApiDialect } from './api-dialect.js';
import type { AnswerFor } from './own-answers.js';
import type { UpstreamAnswer } from './upstream.js';

/** The status classes of `traderatio_exchange_answers_total`. */
export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** A label the exchange's body may carry, as a metric's label value; another text is counted as `OTHER`. */
const LABEL_TEXT = /^[A-Za-z0-9_]{1,64}$/;

/**
 * The exchange's answers the proxy relayed, counted by family, account, status class and label
 * (the `label` of an error body, see docs/rules.md#r12; empty for a success), as
 * `traderatio_exchange_answers_total`: what to alert on when the exchange refuses.
 */
export class ExchangeAnswers {
  readonly #counter: Counter;

  constructor(registry: Registry) {
    this.#counter = new Counter({
      name: 'traderatio_exchange_answers_total',
      help: `Answers of the exchange the proxy relayed, by status class (${STATUS_CLASSES.join(', ')}) and the label of an error body (empty for a success; OTHER for a label that is not a word).`,
      labelNames: ['family', 'account', 'class', 'label'],
      registers: [registry],
    });
  }

  /** Counts one answer. */
  count(to: AnswerFor, status: number, label: string | null): void {
    this.#counter.inc({ ...to, class: statusClass(status), label: label ?? '' });
  }
}

/** `4xx` for 429. */
export function statusClass(status: number): (typeof STATUS_CLASSES)[number] {
  const c = Math.floor(status / 100);
  return c >= 1 && c <= 5 ? STATUS_CLASSES[c - 1]! : '5xx';
}

/**
 * The label of an answer that is not a success (its JSON body's `label`; OKX's `code`, or a
 * batch's first `sCode` that is not 0), else null.
 */
export function exchangeLabel(answer: UpstreamAnswer, dialect: Pick<ApiDialect, 'label'>): string | null {
  const label = dialect.label(answer.status, () => {
    try {
      return JSON.parse(answer.body.toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  });
  if (label === null) return null;
  return LABEL_TEXT.test(label) ? label : 'OTHER';
}
