import type { ProxyStatus } from './status.js';

/**
 * The status page's body, as HTML, from the status now and the statuses of the last minutes
 * (oldest first, one per tick of the events): per account its tier and why, the next 00:00
 * snapshot and 08:00 raise (see docs/rules.md#r5), the throttles and their headroom (see docs/rules.md#r9, #r14), a chart of the last
 * minutes (futures placements sent in the trailing second against the limit in force, requests waiting,
 * answers 429, a throttle's band while one is in force) and its limits with their use as bars;
 * then the proxy's limits per IP.
 *
 * One function for both sides: the server renders the page's first state with it (the page
 * reads without script), and the page's script is this function's own source, re-rendering at
 * each event. So it is self-contained: no import, no name from outside its body.
 */
export function renderStatus(status: ProxyStatus, history: readonly ProxyStatus[]): string {
  const esc = (v: unknown): string =>
    String(v).replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
    );
  const utc = (ms: number): string => `${new Date(ms).toISOString().replace('T', ' ').slice(0, 16)} UTC`;
  const until = (ms: number, now: number): string => {
    const m = Math.max(0, Math.round((ms - now) / 60000));
    return `in ${Math.floor(m / 60)} h ${m % 60} min`;
  };
  const fact = (name: string, value: string, cls = ''): string =>
    `<div class="fact"><b>${esc(name)}</b><span${cls === '' ? '' : ` class="${cls}"`}>${esc(value)}</span></div>`;
  const bar = (used: number, n: number): string => {
    const share = n > 0 ? Math.min(1, used / n) : 0;
    return `<div class="bar" title="${used} of ${n}"><span style="width:${(share * 100).toFixed(1)}%"${share > 0.9 ? ' class="hot"' : ''}></span></div>`;
  };
  const limitRows = (limits: ProxyStatus['ip']): string =>
    limits
      .map(
        (l) =>
          `<tr data-limit="${esc(l.limit)}"><td>${esc(l.limit)}</td><td>${bar(l.used, l.n)}</td><td class="used">${l.used} / ${l.n} per ${l.windowMs / 1000} s</td><td class="waiting">${l.waiting} waiting</td></tr>`,
      )
      .join('');
  const head = '<tr><th>limit</th><th>used in the window</th><th></th><th></th></tr>';
  // The chart: one point per pair of successive statuses.
  const chart = (family: string, account: string): string => {
    const W = 640;
    const H = 140;
    const points: { at: number; sent: number; limit: number; waiting: number; r429: number; band: number | null }[] =
      [];
    // Placements sent in the trailing second (the weight the placement limit counts in its
    // window), against that limit: a figure the limit bounds, unlike a rate between two ticks.
    for (let i = 1; i < history.length; i++) {
      const pa = history[i - 1]!.accounts.find((x) => x.family === family && x.account === account);
      const pb = history[i]!.accounts.find((x) => x.family === family && x.account === account);
      if (pa === undefined || pb === undefined) continue;
      const inForce = pb.throttles.find((t) => t.rate !== null);
      points.push({
        at: history[i]!.at,
        sent: pb.limits.find((l) => l.limit === 'futures.place')?.used ?? 0,
        limit: pb.placeLimit,
        waiting: pb.limits.reduce((n, l) => n + l.waiting, 0),
        r429: Math.max(0, pb.answers429 - pa.answers429),
        band: inForce === undefined ? null : inForce.rate,
      });
    }
    if (points.length < 2)
      return '<div class="chart empty">The chart of the last minutes fills in as the events come (one a second).</div>';
    const top = Math.max(1, ...points.map((p) => Math.max(p.sent, p.limit, p.waiting))) * 1.1;
    const t0 = points[0]!.at;
    const span = Math.max(1, points.at(-1)!.at - t0);
    const x = (at: number): string => ((30 + ((at - t0) / span) * (W - 40)) as number).toFixed(1);
    const y = (v: number): string => (H - 18 - (v / top) * (H - 28)).toFixed(1);
    const line = (pick: (p: (typeof points)[number]) => number): string =>
      points.map((p) => `${x(p.at)},${y(pick(p))}`).join(' ');
    // A throttle in force: each run of the time it holds, shaded the whole height.
    const runs: { from: number; to: number; rate: number }[] = [];
    points.forEach((p, i) => {
      const last = runs.at(-1);
      if (p.band === null) return;
      if (last !== undefined && i > 0 && last.to === points[i - 1]!.at) last.to = p.at;
      else runs.push({ from: p.at, to: p.at, rate: p.band });
    });
    const step = (W - 40) / Math.max(1, points.length - 1);
    const bands = runs
      .map(
        (r) =>
          `<rect class="band" x="${(Number(x(r.from)) - step / 2).toFixed(1)}" width="${(Number(x(r.to)) - Number(x(r.from)) + step).toFixed(1)}" y="10" height="${H - 28}"><title>a throttle in force: ${r.rate} a second</title></rect>`,
      )
      .join('');
    const hits = points
      .filter((p) => p.r429 > 0)
      .map(
        (p) =>
          `<line class="r429" x1="${x(p.at)}" x2="${x(p.at)}" y1="${H - 18}" y2="10"><title>${p.r429} answers 429</title></line>`,
      )
      .join('');
    const minutes = Math.round(span / 60000);
    return `<svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="the last ${minutes} min of ${esc(account)}">${bands}<polyline class="limit" points="${line((p) => p.limit)}"/><polyline class="waiting" points="${line((p) => p.waiting)}"/><polyline class="sent" points="${line((p) => p.sent)}"/>${hits}<text x="2" y="12">${Math.round(top)}</text><text x="2" y="${H - 20}">0</text><text x="30" y="${H - 4}">${esc(new Date(t0).toISOString().slice(11, 19))}</text><text x="${W - 60}" y="${H - 4}">${esc(new Date(points.at(-1)!.at).toISOString().slice(11, 19))}</text></svg><div class="legend"><span class="k sent"></span>placements sent in the trailing second <span class="k limit"></span>the limit in force <span class="k waiting"></span>waiting <span class="k r429"></span>answers 429 <span class="k band"></span>a throttle in force</div>`;
  };
  const accounts = status.accounts
    .map((a) => {
      const throttles = a.throttles
        .map((t) =>
          fact(
            `${t.kind} throttle`,
            `${t.inForce === null ? 'off' : `IN FORCE: ${t.inForce}`} - ${t.requests} requests, headroom ${t.headroom === null ? 'unlimited' : t.headroom}`,
            t.inForce === null ? '' : 'throttled',
          ),
        )
        .join('');
      return `<section class="account" data-account="${esc(a.account)}"><h2>${esc(a.account)} (${esc(a.family)})</h2><div class="facts">${fact('tier', `tier ${a.tier}, ${a.placeLimit} placements/s (${a.source})`)}${fact('next 00:00 snapshot', `${utc(a.nextSnapshot)}, ${until(a.nextSnapshot, status.at)}`)}${fact('next 08:00', `${utc(a.next0800.at)}: tier ${a.next0800.tier}, ${a.next0800.limit}/s`)}${fact('sent', `${a.sent.all} requests (${a.sent.place} placements), ${a.answers429} answers 429`)}${throttles}</div>${chart(a.family, a.account)}<table>${head}${limitRows(a.limits)}</table></section>`;
    })
    .join('');
  const ip =
    status.ip.length === 0
      ? ''
      : `<section class="account" data-account="ip"><h2>Public endpoints, per IP of the proxy</h2><table>${head}${limitRows(status.ip)}</table></section>`;
  return `<p class="at">as of ${esc(new Date(status.at).toISOString().slice(0, 19).replace('T', ' '))} UTC</p>${accounts}${ip}`;
}
