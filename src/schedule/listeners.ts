import { InvalidInputError } from '../errors.js';

/** Where an error reported to listeners came from. */
export type ErrorSource = 'listener' | 'persist' | 'refresh' | 'reconcile' | 'fills';

/**
 * The listeners of a scheduler, a limiter or a store, told each on its own: one that throws
 * neither stops the others nor reaches the machinery that emitted the event (a pass of the queue,
 * a refresh, a Redis answer). Its error is reported once every listener has heard, as the event
 * `errorEvent` makes (an `error` event, source `listener`). An error thrown while an `error`
 * event is handled, or an error with no listener to take it, becomes a process warning
 * (`process.emitWarning`, type `TraderatioWarning`), so that none is lost silently and none
 * loops.
 */
export class Listeners<E extends { readonly type: string }> {
  private readonly set = new Set<(event: E) => void>();

  constructor(private readonly errorEvent: (source: ErrorSource, error: unknown) => E) {}

  /** How many listen. */
  get size(): number {
    return this.set.size;
  }

  /** Adds a listener, checked to be a function; returns a function that removes it. */
  add(listener: unknown): () => void {
    if (typeof listener !== 'function') {
      throw new InvalidInputError(
        'the listener',
        listener,
        'a function (event) => void, given every event (it filters on `event.type`)',
      );
    }
    const l = listener as (event: E) => void;
    this.set.add(l);
    return () => this.set.delete(l);
  }

  /** Tells every listener of `event`; reports what they threw once all have heard. */
  emit(event: E): void {
    let thrown: unknown[] | undefined;
    for (const listener of this.set) {
      try {
        listener(event);
      } catch (error) {
        (thrown ??= []).push(error);
      }
    }
    if (thrown === undefined) return;
    for (const error of thrown) {
      if (event.type === 'error') warn(error);
      else this.report('listener', error);
    }
  }

  /** Reports an error outside the emitter's own work as an `error` event, or a warning when nobody listens. */
  report(source: ErrorSource, error: unknown): void {
    if (this.set.size === 0) warn(error);
    else this.emit(this.errorEvent(source, error));
  }
}

/** Hands an error nobody took to the process as a warning (Node prints it once on standard error). */
function warn(error: unknown): void {
  const p = (globalThis as { process?: { emitWarning?: (warning: string | Error, type?: string) => void } }).process;
  p?.emitWarning?.(error instanceof Error ? error : String(error), 'TraderatioWarning');
}
