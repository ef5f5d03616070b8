import { apiOf } from '../../catalog/exchange-api.js';
import { type FamilyOptions, familyOptionFields, readFamilyOptions } from '../../rules/family.js';
import { GATE } from '../../rules/gate/rulebook.js';
import type { Rulebook } from '../../rules/rulebook.js';
import type { Source } from '../source.js';
import { readLog } from './read-log.js';
import type { ReplayHistory } from './history.js';
import { type Refusal, Replay, type SimulationReport } from './replay.js';

/** Options of a simulation. */
export interface SimulateOptions extends FamilyOptions {
  /**
   * The exchange's rules, and with them its API: the endpoints the log names, its limits, what
   * counts in the ratio, the timing of the tiers and how refusals are told. @default GATE
   */
  readonly rulebook?: Rulebook;
  /** The family's VIP level. @default the rulebook's tiered level (Gate 14, OKX 5) */
  readonly vipLevel?: number;
  /**
   * Requests the scheduler holds waiting at once, as the engine's scheduler would: one more is
   * refused (`queueFull` in the report) and never sent. A non-negative integer, or Infinity to hold
   * every request (memory then grows with the backlog). @default 100000
   */
  readonly maxQueue?: number;
  /** Called with the bytes read so far, at most every 100,000 lines. */
  readonly onProgress?: (bytes: number, lines: number) => void;
  /**
   * What happened before the log (`readReplayHistory`): its accounts start at the tiers the history
   * gives them, and its VIP level is the family's unless `vipLevel` is given. @default none: every account starts at tier 1
   */
  readonly history?: ReplayHistory;
  /** Called with every request the exchange refuses as sent, in the log's order. */
  readonly onRefusal?: (refusal: Refusal) => void;
}

/**
 * Replays a request log (CSV: at, account, method, path, contract, orders, fill_role, fill_volume)
 * twice in one streaming pass, in constant memory: as sent, through the rules as the exchange
 * applies them (which requests would get a 429, and from which limit), and through the scheduler's
 * admission (the delays it adds), checking the scheduled instants against the rules again.
 * The accounts of the log form one family; tiers and the abuse throttle follow the history given
 * and the log's own activity, refreshed at every whole hour (see docs/rules.md#r3 to #r9, #r14).
 */
export async function simulate(source: Source, options: SimulateOptions = {}): Promise<SimulationReport> {
  const rulebook = options.rulebook ?? GATE;
  const family = readFamilyOptions(
    options,
    [...familyOptionFields(rulebook), 'rulebook', 'vipLevel', 'maxQueue', 'onProgress', 'history', 'onRefusal'],
    'the simulation options',
    rulebook,
  );
  const api = apiOf(rulebook);
  const vipLevel = options.vipLevel ?? options.history?.vipLevel ?? rulebook.tieredVipLevel;
  // The scheduler checks `maxQueue`, as it does an engine's.
  const run = new Replay(
    source.name,
    family,
    api,
    vipLevel,
    options.maxQueue,
    options.history ?? null,
    options.onRefusal ?? null,
  );
  return run.report(await readLog(source, api, run, options.onProgress));
}
