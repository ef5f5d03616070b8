import http from 'node:http';
import https from 'node:https';

/** What the upstream answered: its status, its headers as they came (name, value, ...), its body. */
export interface UpstreamAnswer {
  readonly status: number;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

/** The outcome of one forwarded request: the answer, or why none came. */
export type UpstreamResult =
  | { readonly ok: true; readonly answer: UpstreamAnswer }
  | { readonly ok: false; readonly reason: 'timeout' | 'unreachable'; readonly message: string };

/** Headers of one connection, not of the request (RFC 9110, 7.6.1): never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
]);

/**
 * The headers of a request or an answer as they came, less those of the connection (and those its
 * `Connection` header names): `rawHeaders` order and spelling kept.
 */
export function endToEnd(rawHeaders: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'connection')
      for (const n of rawHeaders[i + 1]!.split(',')) named.add(n.trim().toLowerCase());
  }
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !named.has(name)) out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return out;
}

/** Options of the connections to the upstream. */
export interface UpstreamOptions {
  /** Connections open at once, at most; more requests wait for one. */
  readonly maxSockets: number;
  /** The longest a request may take, from sending it to the end of its answer, in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * The exchange behind the proxy: requests go out over a bounded pool of kept-alive connections
 * (node's Agent), unchanged but for the connection's own headers and `Host`.
 */
export class Upstream {
  readonly base: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  private readonly timeoutMs: number;

  constructor(base: URL, options: UpstreamOptions) {
    this.base = base;
    this.timeoutMs = options.timeoutMs;
    this.transport = base.protocol === 'https:' ? https : http;
    const agentOptions = {
      keepAlive: true,
      maxSockets: options.maxSockets,
      maxFreeSockets: options.maxSockets,
      scheduling: 'lifo' as const,
    };
    this.agent = base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
  }

  /** Sends `path` (with its query, as the client wrote it) and reads the whole answer. */
  send(method: string, path: string, rawHeaders: readonly string[], body: Buffer): Promise<UpstreamResult> {
    const prefix = this.base.pathname.replace(/\/+$/, '');
    const headers = endToEnd(rawHeaders);
    headers.push('Host', this.base.host);
    return new Promise((resolve) => {
      let done = false;
      const finish = (result: UpstreamResult): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(result);
      };
      const req = this.transport.request(
        {
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          port: this.base.port,
          method,
          path: prefix + path,
          headers,
          agent: this.agent,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            finish({
              ok: true,
              answer: { status: res.statusCode ?? 502, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) },
            }),
          );
          res.on('error', (e) =>
            finish({ ok: false, reason: 'unreachable', message: `the answer broke off: ${e.message}` }),
          );
        },
      );
      const timer = setTimeout(() => {
        finish({ ok: false, reason: 'timeout', message: `no whole answer within ${this.timeoutMs} ms` });
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (e: NodeJS.ErrnoException) =>
        finish({ ok: false, reason: 'unreachable', message: e.code ?? e.message }),
      );
      req.end(body);
    });
  }

  /** Closes the pooled connections. */
  close(): void {
    this.agent.destroy();
  }
}
