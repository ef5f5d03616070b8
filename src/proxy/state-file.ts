import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AccountLimiter } from '../account/limiter.js';
import type { LimiterSnapshot } from '../account/persistence.js';
import { type Repeating, every } from '../account/timers.js';
import { InvalidInputError } from '../errors.js';
import type { Clock } from '../schedule/clock.js';

/** What `--state FILE` holds: each family's limiter snapshot, by family id. */
export interface ProxyState {
  readonly format: 'traderatio.proxy-state';
  readonly version: 1;
  /** When it was written, epoch ms. */
  readonly at: number;
  readonly families: Readonly<Record<string, LimiterSnapshot>>;
}

const FORMAT = 'traderatio.proxy-state';
const VERSION = 1;

/**
 * The proxy's state file: each family's counts (the 24-hour and 7-day activity, hourly requests and
 * fills, the VIP history: the limiter's snapshot) written atomically (a new file renamed over the
 * old) every `everyMs` and when the proxy stops, and read back at start, so that a restart keeps
 * what the exchange has counted. A file of another format or version, or whose families or
 * accounts are not those of the accounts file, is refused by name and changes nothing.
 */
export class StateFile {
  readonly #path: string;
  readonly #limiters: ReadonlyMap<string, AccountLimiter>;
  readonly #clock: Clock;
  #timer: Repeating | null = null;

  /** `limiters`: the families to keep, by id (the proxy's own per-IP limiter is not one). */
  constructor(path: string, limiters: ReadonlyMap<string, AccountLimiter>, clock: Clock) {
    if (typeof path !== 'string' || path === '') throw new InvalidInputError('`stateFile`', path, 'a file path');
    this.#path = path;
    this.#limiters = limiters;
    this.#clock = clock;
  }

  /**
   * Restores every family from the file, when there is one: all of it is read and checked before
   * any family is restored. Returns the instant it was written, or null when there is no file.
   */
  restore(): number | null {
    let text: string;
    try {
      text = readFileSync(this.#path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new InvalidInputError('the state file', this.#path, `a file the proxy can read (${(e as Error).message})`);
    }
    let state: Partial<ProxyState>;
    try {
      state = JSON.parse(text) as Partial<ProxyState>;
    } catch (e) {
      throw new InvalidInputError('the state file', this.#path, `JSON (${(e as Error).message})`);
    }
    if (typeof state !== 'object' || state === null || state.format !== FORMAT)
      throw new InvalidInputError('the state file `format`', state?.format, `"${FORMAT}" (a file --state wrote)`);
    if (state.version !== VERSION)
      throw new InvalidInputError(
        'the state file `version`',
        state.version,
        `version ${VERSION} (this proxy reads no other)`,
      );
    const families = state.families;
    if (typeof families !== 'object' || families === null)
      throw new InvalidInputError('the state file `families`', families, 'an object of snapshots by family');
    const mine = [...this.#limiters.keys()];
    const theirs = Object.keys(families);
    const missing = mine.filter((f) => !theirs.includes(f));
    const extra = theirs.filter((f) => !mine.includes(f));
    if (missing.length > 0 || extra.length > 0)
      throw new InvalidInputError(
        'the state file `families`',
        theirs.join(', '),
        `the families of the accounts file (${mine.join(', ')})${extra.length > 0 ? `; not in it: ${extra.join(', ')}` : ''}${missing.length > 0 ? `; missing: ${missing.join(', ')}` : ''}`,
      );
    for (const [family, limiter] of this.#limiters) {
      const ids = limiter.snapshot().accounts.map((a) => a.id);
      const saved = families[family]!.accounts?.map((a) => a.id) ?? [];
      if (ids.join('\n') !== saved.join('\n'))
        throw new InvalidInputError(
          `the state file's family \`${family}\` accounts`,
          saved.join(', '),
          `the accounts of the accounts file's family ${family} (${ids.join(', ')})`,
        );
    }
    // A limiter checks all of a snapshot before applying any of it; one family refused puts the
    // families restored before it back as they were.
    const before = new Map([...this.#limiters].map(([f, l]) => [f, l.snapshot()]));
    for (const [family, limiter] of this.#limiters) {
      try {
        limiter.restore(families[family]);
      } catch (e) {
        for (const [f, l] of this.#limiters) l.restore(before.get(f)!);
        throw e instanceof InvalidInputError
          ? new InvalidInputError(`the state file's family \`${family}\``, this.#path, e.message)
          : e;
      }
    }
    return typeof state.at === 'number' ? state.at : null;
  }

  /** Writes the state now, atomically: a new file beside it, renamed over it. */
  save(): void {
    const state: ProxyState = {
      format: FORMAT,
      version: VERSION,
      at: this.#clock.wall(),
      families: Object.fromEntries([...this.#limiters].map(([f, l]) => [f, l.snapshot()])),
    };
    const temp = `${this.#path}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify(state)}\n`);
      renameSync(temp, this.#path);
    } catch (e) {
      rmSync(temp, { force: true });
      throw e;
    }
  }

  /** Saves every `everyMs` milliseconds until `stop`; a failed save goes to `fail`, the next runs as planned. */
  start(everyMs: number, fail: (error: unknown) => void): void {
    this.#timer = every(this.#clock, everyMs, () => {
      try {
        this.save();
      } catch (e) {
        fail(e);
      }
    });
  }

  /** Stops the timer. */
  stop(): void {
    this.#timer?.stop();
    this.#timer = null;
  }
}
