/**
 * The proxy's status page: each account's tier and why, its limits and their use as bars, the next
 * 00:00 snapshot and 08:00 raise (R5), the throttles' headroom (R9, R14), kept live by the
 * server-sent events of `/events`. One page, its script and style inline: nothing loaded from
 * elsewhere (its Content-Security-Policy says so).
 */
export const STATUS_PAGE = `<!doctype html>
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
  .live { color: #1e7b34; } .down { color: #b3261e; }
</style>
</head>
<body>
<h1>traderatio proxy</h1>
<div class="sub">Each account's limits and their use, live. <span id="state">connecting...</span> <a href="/metrics">/metrics</a></div>
<div id="accounts"></div>
<script>
  const el = (tag, attrs, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c);
    return e;
  };
  const utc = (ms) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const until = (ms, now) => { const m = Math.max(0, Math.round((ms - now) / 60000)); return 'in ' + Math.floor(m / 60) + ' h ' + (m % 60) + ' min'; };
  const fact = (name, value, cls) => el('div', { class: 'fact' }, el('b', {}, name), el('span', cls ? { class: cls } : {}, value));
  function bar(used, n) {
    const share = n > 0 ? Math.min(1, used / n) : 0;
    const fill = el('span', { style: 'width:' + (share * 100).toFixed(1) + '%', class: share > 0.9 ? 'hot' : '' });
    return el('div', { class: 'bar', title: used + ' of ' + n }, fill);
  }
  const limitRows = (limits) => limits.map((l) => el('tr', {}, el('td', {}, l.limit), el('td', {}, bar(l.used, l.n)), el('td', {}, l.used + ' / ' + l.n + ' per ' + (l.windowMs / 1000) + ' s'), el('td', {}, l.waiting + ' waiting')));
  const head = () => el('tr', {}, el('th', {}, 'limit'), el('th', {}, 'used in the window'), el('th', {}, ''), el('th', {}, ''));
  function render(status) {
    const root = document.getElementById('accounts');
    const ip = status.ip.length === 0 ? [] : [el('div', { class: 'account' }, el('h2', {}, 'Public endpoints, per IP of the proxy'), el('table', {}, head(), ...limitRows(status.ip)))];
    root.replaceChildren(...status.accounts.map((a) => {
      const throttles = a.throttles.map((t) => fact(t.kind + ' throttle', (t.inForce ? 'IN FORCE: ' + t.inForce : 'off') + ' - ' + t.requests + ' requests, headroom ' + (t.headroom === null ? 'unlimited' : t.headroom), t.inForce ? 'throttled' : ''));
      return el('div', { class: 'account' },
        el('h2', {}, a.account + ' (' + a.family + ')'),
        el('div', { class: 'facts' },
          fact('tier', 'tier ' + a.tier + ', ' + a.placeLimit + ' placements/s (' + a.source + ')'),
          fact('next 00:00 snapshot', utc(a.nextSnapshot) + ', ' + until(a.nextSnapshot, status.at)),
          fact('next 08:00', utc(a.next0800.at) + ': tier ' + a.next0800.tier + ', ' + a.next0800.limit + '/s'),
          ...throttles),
        el('table', {}, head(), ...limitRows(a.limits)));
    }), ...ip);
  }
  const shown = (status) => { render(status); state.textContent = 'live, ' + new Date(status.at).toISOString().slice(11, 19) + ' UTC'; state.className = 'live'; };
  const state = document.getElementById('state');
  // Drawn at once from /status.json, then kept live by the events.
  fetch('/status.json').then((r) => r.json()).then(shown, () => {});
  const source = new EventSource('/events');
  source.onmessage = (e) => shown(JSON.parse(e.data));
  source.onerror = () => { state.textContent = 'reconnecting...'; state.className = 'down'; };
</script>
</body>
</html>
`;
