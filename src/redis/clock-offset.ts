/**
 * Redis's clock minus this process's, at least: learnt from each answer, which carries Redis's
 * time. Unknown (null) until the first answer.
 */
export class ClockOffset {
  private offset: number | null = null;

  /** Whether an answer has come, so that the offset is known. */
  get known(): boolean {
    return this.offset !== null;
  }

  /** Redis read its clock (`redisNow`) before we received the answer (`receivedAt`). */
  learn(redisNow: number, receivedAt: number): void {
    const offset = redisNow - receivedAt;
    if (this.offset === null || offset > this.offset) this.offset = offset;
  }

  /** An instant on Redis's clock no later than this process's local instant `at` (undefined until the offset is known). */
  redisNoLaterThan(at: number): number | undefined {
    return this.offset === null ? undefined : at + this.offset;
  }

  /**
   * The latest instant on Redis's clock at which a request sent at `sentAt` may still act: past
   * it, the script does nothing. Redis's clock is at least ours plus the offset, so a request that
   * acts did so before `sentAt + timeoutMs` on ours. 0 (none) until the offset is known.
   */
  deadline(sentAt: number, timeoutMs: number): number {
    return this.offset === null ? 0 : Math.floor(sentAt + timeoutMs + this.offset);
  }
}
