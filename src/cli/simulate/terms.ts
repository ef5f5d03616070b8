import type { ExchangeApi } from '../../catalog/exchange-api.js';
import { rateUnit } from '../../rules/rate-unit.js';

/** How a replay's report speaks of one exchange's limits and refusals. */
export interface SimulateTerms {
  /** The tier's limit, for people: `futures placement and amendment limit`. */
  readonly tierLimit: string;
  /** How the exchange refuses: `with 429`. */
  readonly refusedWith: string;
  /** What a refusal is: a `request`, or an `order` where each order of a batch is answered apart (OKX). */
  readonly refusal: string;
  /** The rule that puts an account below the tiered VIP level at tier 1, and the one of a new sub-account's tier. */
  readonly vipRule: string;
  readonly newSubAccountRule: string;
  /** The throttles' rules, for the chart's legend; null where the rulebook has none. */
  readonly throttleRules: string | null;
  /** A rate's unit: `r/s`, `per 2 s`. */
  readonly unit: string;
}

/** Each rulebook's words, by its name (docs/rules.md for Gate, docs/okx.md for OKX). */
const TERMS: Readonly<Record<string, Omit<SimulateTerms, 'unit' | 'refusedWith' | 'refusal' | 'throttleRules'>>> = {
  gate: { tierLimit: 'futures placement and amendment limit', vipRule: 'R4', newSubAccountRule: 'R8' },
  okx: { tierLimit: 'sub-account limit of new and amend orders', vipRule: 'O1', newSubAccountRule: 'O7' },
};

/** The words of a report replayed by `api`. */
export function termsOf(api: ExchangeApi): SimulateTerms {
  const book = api.rulebook;
  const terms = TERMS[book.name];
  if (terms === undefined) throw new Error(`no words are known for the rulebook "${book.name}"`);
  const { abuse, spotFill } = book.throttles;
  const throttles = [abuse === null ? '' : 'R9', spotFill === null ? '' : 'R14'].filter((t) => t !== '');
  return {
    ...terms,
    refusedWith: api.codes === null ? 'with 429' : `with ${api.codes}`,
    refusal: api.ordersApart ? 'order' : 'request',
    throttleRules: throttles.length === 0 ? null : throttles.join(', '),
    unit: rateUnit(book),
  };
}
