import { InvalidInputError } from '../../errors.js';
import { type History, readHistory } from '../../family-files/history.js';
import { formatUtcDay, formatUtcInstant, parseUtcDay, utcDayStart, utcHourStart } from '../../rules/calendar.js';
import { type TimelineAccount, type VipChange, buildTimeline } from '../../rules/timeline/timeline.js';
import { readVipChanges } from '../../rules/timeline/input.js';
import { parseVipLevel } from '../../rules/vip.js';
import { InputFileError } from '../input.js';
import { readJson } from '../read-json.js';
import { pathOf } from '../timeline.js';

/**
 * What happened before a log, for its replay: a history file as `timeline` and the model exchange
 * read it (`activity` by day, `hours` and `spotHours` by hour, `accounts`, `vipLevel`,
 * `vipChanges`). Its accounts, VIP level and changes are read at once; its activity when the log's
 * first instant is known, since a day may be given relative to it (`-1`: the day before).
 */
export interface ReplayHistory {
  /** The file's name, for messages. */
  readonly name: string;
  /** The accounts the file names: its `accounts`, then any other its activity names (accounts that existed before). */
  readonly accounts: readonly TimelineAccount[];
  /** The file's `vipLevel`, or undefined. */
  readonly vipLevel: number | undefined;
  readonly vipChanges: readonly VipChange[];
  /** The activity before `start` (the log's first instant): days before its day, hours before its hour; anything later is refused. */
  read(start: number): History;
  /** Runs `use` on what was read, turning a validation error into one that names the file and the line of the value. */
  located<T>(use: () => T): T;
}

/** Reads a history file (JSON text); every error names the file and the line of the value. */
export function readReplayHistory(name: string, text: string): ReplayHistory {
  const { value, lineOf } = readJson(name, text);
  const located = <T>(read: () => T): T => {
    try {
      return read();
    } catch (e) {
      if (e instanceof InvalidInputError) throw new InputFileError(name, lineOf(pathOf(e)), e.message);
      throw e;
    }
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputFileError(
      name,
      1,
      'Expected an object { "activity", "hours"?, "spotHours"?, "accounts"?, "vipLevel"?, "vipChanges"? }',
    );
  }
  const v = value as {
    accounts?: unknown;
    vipLevel?: unknown;
    vipChanges?: unknown;
    activity?: unknown;
    hours?: unknown;
    spotHours?: unknown;
  };
  // The field names and the activity's shape are checked at once, against the file's own instants.
  located(() => readHistory(value, Date.UTC(2199, 11, 31)));
  if (v.accounts !== undefined && !Array.isArray(v.accounts)) {
    throw new InputFileError(
      name,
      lineOf(['accounts']),
      new InvalidInputError('`accounts`', v.accounts, 'an array of { "id", "role"?, "createdAt"? }').message,
    );
  }
  const given = (v.accounts ?? []) as TimelineAccount[];
  const named = new Set(Array.isArray(given) ? given.map((a) => a?.id) : []);
  const others: TimelineAccount[] = [];
  for (const list of [v.activity, v.hours, v.spotHours]) {
    for (const row of Array.isArray(list) ? (list as { account?: unknown }[]) : []) {
      const id = row?.account;
      if (typeof id === 'string' && !named.has(id)) {
        named.add(id);
        others.push({ id });
      }
    }
  }
  const vipLevel = v.vipLevel === undefined ? undefined : located(() => parseVipLevel(v.vipLevel, '`vipLevel`'));
  const vipChanges = located(() => readVipChanges(v.vipChanges ?? []));
  // The accounts (ids, roles, creation instants), checked as a timeline checks them.
  const accounts = [...given, ...others];
  if (accounts.length > 0) located(() => buildTimeline({ accounts, activity: [] }));
  return {
    name,
    accounts,
    vipLevel,
    vipChanges,
    located,
    read(start: number): History {
      const history = located(() => readHistory(value, start));
      const day = utcDayStart(start);
      history.days.forEach((d, i) => {
        if (parseUtcDay(d.day, `\`activity[${i}].day\``) >= day) {
          throw new InputFileError(
            name,
            lineOf(['activity', i, 'day']),
            `Expected \`activity[${i}].day\` to be a day before the log's first (${formatUtcDay(day)}): the history is what happened before the log, got "${d.day}"`,
          );
        }
      });
      const hour = utcHourStart(start);
      for (const [field, hours] of [
        ['hours', history.hours],
        ['spotHours', history.spotHours ?? []],
      ] as const) {
        hours.forEach((h, i) => {
          if (h.hour >= hour) {
            throw new InputFileError(
              name,
              lineOf([field, i, 'hour']),
              `Expected \`${field}[${i}].hour\` to be an hour before the log's first (${formatUtcInstant(hour)}): the history is what happened before the log, got ${formatUtcInstant(h.hour)}`,
            );
          }
        });
      }
      return history;
    },
  };
}
