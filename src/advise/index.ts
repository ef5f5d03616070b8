/**
 * `traderatio/advise`: what a family's activity would need to reach a better tier, or to stay
 * out of a throttle, and what it would cost: the advisor behind `traderatio advise`.
 *
 * @packageDocumentation
 */
export { advise } from './advise.js';
export type {
  AccountOutcome,
  Advice,
  AdviceInput,
  Finding,
  FindingCost,
  FindingKind,
  Outcome,
} from './advise.js';
export type { PairCount } from './edits.js';
export type { AdviseOptions } from './options.js';
export type { ThrottleNearMiss } from './throttles.js';
