import { renderStatus } from './status-view.js';

/**
 * The status page's script: the renderer the server draws the first state with
 * (`renderStatus`, its own source), kept live by the server-sent events of `/events`, the last
 * minutes kept for the chart. Constant: the page's Content-Security-Policy allows it by its hash.
 */
export const STATUS_SCRIPT = `
  // Run from the sources by a loader that keeps names (tsx), the function's text calls esbuild's
  // __name helper: given here, as that helper does, the function itself.
  const __name = (f) => f;
  const renderStatus = ${renderStatus.toString()};
  const root = document.getElementById('accounts');
  const state = document.getElementById('state');
  const keepMs = Number(root.dataset.keepMs);
  const history = JSON.parse(document.getElementById('history').textContent);
  const shown = (status) => {
    if (history.length > 0 && history[history.length - 1].at >= status.at) history.pop();
    history.push(status);
    while (history.length > 1 && status.at - history[0].at > keepMs) history.shift();
    root.innerHTML = renderStatus(status, history);
    state.textContent = 'live, ' + new Date(status.at).toISOString().slice(11, 19) + ' UTC';
    state.className = 'live';
  };
  const source = new EventSource('/events');
  source.onmessage = (e) => shown(JSON.parse(e.data));
  source.onerror = () => { state.textContent = 'reconnecting...'; state.className = 'down'; };
`;

/**
 * The proxy's status page: each account's tier and why, the next 00:00 snapshot and 08:00 raise
 * (see docs/rules.md#r5), the throttles' headroom (see docs/rules.md#r9, #r14), a chart of the last minutes and its limits as bars, as
 * {@link renderStatus} draws them. The server renders the first state (`body`, and the statuses of
 * the last minutes as `history`), so the page reads without script; its one script keeps it live.
 * Nothing is loaded from elsewhere (its Content-Security-Policy says so).
 */
export function statusPage(body: string, history: readonly unknown[], keepMs: number): string {
  // JSON in HTML: "<" escaped, so that no text of it closes the element.
  const data = JSON.stringify(history).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>traderatio proxy</title>
<style>
  body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1d2430; background: #f6f7f9; }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .sub { color: #5b6475; margin-bottom: 18px; }
  .account { background: #fff; border: 1px solid #dde1e8; border-radius: 8px; padding: 14px 16px; margin-bottom: 16px; max-width: 980px; }
  .account h2 { font-size: 16px; margin: 0 0 8px; }
  .facts { display: flex; flex-wrap: wrap; gap: 8px 24px; margin-bottom: 10px; }
  .fact b { display: block; font-size: 12px; color: #5b6475; font-weight: 500; }
  table { border-collapse: collapse; width: 100%; }
  td, th { text-align: left; padding: 3px 8px 3px 0; font-variant-numeric: tabular-nums; white-space: nowrap; }
  th { font-size: 12px; color: #5b6475; font-weight: 500; }
  .bar { width: 260px; height: 12px; background: #e9ecf1; border-radius: 3px; position: relative; overflow: hidden; }
  .bar span { position: absolute; left: 0; top: 0; bottom: 0; background: #3a7bd5; }
  .bar span.hot { background: #d9822b; }
  .throttled { color: #b3261e; font-weight: 600; }
  #state { font-size: 12px; }
  .at { color: #5b6475; font-size: 12px; margin: 0 0 10px; }
  svg.chart { display: block; margin: 6px 0 2px; background: #fbfcfd; border: 1px solid #e9ecf1; border-radius: 4px; max-width: 100%; height: auto; }
  svg.chart polyline { fill: none; stroke-width: 1.6; }
  svg.chart .sent { stroke: #3a7bd5; } svg.chart .limit { stroke: #d9822b; stroke-dasharray: 5 3; } svg.chart .waiting { stroke: #8a93a3; }
  svg.chart .r429 { stroke: #b3261e; stroke-width: 2; } svg.chart .band { fill: #b3261e; opacity: 0.12; }
  svg.chart text { font-size: 10px; fill: #5b6475; }
  .chart.empty { color: #5b6475; font-size: 12px; margin: 6px 0; }
  .legend { font-size: 11px; color: #5b6475; margin-bottom: 8px; }
  .legend .k { display: inline-block; width: 14px; height: 3px; vertical-align: middle; margin: 0 4px 0 10px; }
  .legend .k.sent { background: #3a7bd5; } .legend .k.limit { background: #d9822b; } .legend .k.waiting { background: #8a93a3; }
  .legend .k.r429 { background: #b3261e; } .legend .k.band { background: rgba(179, 38, 30, 0.25); height: 8px; }
  .live { color: #1e7b34; } .down { color: #b3261e; }
</style>
</head>
<body>
<h1>traderatio proxy</h1>
<div class="sub">Each account's limits and their use, live. <span id="state">as rendered by the server</span> <a href="/metrics">/metrics</a> <a href="/status.json">/status.json</a></div>
<div id="accounts" data-keep-ms="${keepMs}">${body}</div>
<script type="application/json" id="history">${data}</script>
<script>${STATUS_SCRIPT}</script>
</body>
</html>
`;
}
