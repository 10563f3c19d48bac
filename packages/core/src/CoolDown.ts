/**
 * Per-origin cool-downs: after a `429` with `Retry-After`, every call to the origin that shares
 * the table holds off until the time asked has passed. Times are monotonic milliseconds.
 *
 * @example
 * ```ts
 * import { CoolDown } from "@effect-http-resilience/core"
 *
 * const table = new CoolDown.CoolDownTable(CoolDown.maxOrigins)
 * ```
 *
 * @since 0.2.0
 */

/**
 * How many origins a table keeps cooling down at most; past it, the one that ends first goes.
 *
 * @since 0.2.0
 * @category defaults
 */
export const maxOrigins = 10_000

/**
 * The longest cool-down, in milliseconds: one day, local or from a shared store, as a breaker's
 * `maxBreakDuration` is at most.
 *
 * @since 0.2.0
 * @category defaults
 */
export const maxMillis = 86_400_000

/**
 * The cool-downs of many origins, each forgotten when it ends.
 *
 * @since 0.2.0
 * @category constructors
 */
export class CoolDownTable {
  // origin -> when its cool-down ends (monotonic ms)
  private readonly ends = new Map<string, number>()

  constructor(private readonly capacity: number = maxOrigins) {}

  /**
   * Starts or lengthens the origin's cool-down to end `millis` (at most {@link maxMillis}) after
   * `nowMillis`; never shortens it.
   */
  start(origin: string, millis: number, nowMillis: number): void {
    if (!(millis > 0)) return
    const end = nowMillis + Math.min(millis, maxMillis)
    const current = this.ends.get(origin)
    if (current !== undefined && current >= end) return
    if (current === undefined && this.ends.size >= this.capacity) this.evict(nowMillis)
    this.ends.set(origin, end)
  }

  /** Milliseconds left of the origin's cool-down; 0 when there is none. */
  left(origin: string, nowMillis: number): number {
    if (this.ends.size === 0) return 0
    const end = this.ends.get(origin)
    if (end === undefined) return 0
    if (end <= nowMillis) {
      this.ends.delete(origin)
      return 0
    }
    return end - nowMillis
  }

  /** Origins held now, ended ones included until they are met. */
  get size(): number {
    return this.ends.size
  }

  private evict(nowMillis: number): void {
    let earliest: string | undefined
    let earliestEnd = Number.POSITIVE_INFINITY
    for (const [origin, end] of this.ends) {
      if (end <= nowMillis) this.ends.delete(origin)
      else if (end < earliestEnd) {
        earliest = origin
        earliestEnd = end
      }
    }
    if (this.ends.size >= this.capacity && earliest !== undefined) this.ends.delete(earliest)
  }
}
