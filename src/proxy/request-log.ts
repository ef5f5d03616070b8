import { InvalidInputError } from '../errors.js';

/**
 * One request as the proxy's log has it: never a header, a body or a query, so that nothing of a
 * key, a signature or an order leaves the process through the log.
 */
export interface RequestRecord {
  /** When the answer went out, ISO 8601 UTC. */
  readonly time: string;
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  readonly status: number;
  /** Who gave the answer: the proxy itself (a label `TRADERATIO_*`, or NOT_FOUND), or the exchange, relayed. */
  readonly by: 'proxy' | 'exchange';
  /** The answer's label: the proxy's own, or the exchange's for an answer that is not a success; null when none. */
  readonly label: string | null;
  /** The family and account of the request's KEY; empty for a KEY of no account; `ip` (both) for a request without one. */
  readonly family: string;
  readonly account: string;
  /** The limit that held the request back last, or null when none did (or it never reached its limits). */
  readonly limit: string | null;
  /** How long it waited on its limits, in milliseconds. */
  readonly waitedMs: number;
}

/** The log's formats: `text`, one line of words; `json`, one JSON object a line. */
export type LogFormat = 'text' | 'json';

/** The format named, or a clear refusal. */
export function readLogFormat(value: unknown): LogFormat {
  if (value !== 'text' && value !== 'json') throw new InvalidInputError('`logFormat`', value, '"text" or "json"');
  return value;
}

/**
 * The line of `record` in `format`.

 */
export function logLine(record: RequestRecord, format: LogFormat): string {
  if (format === 'json') return JSON.stringify({ ...record, waitedMs: Math.round(record.waitedMs * 10) / 10 });
  const who = record.family === '' && record.account === '' ? 'unknown key' : `${record.family}/${record.account}`;
  return [
    `${record.method} ${record.path} ${record.status}`,
    `by ${record.by}${record.label === null ? '' : ` ${record.label}`}`,
    who,
    `waited ${record.waitedMs.toFixed(1)} ms${record.limit === null ? '' : ` on ${record.limit}`}`,
  ].join(' ');
}
