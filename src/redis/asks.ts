import {
  type AcquireCall,
  type AcquireReply,
  decodeAcquire,
  decodeAcquireMany,
  type Encoded,
  encodeAcquire,
  encodeAcquireMany,
  type GrantArrival,
} from './calls.js';
import type { RedisKeys, ScriptName } from './protocol.js';
import type { SharedLimit } from './shared-limit.js';

/** A request for permits made and not sent yet, with what its answer is read against. */
export interface Asking {
  readonly linked: readonly SharedLimit[];
  readonly id: string;
  readonly weight: number;
  /** The store's clock when it was made, before it was sent: its lease is measured from then. */
  readonly sentAt: number;
  readonly changes: readonly number[];
  readonly current: readonly boolean[];
  /** The grants it confirms, per limit: sent again with the next request should it fail. */
  readonly confirmed: readonly (readonly GrantArrival[])[];
  readonly call: AcquireCall;
}

/**
 * The requests for permits a store makes in the same moment, handed to `send` together once the
 * work at hand is done (`process.nextTick`): over many limits of a budget, one call carries
 * several (see lua/acquire-many.lua).
 */
export class AskBatch {
  #asks: Asking[] = [];

  constructor(private readonly send: (asks: readonly Asking[]) => void) {}

  add(ask: Asking): void {
    if (this.#asks.length === 0) process.nextTick(() => this.#flush());
    this.#asks.push(ask);
  }

  #flush(): void {
    const asks = this.#asks;
    this.#asks = [];
    if (asks.length > 0) this.send(asks);
  }
}

/**
 * Runs `asks` as one script call through `call`, one alone as ACQUIRE, several as ACQUIRE_MANY,
 * and resolves to each one's reply, in order.
 */
export function acquireAll(
  call: (script: ScriptName, encoded: Encoded) => Promise<unknown>,
  keys: RedisKeys,
  asks: readonly Asking[],
): Promise<AcquireReply[]> {
  if (asks.length === 1)
    return call('acquire', encodeAcquire(keys, asks[0]!.call)).then((reply) => [
      decodeAcquire(reply as unknown[], asks[0]!.linked.length),
    ]);
  return call(
    'acquireMany',
    encodeAcquireMany(
      keys,
      asks.map((a) => a.call),
    ),
  ).then((reply) =>
    decodeAcquireMany(
      reply as unknown[],
      asks.map((a) => a.linked.length),
    ),
  );
}
