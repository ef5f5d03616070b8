import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { AccountLimiter } from '../account/limiter.js';
import type { LimiterSnapshot } from '../account/persistence.js';
import { type Repeating, every } from '../account/timers.js';
import { InvalidInputError } from '../errors.js';
import type { Clock } from '../schedule/clock.js';
import type { KeptWindow, KeptWindows } from './kept-windows.js';

/** What `--state FILE` holds: each family's limiter snapshot, by family id. */
export interface ProxyState {
  readonly format: 'traderatio.proxy-state';
  readonly version: 1;
  /** When it was written, epoch ms. */
  readonly at: number;
  readonly families: Readonly<Record<string, LimiterSnapshot>>;
  /** What each family's limits counted in their windows, by family and limit name (absent with Redis: it keeps them). */
  readonly windows?: Readonly<Record<string, Readonly<Record<string, KeptWindow>>>>;
}

const FORMAT = 'traderatio.proxy-state';
const VERSION = 1;

/**
 * The proxy's state file: each family's counts (the 24-hour and 7-day activity, hourly requests and
 * fills, the VIP history: the limiter's snapshot; and what each limit counted in its window)
 * written atomically (a new file renamed over the
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
  constructor(
    path: string,
    limiters: ReadonlyMap<string, AccountLimiter>,
    clock: Clock,
    windows: ReadonlyMap<string, KeptWindows> = new Map(),
  ) {
    this.#path = path;
    this.#limiters = limiters;
    this.#clock = clock;
    this.#windows = windows;
  }

  readonly #windows: ReadonlyMap<string, KeptWindows>;

  /**
   * The state the file holds, read and checked for its format and version, or null when there is
   * no file yet. Read before the limiters are made: their limits start from its windows.
   */
  static read(path: string): ProxyState | null {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new InvalidInputError('the state file', path, `a file the proxy can read (${(e as Error).message})`);
    }
    let state: Partial<ProxyState>;
    try {
      state = JSON.parse(text) as Partial<ProxyState>;
    } catch (e) {
      throw new InvalidInputError('the state file', path, `JSON (${(e as Error).message})`);
    }
    if (typeof state !== 'object' || state === null || state.format !== FORMAT)
      throw new InvalidInputError('the state file `format`', state?.format, `"${FORMAT}" (a file --state wrote)`);
    if (state.version !== VERSION)
      throw new InvalidInputError(
        'the state file `version`',
        state.version,
        `version ${VERSION} (this proxy reads no other)`,
      );
    if (typeof state.families !== 'object' || state.families === null)
      throw new InvalidInputError('the state file `families`', state.families, 'an object of snapshots by family');
    if (state.windows !== undefined && (typeof state.windows !== 'object' || state.windows === null))
      throw new InvalidInputError('the state file `windows`', state.windows, 'an object of windows by family');
    return state as ProxyState;
  }

  /**
   * Restores every family from `state` (as {@link StateFile.read} gave it): refused, changing
   * nothing, when its families or accounts are not the limiters'. Returns the instant it was written.
   */
  restore(state: ProxyState): number {
    const families = state.families;
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
    return state.at;
  }

  /** Writes the state now, atomically: a new file beside it, renamed over it. */
  save(): void {
    const state: ProxyState = {
      format: FORMAT,
      version: VERSION,
      at: this.#clock.wall(),
      families: Object.fromEntries([...this.#limiters].map(([f, l]) => [f, l.snapshot()])),
      ...(this.#windows.size === 0
        ? {}
        : { windows: Object.fromEntries([...this.#windows].map(([f, w]) => [f, w.kept()])) }),
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
