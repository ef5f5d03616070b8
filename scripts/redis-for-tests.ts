// The Redis the test suite talks to: the one REDIS_URL names, else the one on 127.0.0.1:6379,
// else a private redis-server started for the run (a free port, nothing written to disk) and
// stopped at its end.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The Redis of a test run, and how to let go of it. */
export interface TestRedis {
  readonly url: string;
  /** Whether this run started it. */
  readonly private: boolean;
  /** Stops the server this run started; nothing for one that was already running. */
  stop(): Promise<void>;
}

/** A reason the suite cannot run, said in one line. */
export class NoRedisError extends Error {}

export const INSTALL_HINT =
  'redis-server is not installed, and the tests need it: install it (Debian, Ubuntu: sudo apt-get install redis-server; macOS: brew install redis), or see https://redis.io/docs/latest/operate/oss_and_stack/install/';

export interface RedisForTestsOptions {
  /** REDIS_URL, when set: used as it is, and it must answer. */
  readonly url?: string | undefined;
  /** Where a Redis is looked for when no URL is given. @default 'redis://127.0.0.1:6379' */
  readonly fallback?: string;
  /** The directories searched for redis-server. @default process.env.PATH */
  readonly path?: string | undefined;
  /** How long a Redis has to answer a PING. @default 500 */
  readonly timeoutMs?: number;
}

/**
 * Whether a test file needs a Redis server: the tests that do carry `redis` in their path
 * (`test/redis/…`, `test/proxy/redis.e2e.test.ts`), so that any other selection runs where no Redis
 * is (test/scripts/redis-tag.test.ts holds every file to it).
 */
export function needsRedis(file: string): boolean {
  return file.split(/[\\/]/).some((part) => part.includes('redis'));
}

/** Finds the Redis for a test run, starting a private one when none answers. */
export async function redisForTests(options: RedisForTestsOptions = {}): Promise<TestRedis> {
  const timeoutMs = options.timeoutMs ?? 500;
  // The suite starts servers of its own (a restart test), so redis-server must be there in any case.
  const server = findExecutable('redis-server', options.path ?? process.env.PATH ?? '');
  if (server === null) throw new NoRedisError(INSTALL_HINT);
  if (options.url !== undefined && options.url !== '') {
    if (!(await answers(options.url, timeoutMs)))
      throw new NoRedisError(
        `nothing answers at REDIS_URL=${options.url}: start that Redis, or unset REDIS_URL and the tests start their own`,
      );
    return { url: options.url, private: false, stop: async () => {} };
  }
  const fallback = options.fallback ?? 'redis://127.0.0.1:6379';
  if (await answers(fallback, timeoutMs)) return { url: fallback, private: false, stop: async () => {} };
  return startPrivate(server);
}

/** The path of `name` in one of the directories of `path`, or null. */
export function findExecutable(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Whether a Redis at `url` answers a PING (an error reply, such as NOAUTH, is an answer too). */
export function answers(url: string, timeoutMs: number): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || 6379) });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => done(d[0] === 0x2b /* + */ || d[0] === 0x2d /* - */));
  });
}

/** A port of 127.0.0.1 that nothing listens on, as the system hands it out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startPrivate(server: string): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'traderatio-redis-'));
  // A port found free may be taken before redis-server binds it: try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const child = spawn(
      server,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--daemonize',
        'no',
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => (gone = true));
    const end = Date.now() + 5000;
    while (!gone && Date.now() < end) {
      if (await answers(url, 200)) return { url, private: true, stop: () => stop(child, exited, dir) };
      await new Promise((r) => setTimeout(r, 20));
    }
    await stop(child, exited, dir, false);
  }
  rmSync(dir, { recursive: true, force: true });
  throw new NoRedisError(`${server} did not start on a free port of 127.0.0.1 within 5 s`);
}

async function stop(child: ChildProcess, exited: Promise<void>, dir: string, clean = true): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
  if (clean) rmSync(dir, { recursive: true, force: true });
}
