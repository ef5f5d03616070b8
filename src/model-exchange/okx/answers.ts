import { ApiError } from '../api-error.js';

// OKX's answers (see docs/okx.md#o8): every body is { code, msg, data }; code "0" success, "1" an operation
// failed, "2" a batch partly succeeded, each order carrying its own sCode and sMsg. The model's
// errors are its ApiError with OKX's code as the label.

type Json = Record<string, unknown>;

/** OKX's messages of the codes the model answers with. */
export const OKX_MESSAGES: Readonly<Record<string, string>> = Object.freeze({
  '50000': 'Body cannot be empty',
  '50002': 'JSON syntax error',
  '50011': 'Rate limit reached. Please refer to API documentation and throttle requests accordingly',
  '50014': 'Parameter cannot be empty',
  '50061': 'Sub-account rate limit exceeded',
  '50102': 'Timestamp request expired',
  '50103': 'Request header "OK-ACCESS-KEY" cannot be empty',
  '50104': 'Request header "OK-ACCESS-PASSPHRASE" cannot be empty',
  '50105': 'Request header "OK-ACCESS-PASSPHRASE" incorrect',
  '50106': 'Request header "OK-ACCESS-SIGN" cannot be empty',
  '50107': 'Request header "OK-ACCESS-TIMESTAMP" cannot be empty',
  '50111': 'Invalid OK-ACCESS-KEY',
  '50112': 'Invalid OK-ACCESS-TIMESTAMP',
  '50113': 'Invalid signature',
  '51000': 'Parameter error',
  '51001': 'Instrument ID does not exist',
  '51400': 'Order cancellation failed as the order has been filled, canceled or does not exist',
  '51503': 'Order modification failed as the order has been filled, canceled or does not exist',
  '51603': 'Order does not exist',
});

/** An OKX refusal: `code` with its message (and a detail), answered with `status`. */
export function okxError(status: number, code: string, detail?: string): ApiError {
  const base = OKX_MESSAGES[code] ?? 'Error';
  return new ApiError(status, code, detail === undefined ? base : `${base}: ${detail}`);
}

/** A parameter refused (51000), naming it and the value. */
export const paramError = (name: string, value: unknown, expected: string): ApiError =>
  okxError(400, '51000', `${name} ${JSON.stringify(value) ?? 'undefined'}: ${expected}`);

/** A parameter missing (50014), naming it. */
export const missing = (name: string): ApiError => okxError(400, '50014', name);

/** A success: `{ code: "0", msg: "", data }`. */
export const ok = (data: readonly unknown[]): Json => ({ code: '0', msg: '', data });

/** A refusal of the whole request: `{ code, msg, data: [] }`. */
export const refusal = (e: ApiError): Json => ({ code: e.label!, msg: e.message, data: [] });

/**
 * The answer to a request of orders answered each apart: code "0" when every order succeeded,
 * "1" when none did (message "All operations failed"), "2" when some did.
 */
export function perOrder(rows: readonly Json[], extra: Json = {}): Json {
  const failed = rows.filter((r) => r.sCode !== '0').length;
  const code = failed === 0 ? '0' : failed === rows.length ? '1' : '2';
  const msg = code === '0' ? '' : code === '1' ? 'All operations failed' : 'Bulk operation partially succeeded';
  return { code, msg, data: rows, ...extra };
}
