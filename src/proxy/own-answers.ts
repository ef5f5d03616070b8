import { Counter, type Registry } from 'prom-client';
import { LABELS } from './labels.js';

/** Who a request of the proxy's own answer was for: its family and account, empty when none is known. */
export interface AnswerFor {
  readonly family: string;
  readonly account: string;
}

/**
 * The proxy's own answers (labels `TRADERATIO_*`, docs/proxy.md), counted by family, account,
 * status and label: served as `traderatio_proxy_answers_total` and summed in the summary printed
 * when the proxy stops.
 */
export class OwnAnswers {
  readonly #counter: Counter;
  readonly #tally = new Map<string, Map<string, number>>();

  constructor(registry: Registry) {
    this.#counter = new Counter({
      name: 'traderatio_proxy_answers_total',
      help: `Answers the proxy gave itself, by status (the HTTP status; ws for a WebSocket reply) and label (${Object.values(LABELS).join(', ')}, NOT_FOUND); family and account empty for a KEY of no account.`,
      labelNames: ['family', 'account', 'status', 'label'],
      registers: [registry],
    });
  }

  /** Counts one answer: its HTTP status, or `ws` for a reply on a WebSocket connection. */
  count(to: AnswerFor, status: number | 'ws', label: string): void {
    this.#counter.inc({ family: to.family, account: to.account, status: String(status), label });
    let labels = this.#tally.get(to.family);
    if (labels === undefined) this.#tally.set(to.family, (labels = new Map()));
    labels.set(label, (labels.get(label) ?? 0) + 1);
  }

  /** The answers given for `family` (`""`: for no family), by label. */
  of(family: string): Record<string, number> {
    return Object.fromEntries(this.#tally.get(family) ?? []);
  }
}
