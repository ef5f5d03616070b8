import { NoReplyError } from '../errors.js';
import type { Clock } from '../schedule/clock.js';
import type { Encoded } from './calls.js';
import { type RedisScripting, Script } from './client.js';
import {
  ACQUIRE,
  ACQUIRE_MANY,
  ARRIVALS,
  COUNTS,
  FEEDBACK,
  HELLO,
  LATE,
  PROBE,
  RELEASE,
  RESTORE,
  UPDATE,
} from './scripts.js';

/** The scripts a Redis store runs, by name (the name a {@link NoReplyError} reports). */
export const scripts = {
  acquire: new Script(ACQUIRE),
  acquireMany: new Script(ACQUIRE_MANY),
  arrivals: new Script(ARRIVALS),
  release: new Script(RELEASE),
  late: new Script(LATE),
  feedback: new Script(FEEDBACK),
  update: new Script(UPDATE),
  hello: new Script(HELLO),
  probe: new Script(PROBE),
  counts: new Script(COUNTS),
  restore: new Script(RESTORE),
} as const;

/** The name of one of the store's {@link scripts}. */
export type ScriptName = keyof typeof scripts;

/** What an entry of a limit's count in Redis stands for: a grant, permits sent late, a hold the exchange asked for, what a local share sent. */
export type EntryKind = 'grant' | 'late' | 'hold' | 'share';

const ENTRY_MARK: Readonly<Record<EntryKind, string>> = { grant: 'g', late: 't', hold: 'h', share: 'r' };

/**
 * The id of process `process`'s entry number `seq`, of `kind`: the kind's letter, then the number
 * in base 36. No two kinds meet: a grant whose id were its number alone could read as another
 * kind's (grant number 1,046 is "t2" in base 36, the id of late entry number 2), and Redis, finding that entry,
 * would answer the grant as made already and count nothing for it.
 */
export function entryId(process: string, kind: EntryKind, seq: number): string {
  return `${process}.${ENTRY_MARK[kind]}${seq.toString(36)}`;
}

/**
 * The keys of one budget: `{prefix}:...`, all in one cluster slot. `epoch` says which data Redis
 * holds (a restart changes it), `procs` when each process was last heard of (local shares),
 * `alive` when each last granted, `lost` who has still to add back what Redis lost; each limit has its
 * settings (`m`), its log of grants (`l`), the processes waiting on it (`q`) and its grants
 * confirmed by their arrivals (`a`).
 */
export class RedisKeys {
  readonly epoch: string;
  readonly procs: string;
  /** Every process that granted on the budget lately, by when it last said so (see lua/restore.lua). */
  readonly alive: string;
  /** After Redis lost grants: the processes alive then that have not added theirs back yet. */
  readonly lost: string;

  constructor(private readonly prefix: string) {
    this.epoch = `{${prefix}}:epoch`;
    this.procs = `{${prefix}}:procs`;
    this.alive = `{${prefix}}:alive`;
    this.lost = `{${prefix}}:lost`;
  }

  meta(name: string): string {
    return `{${this.prefix}}:m:${name}`;
  }

  log(name: string): string {
    return `{${this.prefix}}:l:${name}`;
  }

  wait(name: string): string {
    return `{${this.prefix}}:q:${name}`;
  }

  /** The grants of a limit confirmed by their arrivals at the exchange (see lua/confirm.lua). */
  arrived(name: string): string {
    return `{${this.prefix}}:a:${name}`;
  }

  /** A key of an account's shared counts (`seq`, `once:<id>`, a day's or an hour's counts). */
  counts(name: string): string {
    return `{${this.prefix}}:c:${name}`;
  }
}

/**
 * Runs a script, failing with a {@link NoReplyError} (its `requestId` the script's name) when no
 * answer comes within `timeoutMs` on `clock`: the script may still have run.
 */
export function runWithin(
  redis: RedisScripting,
  clock: Clock,
  timeoutMs: number,
  name: ScriptName,
  { keys, args }: Encoded,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = clock.setTimer(
      () => reject(new NoReplyError(name, `Redis did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    scripts[name].run(redis, keys, args).then(
      (value) => {
        clock.clearTimer(timer);
        resolve(value);
      },
      (error: unknown) => {
        clock.clearTimer(timer);
        reject(error);
      },
    );
  });
}
