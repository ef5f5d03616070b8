import { TraderatioError } from '../errors.js';
import type { Account } from './core.js';

/**
 * The `code` of the model exchange's errors: `EXCHANGE_API_ERROR`, a request it answers with an
 * error (the answer's body carries the exchange's `label`). The core's codes are
 * `ErrorCode`, the command line's its own.
 *
 * @example
 * ```ts
 * import type { ModelExchangeErrorCode } from 'traderatio/model-exchange'
 *
 * const code: ModelExchangeErrorCode = 'EXCHANGE_API_ERROR'
 * code // 'EXCHANGE_API_ERROR'
 * ```
 */
export type ModelExchangeErrorCode = 'EXCHANGE_API_ERROR';

/**
 * A request the model exchange answers with an error: the HTTP status and the body
 * `{ label, message }` of the description's section 7 (see docs/rules.md#r12). Thrown inside a request's handling,
 * answered by the HTTP or WebSocket layer.
 */
export class ApiError extends TraderatioError<ModelExchangeErrorCode> {
  /** The account the refusal is counted for, when the request was identified before it was refused. */
  account: Account | null = null;
  constructor(
    readonly status: number,
    label: string,
    message: string,
  ) {
    super('EXCHANGE_API_ERROR', message, label);
  }

  /** The response body. */
  body(): { readonly label: string; readonly message: string } {
    return { label: this.label!, message: this.message };
  }
}

/** 400 with `label`. */
export const badRequest = (label: string, message: string): ApiError => new ApiError(400, label, message);
