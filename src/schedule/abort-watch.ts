/**
 * One `abort` listener per signal, however many tasks wait on it: an engine may give every request
 * the same signal, and Node warns of a leak past ten listeners on one.
 */
export class AbortWatch {
  private readonly watched = new WeakMap<
    AbortSignal,
    { readonly listener: () => void; readonly tasks: Set<() => void> }
  >();

  /** `together` runs the tasks of one abort as one: none may start on the room another leaves. */
  constructor(private readonly together: (run: () => void) => void) {}

  /**
   * Calls `onAbort` when `signal` aborts, until the function returned is called. A signal that
   * cannot be listened to throws here, before anything is kept.
   */
  watch(signal: AbortSignal, onAbort: () => void): () => void {
    let entry = this.watched.get(signal);
    if (entry === undefined) {
      const tasks = new Set<() => void>();
      const listener = (): void => {
        this.watched.delete(signal);
        this.together(() => {
          for (const task of tasks) task();
        });
      };
      signal.addEventListener('abort', listener, { once: true });
      entry = { listener, tasks };
      this.watched.set(signal, entry);
    }
    const { listener, tasks } = entry;
    // Each call's own function: the same `onAbort` given twice is two tasks.
    const task = (): void => onAbort();
    tasks.add(task);
    return () => {
      if (!tasks.delete(task) || tasks.size > 0 || this.watched.get(signal)?.tasks !== tasks) return;
      this.watched.delete(signal);
      signal.removeEventListener('abort', listener);
    };
  }
}
