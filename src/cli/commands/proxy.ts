import type { Command } from '../command.js';
import { EXIT } from '../command.js';
import { COMMON_OPTIONS } from '../common-options.js';
import { proxyCommand as runProxy } from '../proxy.js';

/** `traderatio proxy`: the proxy in front of the exchange; src/cli/proxy.ts starts and stops it. */
export const proxyCommand: Command = {
  name: 'proxy',
  usage: 'proxy',
  about: `a proxy in front of the exchange that keeps any engine, in any language, inside the account's limits (R1-R16)

Give the engine the proxy's URL in place of the exchange's: each API v4 request is matched to its account by the
KEY header, waits on that account's limits (cancels first), and is forwarded unchanged; answers come back as sent.
With --exchange okx, OKX's API v5 (REST) the same way: the account by OK-ACCESS-KEY, the proxy's own answers as
OKX's { code, msg, data } (50011 with HTTP 429 for a refusal for the rate), the upstream https://www.okx.com by default.
The WebSocket API too (/ws/v4/, /v4/ws/{settle}): order messages wait on their limits, the rest passes at once.
A request its limits would hold past its signature's 60 s is answered at once with TRADERATIO_REQUEST_EXPIRED.
Files are JSON (docs/proxy.md): --accounts and --history as traderatio exchange reads them (secrets may be left out).
Serves /metrics (Prometheus) and a live status page at /.`,
  options: [
    {
      name: 'config',
      value: 'FILE',
      help: 'a JSON object of these options by name ("upstream", "accounts" as a path or inline, "timeout-ms", ...); the command line overrides it',
    },
    {
      name: 'upstream',
      value: 'URL',
      help: 'the exchange to forward to, e.g. https://api.gateio.ws (required; with --exchange okx, default https://www.okx.com)',
    },
    COMMON_OPTIONS.exchange,
    {
      name: 'futures-ws',
      value: 'URL',
      help: "where futures WebSocket connections go, e.g. wss://fx-ws.gateio.ws (default: the upstream's host)",
    },
    { name: 'port', value: 'N', help: 'the port to listen on, 127.0.0.1 (default 8081; 0 picks a free one)' },
    {
      name: 'accounts',
      value: 'FILE',
      help: 'families, accounts and their API keys (without it: one account, KEY main-key)',
    },
    { name: 'history', value: 'FILE', help: 'activity of the last days (and hours) to start the limits from' },
    {
      name: 'redis',
      value: 'URL',
      help: "share limits and counts with other proxies and engines through this Redis, or a Redis Cluster: its nodes' URLs joined by commas, or one of them (needs ioredis or redis installed)",
    },
    {
      name: 'redis-prefix',
      value: 'NAME',
      help: 'the name of the shared budgets in Redis, one per family: NAME:FAMILY (default traderatio)',
    },
    {
      name: 'state',
      value: 'FILE',
      help: "keep each family's counts (24 h, 7 days, hours) in FILE across restarts: read at start, written every 5 s and on stopping",
    },
    { name: 'margin-ms', value: 'N', help: 'a safety margin on every window (R13), in milliseconds (default 0)' },
    { name: 'timeout-ms', value: 'N', help: 'the longest the exchange may take to answer a request (default 30000)' },
    { name: 'max-sockets', value: 'N', help: 'connections to the exchange open at once, at most (default 64)' },
    {
      name: 'log',
      value: 'FORMAT',
      help: 'one record per request, text or json: method, path without query, status, who answered (proxy or exchange), label, account, the limit waited on, the wait; never a header, body or query',
    },
    COMMON_OPTIONS.help,
  ],
  async run(args, io, { stdin, stop }) {
    await runProxy(args, { out: (line) => io.out(line), stdin, stop: stop() }, proxyCommand.options);
    return EXIT.ok;
  },
};
