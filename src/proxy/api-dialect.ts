import type { LimiterExchange } from '../account/limiter-options.js';
import { OKX_REFUSAL_CODES } from '../catalog/okx.js';
import { GATE_SIGNATURE, OKX_SIGNATURE, type SignatureRule } from './expiry.js';
import { LABELS, type ProxyLabel, errorBody } from './labels.js';

/** The exchanges the proxy serves: those of the account limiter. */
export type ProxyExchange = LimiterExchange;

/**
 * How the proxy reads and writes one exchange's REST API: where its paths begin, the headers that
 * name the key and sign the time, its own answers in the exchange's error shape, and the label of
 * an exchange's answer that is not a success.
 */
export interface ApiDialect {
  readonly exchange: ProxyExchange;
  /** Where the API is, under the proxy's address as under the exchange's: `/api/v4/`. */
  readonly prefix: string;
  /** The header naming the API key, lower-cased as node gives it: `key`. */
  readonly keyHeader: string;
  /** The same as the exchange's documents write it: `KEY`. */
  readonly keyName: string;
  /** The header of the signature's time, lower-cased, and the exchange's rule for it. */
  readonly timestampHeader: string;
  readonly signature: SignatureRule;
  /** One of the proxy's own answers: its HTTP status and body, from the status and label it would have on Gate. */
  own(status: number, label: string, message: string): { readonly status: number; readonly body: object };
  /** The label of an answer that is not a success, as its body (parsed by `read`, when needed) gives it, else null. */
  label(status: number, read: () => unknown): string | null;
  /** Whether an answer is a refusal for the rate (a 429, or OKX's 50011 or 50061). */
  tooMany(status: number, label: string | null): boolean;
}

const GATE_DIALECT: ApiDialect = {
  exchange: 'gate',
  prefix: '/api/v4/',
  keyHeader: 'key',
  keyName: 'KEY',
  timestampHeader: 'timestamp',
  signature: GATE_SIGNATURE,
  own: (status, label, message) => ({ status, body: errorBody(label, message) }),
  label: (status, read) => {
    if (status < 300) return null;
    const label = (read() as { label?: unknown } | null | undefined)?.label;
    return typeof label === 'string' ? label : null;
  },
  tooMany: (status) => status === 429,
};

/**
 * OKX's code for each of the proxy's own answers, so that a client reads it as it would read the
 * exchange's (see docs/okx.md#o8; ccxt's okx maps 50011 to RateLimitExceeded): the label stays at
 * the head of `msg`.
 */
export const OKX_OWN_CODES: Readonly<Record<ProxyLabel | 'NOT_FOUND', string>> = Object.freeze({
  [LABELS.expired]: '50102',
  [LABELS.missingKey]: '50103',
  [LABELS.unknownKey]: '50111',
  [LABELS.queueFull]: OKX_REFUSAL_CODES.other,
  [LABELS.tooHeavy]: '51000',
  [LABELS.closed]: '50001',
  [LABELS.upstreamTimeout]: '50004',
  [LABELS.upstreamUnreachable]: '50001',
  [LABELS.bodyTooLarge]: '51000',
  [LABELS.invalidRequest]: '51000',
  [LABELS.proxyError]: '50026',
  NOT_FOUND: '404',
});

const OKX_DIALECT: ApiDialect = {
  exchange: 'okx',
  prefix: '/api/v5/',
  keyHeader: 'ok-access-key',
  keyName: 'OK-ACCESS-KEY',
  timestampHeader: 'ok-access-timestamp',
  signature: OKX_SIGNATURE,
  own: (status, label, message) => {
    const code = OKX_OWN_CODES[label as ProxyLabel] ?? '50026';
    // A refusal for the rate goes as OKX documents 50011: HTTP 429.
    return {
      status: code === OKX_REFUSAL_CODES.other ? 429 : status,
      body: { code, msg: `${label}: ${message}`, data: [] },
    };
  },
  // Every answer is read: OKX refuses orders inside an HTTP 200.
  label: (_status, read) => {
    const b = read() as { code?: unknown; data?: unknown } | null | undefined;
    if (typeof b?.code !== 'string' || b.code === '0') return null;
    // A request of orders answered each apart ("1", "2"): the first order's code that is not a success.
    if ((b.code === '1' || b.code === '2') && Array.isArray(b.data)) {
      const failed = (b.data as { sCode?: unknown }[]).find((o) => typeof o?.sCode === 'string' && o.sCode !== '0');
      if (failed !== undefined) return failed.sCode as string;
    }
    return b.code;
  },
  tooMany: (status, label) =>
    status === 429 || label === OKX_REFUSAL_CODES.other || label === OKX_REFUSAL_CODES.subAccount,
};

/** The dialect of each exchange the proxy serves. */
export const API_DIALECTS: Readonly<Record<ProxyExchange, ApiDialect>> = { gate: GATE_DIALECT, okx: OKX_DIALECT };
