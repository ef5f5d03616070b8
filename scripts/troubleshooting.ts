// docs/troubleshooting.md is generated from this file (`npm run docs:troubleshooting`). Each table
// is typed by the code's own list (the error code unions, the event unions), so a code or event
// added without a line here fails `npm run typecheck`; test/troubleshooting.test.ts checks that the
// page is this rendering and that every label a source file gives an error has a line.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LimiterEvent } from '../src/account/limiter.js';
import type { CliErrorCode } from '../src/cli/main.js';
import type { ErrorCode } from '../src/errors.js';
import type { ModelExchangeErrorCode } from '../src/model-exchange/index.js';
import type { RedisStoreEvent } from '../src/redis/store.js';
import type { SchedulerEvent } from '../src/schedule/scheduler.js';
import { LABEL_GUIDE } from '../src/proxy/labels.js';

/** What a code, an event or a label means, and what to do about it. */
export interface Entry {
  readonly means: string;
  readonly todo: string;
}

type Table<K extends string> = { readonly [key in K]: Entry };

export const LIMITER_EVENTS: Table<LimiterEvent['type']> = {
  limit: {
    means:
      "The account's placement limit changed (`from`, `to`); `reason` says why: a raise at 08:00, a lowering at the 00:00 rating, a VIP change, a new sub-account, a live downgrade, the exchange's report.",
    todo: 'Nothing: the limiter already sends at the new limit. Log it; a lowering you did not expect is worth a look at `plan` or `timeline`.',
  },
  'assumed-tier': {
    means:
      "The account's first placement went out on an assumed tier (tier 1): nothing counted, seeded or reported tells the limiter its tier. `learnFrom` names what would.",
    todo: "Put the client behind an adapter (it asks GET /account/rate_limit and reads the `X-Gate-RateLimit-Limit` of every placement), or `seed` the family's last 7 days.",
  },
  'exchange-limit': {
    means:
      "A placement's answer stated a limit (`stated`, tier `tier`) other than the one in force (`from`): the exchange's own figure, taken under `policy`; `to` is the limit in force now.",
    todo: 'Nothing: the limiter sends at it. Often, the limiter lacks history: seed it to follow the 00:00 snapshot and the throttles as well.',
  },
  'report-unavailable': {
    means:
      'GET /account/rate_limit did not answer a report (`reason`: its status, the error): marked not open; the headers of placements take over.',
    todo: 'Nothing: the exchange marks the endpoint not yet open. A 401 means the client does not sign that request.',
  },
  throttle: {
    means:
      'The futures abuse throttle started (`throttle` holds its N per 10 s and its end) or lifted (`throttle` null): more than 86,400 requests in 24 h with almost nothing traded.',
    todo: 'Trade more per request, or send fewer requests, before the next whole hour; `advise` says how much. Placements go at 10 or 20 per 10 s meanwhile; cancels are not throttled.',
  },
  'abuse-warning': {
    means:
      'The futures abuse throttle would start at the next whole hour on the activity so far (`requests` against `threshold`).',
    todo: 'Trade or slow down before the hour: fills before the check avoid it.',
  },
  'spot-throttle': {
    means:
      'The spot low-fill throttle started (10 placements and amendments per 10 s) or lifted (`throttle` null): less than 0.1 USDT traded per spot request over 24 h.',
    todo: 'Trade more on spot per request, or send fewer spot requests, before the next whole hour.',
  },
  'spot-fill-warning': {
    means:
      'The spot low-fill throttle would start at `trips` on the activity so far; `needed` USDT more traded on spot before then avoids it.',
    todo: 'Trade `needed` USDT more on spot, or send fewer spot requests, before `trips`.',
  },
  report: {
    means:
      "The exchange's own report of the account's tier disagrees with the rules' tier: both figures, the report's age, and which one is in force under the `report` policy.",
    todo: 'Usually nothing: by default the newer figure wins. Persistent disagreement means the limiter lacks history: seed it (`seed`) or record every fill.',
  },
  clock: {
    means:
      "The local clock against the exchange's: `check` turns REQUEST_EXPIRED when the local clock may be more than 60 s off (signed requests are about to fail), and ok again when it is not.",
    todo: "Fix the machine's clock (NTP). Until then signed requests fail with REQUEST_EXPIRED.",
  },
  error: {
    means:
      'Something around the limiter failed without stopping it: a listener threw, persisting or refreshing failed, a reconcile call failed, fills an adapter read could not be recorded (`source`, `error`).',
    todo: 'Read `error`. A listener should not throw; a persist or refresh failure is retried on the next change.',
  },
};

export const SCHEDULER_EVENTS: Table<SchedulerEvent['type']> = {
  dispatch: {
    means: 'A task was sent, with its weight, priority and the limits it drew on.',
    todo: 'Nothing; count it if you want throughput figures.',
  },
  refuse: {
    means:
      'A task was refused before it ran (`reason`: queue-full, aborted, deadline, too-heavy, closed) and counted nowhere.',
    todo: 'See the matching REFUSED_* code below.',
  },
  limit: {
    means: "A limit's N or window changed (`from`, `to`).",
    todo: 'Nothing: the scheduler applies it at once, counting what was sent in the trailing window.',
  },
  pause: {
    means:
      'A limit is paused until `until`: the exchange answered 429 or reported nothing remaining, with a reset instant.',
    todo: 'Nothing: tasks on that limit wait until then. Frequent pauses mean something else sends on the same account outside the limiter.',
  },
  'reset-bounded': {
    means:
      'Feedback named a reset instant further off than an hour (`header`: milliseconds read as seconds, 1e30, the year 3000): the pause ends at `until`, an hour on, instead.',
    todo: 'Nothing: the limit goes on after the bound. Something between the exchange and the engine may rewrite the header.',
  },
  recount: {
    means:
      "An answer's headers said the exchange counted more in the limit's window (`exchange`: its `…-Limit` less `…-Requests-Remain`) than the limit did (`counted`): the difference is held until `until`, one window after the answer. A count lower than the limit's changes nothing.",
    todo: 'Nothing after a start, a fresh Redis prefix or a flush: requests sent before by a process now gone are counted. Often during a run means something else sends on the same account outside the limiter.',
  },
  error: {
    means: 'A listener threw, or a task failed in a way the scheduler reports (`source`, `error`).',
    todo: 'Read `error`; fix the listener.',
  },
};

export const REDIS_EVENTS: Table<RedisStoreEvent['type']> = {
  unavailable: {
    means:
      'Redis did not answer within `timeoutMs`; the store probes it every `retryMs`. Tasks wait, or run on a local share (`onUnavailable`).',
    todo: 'Check Redis. Nothing is lost: what was granted and not confirmed is given back when Redis answers.',
  },
  available: { means: 'Redis answers again after being unavailable.', todo: 'Nothing.' },
  local: {
    means: "A limit runs on this process's local share while Redis is unavailable (`onUnavailable: 'local'`).",
    todo: 'Nothing; the share is sized so that every process on its share together stays within the limit.',
  },
  error: { means: 'A listener of the store threw.', todo: 'Fix the listener.' },
};

// The core's codes, the command line's and the model exchange's: a user may meet any of them.
export const ERROR_CODES: Table<ErrorCode | CliErrorCode | ModelExchangeErrorCode> = {
  INVALID_INPUT: {
    means:
      'A call was given a value it cannot take; the message names the field, the value and what was expected. Nothing was changed, counted or queued.',
    todo: 'Fix the value named in the message (`error.field`, `error.value`).',
  },
  REFUSED_QUEUE_FULL: {
    means: 'The queue already holds `maxQueue` tasks; this one was not queued.',
    todo: 'Send less, or raise `maxQueue` if the backlog is expected.',
  },
  REFUSED_ABORTED: {
    means: "The task's `signal` was aborted before it was sent.",
    todo: "Nothing: that was the caller's choice.",
  },
  REFUSED_DEADLINE: {
    means: 'The task could not be sent before its `deadline`; it never ran.',
    todo: 'Give it a later deadline, or send fewer tasks on the same limit: the limit is saturated.',
  },
  REFUSED_TOO_HEAVY: {
    means: "The task's weight is more than a limit's N: it could never be sent.",
    todo: 'Split the task (a smaller batch), or check the weight.',
  },
  REFUSED_CLOSED: {
    means: 'The scheduler or limiter was closed; waiting tasks are refused and new ones are not taken.',
    todo: 'Do not send after `close()`.',
  },
  EXCHANGE_API_ERROR: {
    means:
      "The exchange (or the model exchange) answered with an error body `{ label, message }`; `label` is the exchange's.",
    todo: 'Look the label up in the table of labels below.',
  },
  NO_REPLY: {
    means: 'A WebSocket API request got no answer within its timeout (`requestId`).',
    todo: 'Check the connection; the order may or may not have been taken: query it.',
  },
  TOO_MANY_TIMERS: {
    means: 'A virtual clock fired more timers than the run allows: a replay or test that never settles.',
    todo: 'Look for a timer that re-arms itself forever, or raise the allowance.',
  },
  INPUT_FILE: {
    means:
      'The command line could not read an input file, or a line of it is wrong; the message names the file, the line and the column.',
    todo: 'Fix the file at the line named.',
  },
  OUTPUT_FILE: {
    means: 'The command line could not write an output file (`--svg`, `--html`, ...).',
    todo: 'Check the path and its permissions.',
  },
};

/** The labels of error bodies that the library, the command line or the model exchange give. */
export const LABELS: { readonly [label: string]: Entry } = {
  TOO_MANY_REQUESTS: {
    means:
      "HTTP 429: over a rate limit. With the limiter in front of every request, the account is shared with something the limiter does not see, or its figure is above the exchange's.",
    todo: "Send every request of the account through the limiter (one Redis store for several processes); let it read every answer's headers.",
  },
  TOO_FAST: {
    means: 'Withdrawals too frequent (1 per 3 s; push 1 per 10 s).',
    todo: 'Send withdrawals through the limiter.',
  },
  TOO_MANY_ORDERS: {
    means: 'A batch holds too many orders (spot: more than 10 per currency pair; futures: more than 10).',
    todo: 'Split the batch.',
  },
  MIXED_ACCOUNT_TYPE: { means: 'A spot batch mixes account types.', todo: 'One account type per batch.' },
  REQUEST_EXPIRED: {
    means:
      "The signed request's Timestamp is more than 60 s from the exchange's time (one that is not a number of seconds is INVALID_PARAM_VALUE).",
    todo: "Fix the local clock; the limiter's `clock` event tells when it is off.",
  },
  TOO_MANY_CONNECTIONS: { means: 'More than 300 WebSocket connections from one IP.', todo: 'Share connections.' },
  INVALID_CREDENTIALS: {
    means:
      'No credentials: a private endpoint without KEY, Timestamp and SIGN; on the model exchange also its administration (`/_model/`) without the token it requires.',
    todo: 'Send the API key headers; for the administration, `Authorization: Bearer <token>` as printed at start-up.',
  },
  INVALID_KEY: {
    means: 'The API key is not known.',
    todo: 'Check the key (on the model exchange: its accounts file).',
  },
  INVALID_SIGNATURE: {
    means: 'The signature does not match the request.',
    todo: 'Sign method, path, query, body hash and timestamp as the exchange describes.',
  },
  MISSING_REQUIRED_HEADER: {
    means:
      'A signed request lacks KEY (while it has Timestamp or SIGN), or Timestamp or SIGN where signatures are checked.',
    todo: 'Send all three.',
  },
  INVALID_PARAM_VALUE: {
    means: 'A parameter has a value the endpoint does not take; the message names it.',
    todo: 'Fix the parameter.',
  },
  INVALID_REQUEST_BODY: { means: 'The body is not the JSON the endpoint takes.', todo: 'Fix the body.' },
  MISSING_REQUIRED_PARAM: { means: 'A required parameter is missing; the message names it.', todo: 'Add it.' },
  INVALID_ARGUMENT: { means: 'An argument of a WebSocket API request is not valid.', todo: 'Fix the request.' },
  INVALID_CURRENCY_PAIR: {
    means: 'The currency pair is not one the exchange lists.',
    todo: 'Check the pair (BTC_USDT).',
  },
  CONTRACT_NOT_FOUND: {
    means: 'The futures contract is not one the exchange lists.',
    todo: 'Check the contract (BTC_USDT) and the settle currency.',
  },
  ORDER_NOT_FOUND: {
    means: 'No order with that id.',
    todo: 'Check the id; a custom id addresses an order for 30 minutes.',
  },
  ORDER_FINISHED: { means: 'The order is already filled or cancelled.', todo: 'Nothing to amend or cancel.' },
  ORDER_CLOSED: { means: 'The order is closed.', todo: 'Nothing to amend or cancel.' },
  NOT_FOUND: {
    means: 'No such endpoint.',
    todo: 'Check the path (docs/model-exchange.md lists what the model exchange answers).',
  },
  METHOD_NOT_ALLOWED: { means: 'The endpoint exists but not with this method.', todo: 'Check the method.' },
  FORBIDDEN: {
    means: 'The request is not allowed: a sub-account key on withdrawals and sub-account transfers.',
    todo: "Send it with the main account's key.",
  },
  INTERNAL: {
    means: 'The server failed while handling the request.',
    todo: 'Report it with the request that caused it.',
  },
};

function table(title: string, intro: string, rows: { readonly [key: string]: Entry }): string {
  const lines = Object.entries(rows).map(([key, e]) => `| \`${key}\` | ${e.means} | ${e.todo} |`);
  return `## ${title}\n\n${intro}\n\n| | what it means | what to do |\n|---|---|---|\n${lines.join('\n')}\n`;
}

/** The labels of `traderatio proxy`'s own answers, from src/proxy/labels.ts: status, meaning, what to do. */
export const PROXY_LABELS: { readonly [label: string]: Entry } = Object.fromEntries(
  Object.entries(LABEL_GUIDE).map(([label, g]) => [label, { means: `${g.status}: ${g.means}`, todo: g.todo }]),
);

/** The table of the proxy's labels, as docs/proxy.md and this page show it. */
export function proxyLabelsTable(): string {
  return table(
    "Labels of the proxy's own answers",
    "`traderatio proxy` answers some requests itself, in the exchange's error shape, with a label of its own (docs/proxy.md): the status, then what it means.",
    PROXY_LABELS,
  );
}

/** The page, rendered. */
export function render(): string {
  return [
    '# Troubleshooting: every event, error code and label\n',
    'What each event the library emits, each error code it throws and each label an error body carries',
    "means, and what to do about it. This page is generated from the code's own lists",
    '(scripts/troubleshooting.ts; `npm run docs:troubleshooting`), so it names every one of them.',
    'For the ideas behind them, see [concepts.md](concepts.md).\n',
    table(
      'Events of the account limiter',
      "`limiter.on('event', listener)` (`LimiterEvent`), by `type`.",
      LIMITER_EVENTS,
    ),
    table(
      'Events of the scheduler',
      "`scheduler.on('event', listener)` (`SchedulerEvent`), by `type`.",
      SCHEDULER_EVENTS,
    ),
    table('Events of the Redis store', "`store.on('event', listener)` (`RedisStoreEvent`), by `type`.", REDIS_EVENTS),
    table(
      'Error codes',
      'Every error the library and the command line throw is a `TraderatioError` with one of these `code`s.',
      ERROR_CODES,
    ),
    table(
      'Labels',
      'The `label` of an error body `{ label, message }`, as the exchange gives it; the model exchange answers with the same labels, and the library carries one on an error where the exchange has a label for the same situation.',
      LABELS,
    ),
    proxyLabelsTable(),
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(join(import.meta.dirname, '..', 'docs', 'troubleshooting.md'), render());
}
