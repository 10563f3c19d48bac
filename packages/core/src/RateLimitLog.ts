/**
 * The sends of one rate-limit key, each counted from its send until one window after its answer: a
 * send takes one of `capacity` places and gives it back `windowMillis` after its answer (or after
 * it ended without one). A server counts a request when it arrives, after the client sent it and
 * before the client hears the answer, so the `capacity`-th send after another waits until that one
 * was answered and a window passed: no window of the server's, fixed or sliding, holds more than
 * `capacity` arrivals, however late one arrived. The token bucket alone bounds the times the client
 * sends, which the network shifts (a new connection's first request arrives tens of ms late).
 *
 * It holds one number per send of the last `capacity` (8 bytes each), and forgets them all once
 * every one was answered a window ago.
 *
 * @example
 * ```ts
 * import { RateLimitLog } from "@effect-http-resilience/core"
 *
 * const log = new RateLimitLog.RateLimitLog(1, 1000)
 * const sent = log.sent() // at 0
 * log.nextAt(10) // undefined: the one place is held until the answer
 * log.ended(sent, 40)
 * log.nextAt(50) // 1040: a window after the answer
 * ```
 *
 * @since 0.2.0
 */

/**
 * One key's log of its last `capacity` sends.
 *
 * @since 0.2.0
 * @category constructors
 */
export class RateLimitLog {
  // The end times of the sends numbered `first` onwards, from index `start` (a queue without shifts); NaN for
  // a send not ended yet.
  private ends: Array<number> = []
  private start = 0
  private first = 0
  private open = 0

  constructor(
    /** How many sends a window may hold: the limit, plus the burst beyond one. */
    readonly capacity: number,
    readonly windowMillis: number
  ) {}

  /**
   * When the next send may go: `nowMillis` while a place is free, else one window after the answer of the send
   * `capacity` back, or `undefined` while that one is not answered yet.
   */
  nextAt(nowMillis: number): number | undefined {
    if (this.ends.length - this.start < this.capacity) return nowMillis
    const oldest = this.ends[this.start] ?? Number.NaN
    return Number.isNaN(oldest) ? undefined : Math.max(nowMillis, oldest + this.windowMillis)
  }

  /** Counts a send now; its number ends it. */
  sent(): number {
    this.ends.push(Number.NaN)
    this.open++
    if (this.ends.length - this.start > this.capacity) this.dropOldest()
    return this.first + this.ends.length - this.start - 1
  }

  /** The send numbered `sent` was answered, or ended without an answer, at `nowMillis` (its first end counts). */
  ended(sent: number, nowMillis: number): void {
    const index = this.start + sent - this.first
    if (sent < this.first || index >= this.ends.length || !Number.isNaN(this.ends[index])) return
    this.ends[index] = nowMillis
    this.open--
  }

  /** Whether every send was answered a window ago or more: the log says nothing then, and may be dropped. */
  isIdle(nowMillis: number): boolean {
    if (this.open > 0) return false
    for (let index = this.start; index < this.ends.length; index++) {
      if ((this.ends[index] ?? 0) + this.windowMillis > nowMillis) return false
    }
    return true
  }

  private dropOldest(): void {
    // Not reached unanswered (the line waits for the answer), but a dropped open send must not keep it from idling.
    if (Number.isNaN(this.ends[this.start])) this.open--
    this.start++
    this.first++
    if (this.start > 64 && this.start * 2 > this.ends.length) {
      this.ends = this.ends.slice(this.start)
      this.start = 0
    }
  }
}
