/**
 * The labels of the proxy's own answers, in the exchange's error shape `{ label, message }`
 * (section 7). Each starts with `TRADERATIO_`, so a client can tell them from the exchange's; none
 * of these requests reached the exchange (but a timeout's, which may have). docs/proxy.md lists them.
 */
export const LABELS = {
  /** 401: the signature's Timestamp would be over 60 s old when the request reached the exchange (R11). */
  expired: 'TRADERATIO_REQUEST_EXPIRED',
  /** 401: the KEY header names no account of the accounts file. */
  unknownKey: 'TRADERATIO_UNKNOWN_KEY',
  /** 503: too many requests already wait on the account. */
  queueFull: 'TRADERATIO_QUEUE_FULL',
  /** 400: the request weighs more than one of its limits allows in a whole window. */
  tooHeavy: 'TRADERATIO_TOO_HEAVY',
  /** 503: the proxy is stopping. */
  closed: 'TRADERATIO_CLOSED',
  /** 504: the upstream did not answer in time (the request may have reached it). */
  upstreamTimeout: 'TRADERATIO_UPSTREAM_TIMEOUT',
  /** 502: the upstream could not be reached, or its answer broke off. */
  upstreamUnreachable: 'TRADERATIO_UPSTREAM_UNREACHABLE',
  /** 413: the body is over the proxy's cap. */
  bodyTooLarge: 'TRADERATIO_BODY_TOO_LARGE',
  /** 400: the request cannot be read (a batch body that is not one), so it cannot be limited. */
  invalidRequest: 'TRADERATIO_INVALID_REQUEST',
} as const;

export type ProxyLabel = (typeof LABELS)[keyof typeof LABELS];

/** The exchange's error shape (section 7). */
export function errorBody(label: string, message: string): { readonly label: string; readonly message: string } {
  return { label, message };
}
