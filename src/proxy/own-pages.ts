import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { LimiterMetrics } from '../metrics/limiter-metrics.js';
import { STATUS_SCRIPT } from './status-page.js';

// The status page's one inline script, allowed by its hash and nothing else.
const PAGE_POLICY = `default-src 'none'; script-src 'sha256-${createHash('sha256').update(STATUS_SCRIPT).digest('base64')}'; style-src 'unsafe-inline'; connect-src 'self'`;

/** The proxy's own pages: the status page, its events, its JSON, the metrics (handle.ts's OWN_PAGES). */
export function serveOwn(
  path: string,
  res: ServerResponse,
  metrics: LimiterMetrics,
  status: () => string,
  events: Set<ServerResponse>,
  page: () => string,
): void {
  switch (path) {
    case '/':
      res.writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': PAGE_POLICY,
        'Cache-Control': 'no-store',
      });
      res.end(page());
      return;
    case '/events':
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
      });
      res.write(`data: ${status()}\n\n`);
      events.add(res);
      res.on('close', () => events.delete(res));
      return;
    case '/status.json': {
      const text = status();
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    case '/metrics':
      void metrics.registry.metrics().then((text) => {
        res.writeHead(200, { 'Content-Type': metrics.registry.contentType });
        res.end(text);
      });
      return;
  }
}
