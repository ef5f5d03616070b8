/**
 * `traderatio/ccxt`: a ccxt `gate` instance behind an account limiter.
 *
 * @packageDocumentation
 */
export { limitCcxt } from './limit-ccxt.js';
export type { CcxtGate, LimitCcxtOptions, LimitedCcxt } from './limit-ccxt.js';
