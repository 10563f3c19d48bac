/**
 * The fleet's send times one process leased (issue #43): one script call takes a batch of the fleet
 * bucket's next send times (it moves the shared GCRA on by that many emission intervals), and the
 * process's attempts spend them, each at its time, with no round trip of their own. Times, not free
 * tokens: an attempt sends at the time the fleet gave, so the fleet's bound holds as it does per
 * take; a time that passed unused is lost (capacity, never overshoot). The batch follows the demand:
 * 1 at first, doubled once a lease was spent, halved once a time expired, and at least the attempts
 * that waited for the last one (one lease at a time per bucket: the others wait for it, so that the
 * process spends the fleet's times in their order). Also Redis's clock read on the process's.
 *
 * @example
 * ```ts
 * import { RateLimitLease } from "@effect-http-resilience/core"
 *
 * const leases = new RateLimitLease.Leases()
 * leases.begin("bucket", 10) // 1: the first lease asks for one time
 * leases.end("bucket", [200, 300], undefined, 0) // the script's times after the first, on this clock
 * leases.take("bucket", 150, 150, 1000) // { _tag: "Slot", at: 200 }
 * ```
 *
 * @since 0.2.0
 */
import * as SharedStore from "./SharedStore.js"

interface Lease {
  /** Send times leased and not handed out, ascending, on this process's monotonic clock (ms). */
  readonly slots: Array<number>
  /** How many times the next lease asks for. */
  batch: number
  /** Whether a time expired unused since the last lease. */
  expired: boolean
  /** How many attempts waited for the last lease: the demand it did not cover. */
  waited: number
  /** Before it, the fleet's bucket has nothing for this process: its last time leased, or a take refused. */
  spentUntil: number
}

/**
 * What the leased times say of a take from `from` to `latest` (ms, monotonic).
 *
 * @since 0.2.0
 * @category models
 */
export type Found =
  | { readonly _tag: "Slot"; readonly at: number }
  | { readonly _tag: "Spent"; readonly at: number }
  | { readonly _tag: "None" }

// As the memory store's tables: at most 10,000 keys, the one used longest ago forgotten first.
const maxKeys = 10_000

/**
 * The leases of one store, per fleet bucket.
 *
 * @since 0.2.0
 * @category constructors
 */
export class Leases {
  private readonly leases = new Map<string, Lease>()

  /**
   * The first leased time from `from` to `latest`, handed out; or, when the fleet has nothing that
   * soon (a leased time later, or a take refused until then), when it might: not asked again. Times
   * before `now` expire.
   */
  take(bucket: string, now: number, from: number, latest: number): Found {
    const lease = this.leases.get(bucket)
    if (lease === undefined) return { _tag: "None" }
    const { slots } = lease
    let expired = 0
    while (expired < slots.length && (slots[expired] ?? 0) < now) expired++
    if (expired > 0) {
      slots.splice(0, expired)
      lease.expired = true
    }
    const index = slots.findIndex((at) => at >= from)
    const at = index === -1 ? undefined : slots[index]
    if (at !== undefined && at <= latest) {
      slots.splice(index, 1)
      return { _tag: "Slot", at }
    }
    if (at !== undefined) return { _tag: "Spent", at }
    return lease.spentUntil > latest ? { _tag: "Spent", at: lease.spentUntil } : { _tag: "None" }
  }

  /**
   * How many times to lease now, at most `most`: the batch (a lease spent whole asks for twice as
   * many, one whose times expired for half), and at least one for each attempt that waited for the last.
   */
  begin(bucket: string, most: number): number {
    const lease = this.leases.get(bucket)
    if (lease === undefined) {
      this.keep(bucket, { slots: [], batch: 1, expired: false, waited: 0, spentUntil: 0 })
      return 1
    }
    const next = lease.expired ? lease.batch / 2 : lease.slots.length === 0 ? lease.batch * 2 : lease.batch
    const cap = Math.min(most, SharedStore.maxRateLimitLease)
    lease.batch = Math.max(1, Math.min(Math.floor(next), cap))
    lease.expired = false
    return Math.max(lease.batch, Math.min(lease.waited + 1, cap))
  }

  /**
   * A lease ended: its times after the first (ms, monotonic), the fleet's refusal until
   * `refusedUntil`, and how many attempts waited for it.
   */
  end(bucket: string, later: ReadonlyArray<number>, refusedUntil: number | undefined, waited: number): void {
    const lease = this.leases.get(bucket)
    if (lease === undefined) return
    lease.waited = waited
    if (refusedUntil !== undefined) lease.spentUntil = Math.max(lease.spentUntil, refusedUntil)
    if (later.length === 0) return
    lease.slots.push(...later)
    lease.slots.sort((a, b) => a - b)
    lease.spentUntil = Math.max(lease.spentUntil, lease.slots[lease.slots.length - 1] ?? 0)
  }

  private keep(bucket: string, lease: Lease): void {
    if (this.leases.size >= maxKeys) {
      const oldest = this.leases.keys().next()
      if (oldest.done !== true) this.leases.delete(oldest.value)
    }
    this.leases.set(bucket, lease)
  }
}

// A fresh reading of the offset at least this often: the clocks drift apart, and Redis's may be set.
const clockRefreshMillis = 10_000

/**
 * Redis's clock (the script's `TIME`, ms) read on this process's monotonic clock: the offset is the
 * least seen of (this process's time at an answer, minus Redis's time in it), which is the true one
 * plus the fastest answer's way back, read afresh every 10 s. One offset for every answer, not each
 * answer's own arrival: the times of two leases then keep the fleet's spacing, whatever each
 * answer's delay; and none is earlier on this clock than Redis gave it.
 *
 * @since 0.2.0
 * @category constructors
 */
export class RedisClock {
  private offset: number | undefined
  private since = 0

  observe(localMillis: number, redisMillis: number): void {
    const sample = localMillis - redisMillis
    if (this.offset === undefined || sample < this.offset || localMillis - this.since > clockRefreshMillis) {
      this.offset = sample
      this.since = localMillis
    }
  }

  toLocal(redisMillis: number): number {
    return redisMillis + (this.offset ?? 0)
  }
}
