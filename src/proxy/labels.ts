/**
 * The labels of the proxy's own answers, in the exchange's error shape `{ label, message }`
 * (see docs/rules.md#r12). Each starts with `TRADERATIO_`, so a client can tell them from the exchange's; none
 * of these requests reached the exchange (but a timeout's, which may have). docs/proxy.md lists them.
 */
export const LABELS = {
  /** 401: the signature's Timestamp would be over 60 s old when the request reached the exchange (see docs/rules.md#r11). */
  expired: 'TRADERATIO_REQUEST_EXPIRED',
  /** 401: a private endpoint without a KEY header: the exchange would refuse it, and it is no account's. */
  missingKey: 'TRADERATIO_MISSING_KEY',
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
  /** 500: the proxy failed to handle the request (its log says why). */
  proxyError: 'TRADERATIO_PROXY_ERROR',
} as const;

export type ProxyLabel = (typeof LABELS)[keyof typeof LABELS];

/**
 * What each label of the proxy's own answers means and what to do, with its HTTP status: the table
 * of docs/proxy.md and docs/troubleshooting.md is generated from it.
 */
export const LABEL_GUIDE: Readonly<
  Record<ProxyLabel, { readonly status: number; readonly means: string; readonly todo: string }>
> = {
  [LABELS.expired]: {
    status: 401,
    means:
      "The signature's Timestamp is, or would be by the time the limits let the request go, over 60 s from the exchange's clock (as estimated from its answers); the message gives its age and the clock's uncertainty. Never forwarded.",
    todo: "Sign it again with a fresh Timestamp and resend. Often: the machine's clock is off (NTP), or the account's limits hold requests for long (send fewer).",
  },
  [LABELS.missingKey]: {
    status: 401,
    means:
      'A private endpoint without a KEY header: the exchange would refuse it (MISSING_REQUIRED_HEADER), and it counts on no account. Never forwarded.',
    todo: 'Sign the request (KEY, Timestamp, SIGN headers).',
  },
  [LABELS.unknownKey]: {
    status: 401,
    means:
      "The KEY header names no account of the proxy's accounts file: a request the proxy cannot count is one it cannot keep inside a limit. Never forwarded.",
    todo: 'Add the key to the accounts file (--accounts) under its account, and restart the proxy.',
  },
  [LABELS.queueFull]: {
    status: 503,
    means: 'Too many requests (100,000) already wait on the account. Never forwarded.',
    todo: 'Send less: the engine sends faster than its limits allow, for long.',
  },
  [LABELS.tooHeavy]: {
    status: 400,
    means:
      'The request weighs more than one of its limits allows in a whole window (a batch too big). Never forwarded.',
    todo: 'Split the batch.',
  },
  [LABELS.closed]: {
    status: 503,
    means: 'The proxy is stopping: the request waited on its limits, or arrived while it stopped. Never forwarded.',
    todo: 'Resend it once the proxy is back: it never reached the exchange.',
  },
  [LABELS.upstreamTimeout]: {
    status: 504,
    means: 'The exchange did not answer within --timeout-ms. The request may have reached it, and counted.',
    todo: 'Check what the exchange did (query the order by its text) before resending an order.',
  },
  [LABELS.upstreamUnreachable]: {
    status: 502,
    means:
      'The exchange could not be reached, or its answer broke off. The request may have reached it if the answer broke off.',
    todo: 'Check the network and --upstream; alert on traderatio_proxy_answers_total{label="TRADERATIO_UPSTREAM_UNREACHABLE"}.',
  },
  [LABELS.bodyTooLarge]: {
    status: 413,
    means: "The body is over the proxy's cap (1 MiB). Never forwarded.",
    todo: 'Send a smaller body.',
  },
  [LABELS.invalidRequest]: {
    status: 400,
    means: 'The request cannot be read (a batch body that is not one), so it cannot be limited. Never forwarded.',
    todo: 'Fix the body: the message says what is wrong.',
  },
  [LABELS.proxyError]: {
    status: 500,
    means: 'The proxy failed to handle the request; its log (--log) says why. The request may have been forwarded.',
    todo: 'Read the log; report it.',
  },
};

/** The exchange's error shape `{ label, message }` (docs/rules.md#r12). */
export function errorBody(label: string, message: string): { readonly label: string; readonly message: string } {
  return { label, message };
}

/**
 * The answer to a request the limiter refused: it was never sent. `signature` names the
 * signature's time and how long it holds (Gate's `Timestamp`, 60 s, unless given).
 */
export function refusal(
  reason: string,
  signature: { readonly header: string; readonly validityMs: number } = { header: 'Timestamp', validityMs: 60_000 },
): [number, ProxyLabel, string] {
  switch (reason) {
    case 'deadline':
      return [
        401,
        LABELS.expired,
        signature.header === 'Timestamp'
          ? "the limits would have held the request past its signature's 60 s: sign it again; never forwarded"
          : `the limits would have held the request past its signature's ${signature.validityMs / 1000} s (${signature.header}): sign it again; never forwarded`,
      ];
    case 'queue-full':
      return [503, LABELS.queueFull, 'too many requests wait on this account already; never forwarded'];
    case 'too-heavy':
      return [
        400,
        LABELS.tooHeavy,
        'the request weighs more than one of its limits allows in a whole window; never forwarded',
      ];
    default:
      return [503, LABELS.closed, 'the proxy is stopping; never forwarded'];
  }
}
