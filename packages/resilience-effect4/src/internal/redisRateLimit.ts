// @generated from templates/src/internal/redisRateLimit.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The rate limit shared across a fleet (issue #34): each bucket lives in Redis, taken (a batch of
// its send times at once, leased: core RateLimitLease, issue #43) and
// refunded by one script on Redis's clock (SharedStore.rateLimitScript), so that three processes
// with a limit of 10 a second send 10 a second together. A block learnt from a server's headers
// is kept and told as a cool-down is: this process's memory first, then written to the prefix's
// set of blocks and published, applied by every other process to its own memory, and read by a
// process that (re)joins. Every attempt this process sends is counted in its own bucket too (in
// memory, at the time the fleet's grants it), so that when Redis does not answer in time, or fails,
// and a take is this process's alone (the store's usual degraded path), that bucket already holds
// what this process sent, and when Redis is back (its bucket full again) what it sent meanwhile
// still counts: a process never exceeds the bound alone (issue #43). What Redis answers is
// checked, and a bucket no process could have written starts afresh and is counted. The budget
// learnt from a remaining count above 0 is this process's alone (docs/limits.md): it counts this
// process's attempts in flight, which the server's count of the whole fleet does not match.
import * as CoolDown from "@effect-http-resilience/core/CoolDown"
import { Leases, RedisClock } from "@effect-http-resilience/core/RateLimitLease"
import * as SharedStore from "@effect-http-resilience/core/SharedStore"
import type * as TokenBucket from "@effect-http-resilience/core/TokenBucket"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type * as ResilienceStore from "../ResilienceStore.js"
import type * as rateLimitMemory from "./rateLimit.js"
import type { Proof } from "./redisStore.js"
import { monotonicMillis } from "./retryBudgetService.js"

type Operations = ResilienceStore.ResilienceStore.RateLimitOperations

/** What the store lends its shared rate limit. @internal */
export interface Options {
  readonly prefix: string
  /** Whether the store is degraded now: a take then asks only this process's memory. */
  readonly degraded: () => boolean
  /** Runs a script by its SHA, loading it when Redis has lost it. */
  readonly evalScript: (script: string, key: string, args: ReadonlyArray<string>) => Effect.Effect<unknown, unknown>
  /**
   * A round trip bounded by the store's timeout, that degrades the store when Redis does not
   * answer; what Redis refused, tried again by each probe as `proof` says.
   */
  readonly roundTrip: <A>(
    request: SharedStore.StoreRequest,
    work: Effect.Effect<A, unknown>,
    proof?: Proof
  ) => Effect.Effect<{ readonly value: A } | undefined>
  /**
   * Listens on a channel as the store does, for the scope's life, running `then` after each
   * subscription: the subscription holds once `then` has gone through.
   */
  readonly listen: (
    channel: string,
    onMessage: (message: string) => Effect.Effect<void>,
    then: Effect.Effect<void, unknown>
  ) => Effect.Effect<void, never, Scope.Scope>
  /** Counts what was read and not applied as read: a bucket, a block message or entry. */
  readonly rejected: (kind: "rate_limit_bucket" | "rate_limit_block", count?: number) => Effect.Effect<void>
  /**
   * The memory store's rate limit: this process's blocks, and its own buckets, which count every attempt
   * it sends (granted by the fleet's bucket or, while Redis is away, by its own).
   */
  readonly local: rateLimitMemory.MemoryOperations
  /** Runs a write in the background; a store that closes waits for it (at most its timeout). */
  readonly inBackground: (publish: Effect.Effect<unknown>) => Effect.Effect<void>
}

// A block another process published, or one in force when this process (re)joined; one longer
// than a day is cut to a day, as a local one is, and counted.
const applyBlock = (options: Options, key: string, millis: number): Effect.Effect<void> =>
  Effect.andThen(
    millis > CoolDown.maxMillis ? options.rejected("rate_limit_block") : Effect.void,
    options.local.rateLimitBlock(key, millis)
  )

const onBlockMessage = (options: Options, message: string): Effect.Effect<void> => {
  const block = SharedStore.readCoolDownMessage(message)
  return block === undefined ? options.rejected("rate_limit_block") : applyBlock(options, block.origin, block.millis)
}

const readBlocks = (options: Options, blocks: string): Effect.Effect<void, unknown> =>
  Effect.flatMap(options.evalScript(SharedStore.readCoolDownsScript, blocks, []), (answer) => {
    const read = SharedStore.readCoolDownsAnswer(answer)
    const unreadable = (Array.isArray(answer) ? Math.ceil(answer.length / 2) : 1) - read.length
    return Effect.andThen(
      unreadable > 0 ? options.rejected("rate_limit_block", unreadable) : Effect.void,
      Effect.forEach(read, ({ origin, millis }) => applyBlock(options, origin, millis), { discard: true })
    )
  })

// An attempt the fleet's bucket refuses must not count, and one the local bucket takes instead
// counts there again: the first count ends, as an attempt never sent.
const uncounted = (local: Operations, key: string, budget: number | undefined): Effect.Effect<void> =>
  budget === undefined ? Effect.void : local.rateLimitEnded(key, budget, { _tag: "Unanswered", sent: false })

// Writes a block to the fleet; one Redis did not take (the write failed or timed out) is kept with
// its end, on the monotonic clock, and written again by `rewriteBlocks` while it lasts (told
// again: the first write may have stopped before its PUBLISH). Bounded as the blocks themselves
// are. One Redis refused is written again by each probe, for 1 ms once it has ended, which holds
// no call back: what proves that Redis takes the script again.
const blockWriter = (options: Options, keys: ReturnType<typeof SharedStore.rateLimitKeysFor>) => {
  const unwritten = new Map<string, number>()
  const write = (key: string, millis: number, again: boolean) =>
    options.evalScript(SharedStore.coolDownScript, keys.blocks, [
      String(Math.ceil(Math.min(millis, CoolDown.maxMillis))),
      keys.blockChannel,
      key,
      again ? "1" : "0"
    ])
  const writeBlock = (key: string, millis: number, again = false): Effect.Effect<void> =>
    Effect.clockWith((clock) => {
      const endsAt = monotonicMillis(clock) + millis
      const proof: Proof = {
        name: `rate-limit block ${key}`,
        again: Effect.clockWith((later) => write(key, Math.max(endsAt - monotonicMillis(later), 1), true))
      }
      return Effect.flatMap(
        options.roundTrip(running(SharedStore.coolDownScript), write(key, millis, again), proof),
        (reply) =>
          reply !== undefined || unwritten.size >= CoolDown.maxOrigins
            ? Effect.void
            : Effect.sync(() => {
                unwritten.set(key, endsAt)
              })
      )
    })
  const rewriteBlocks = Effect.clockWith((clock) =>
    Effect.suspend(() => {
      const now = monotonicMillis(clock)
      const blocks = [...unwritten].filter(([, endsAt]) => endsAt > now)
      unwritten.clear()
      return Effect.forEach(blocks, ([key, endsAt]) => writeBlock(key, endsAt - now, true), { discard: true })
    })
  )
  return { writeBlock, rewriteBlocks }
}

const running = (script: string): SharedStore.StoreRequest => ({ command: "EVALSHA", script })

// The bucket's script, `take`, `refund` or `peek`; one Redis refused is peeked at by each probe
// (its state written as it stands, nothing taken), until Redis takes the script again.
const bucketScript = (
  options: Options,
  bucket: string,
  operation: "take" | "refund",
  limit: TokenBucket.Limit,
  more: readonly [maxWaitOrLeft: number, offset: number, count?: number]
) => {
  const settings = [String(limit.limit), String(limit.windowMillis), String(limit.burst)]
  return options.roundTrip(
    running(SharedStore.rateLimitScript),
    options.evalScript(SharedStore.rateLimitScript, bucket, [operation, ...settings, ...more.map(String)]),
    {
      name: `rate-limit bucket ${bucket}`,
      again: options.evalScript(SharedStore.rateLimitScript, bucket, ["peek", ...settings, "0", "0"])
    }
  )
}

// A send time on this process's monotonic clock (ms): granted, or when one could be (refused).
type Slot = { readonly granted: boolean; readonly atMillis: number }

// One lease in flight per bucket; the attempts that find nothing in hand meanwhile wait for it.
type Pending = { readonly done: Deferred.Deferred<void>; waiting: number }

type Lease = {
  readonly leases: Leases
  readonly clock: RedisClock
  readonly pending: Map<string, Pending>
  readonly count: number
}

// The fleet's bucket, from `fromMillis` on and by `latestMillis`, `count` send times at once (a
// lease): its answer (`undefined` when Redis did not give one: this process's bucket decides alone),
// an unreadable one counted. Redis's times are read on this process's clock (`RedisClock`), so that
// times of different answers keep the fleet's spacing; those after the first are kept in `leases`.
const takeFleet = (
  options: Options,
  lease: Lease,
  bucket: string,
  limit: TokenBucket.Limit,
  fromMillis: number,
  latestMillis: number
): Effect.Effect<Slot | undefined> =>
  Effect.clockWith((clock) => {
    const now = monotonicMillis(clock)
    const offset = Math.max(0, fromMillis - now)
    // A millisecond that passed since the caller's `latest` was set is not a wait it refused.
    const maxWait = Math.min(Math.max(0, latestMillis - now - offset), SharedStore.maxRateLimitWaitMillis)
    const { count } = lease
    let later: ReadonlyArray<number> = []
    let refusedUntil: number | undefined
    const taken = Effect.flatMap(bucketScript(options, bucket, "take", limit, [maxWait, offset, count]), (reply) => {
      const answer = reply === undefined ? undefined : SharedStore.readRateLimitAnswer(reply.value)
      if (answer === undefined)
        return Effect.as(reply === undefined ? Effect.void : options.rejected("rate_limit_bucket"), undefined)
      lease.clock.observe(monotonicMillis(clock), answer.nowMillis)
      const base = lease.clock.toLocal(answer.nowMillis + offset)
      later = answer.laterMillis.map((wait) => base + wait)
      if (!answer.granted) refusedUntil = base + answer.waitMillis
      return Effect.as(answer.rejected ? options.rejected("rate_limit_bucket") : Effect.void, {
        granted: answer.granted,
        atMillis: base + answer.waitMillis
      })
    })
    // Only a lease (the first round's take, `count` set) brings times to keep.
    const kept = Effect.sync(() =>
      lease.leases.end(bucket, later, refusedUntil, lease.pending.get(bucket)?.waiting ?? 0)
    )
    return count === 0 ? taken : Effect.ensuring(taken, kept)
  })

// How often the two buckets may disagree on a time before the take gives up: each round moves it later.
const maxRounds = 3

// Gives back the fleet's token due at `atMillis`.
const giveBack = (options: Options, bucket: string, limit: TokenBucket.Limit, atMillis: number) =>
  Effect.clockWith((clock) =>
    Effect.asVoid(bucketScript(options, bucket, "refund", limit, [Math.max(0, atMillis - monotonicMillis(clock)), 0]))
  )

// Gives back this process's own token due at `atMillis`.
const giveBackOwn = (options: Options, key: string, limit: TokenBucket.Limit, atMillis: number) =>
  Effect.clockWith((clock) => options.local.rateLimitRefund(key, limit, Math.max(0, atMillis - monotonicMillis(clock))))

// The fleet's bucket and this process's agree on one send time, the later of theirs: the fleet's is taken
// first (it binds while the fleet is busy), then this process's from then on. When this process's asks for
// later (it counted attempts the fleet never saw, sent while Redis was away), the fleet's token is given
// back and taken again from then, and so on: each bucket counts the attempt when it is sent, so neither
// ever sees more than its bound in a window. Redis away: this process's bucket alone.
const agree = (
  options: Options,
  lease: Lease,
  bucket: string,
  key: string,
  limit: TokenBucket.Limit,
  fromMillis: number,
  latestMillis: number,
  round = 1
): Effect.Effect<Slot> => {
  const own = (at: number) => options.local.takeOwnAt(key, limit, at, latestMillis)
  return Effect.flatMap(takeFleet(options, lease, bucket, limit, fromMillis, latestMillis), (fleet) => {
    if (fleet === undefined) return own(fromMillis)
    if (!fleet.granted) return Effect.succeed(fleet)
    return Effect.flatMap(own(fleet.atMillis), (mine) => {
      if (mine.granted && mine.agreed) return Effect.succeed(mine)
      const unused = mine.granted ? giveBackOwn(options, key, limit, mine.atMillis) : Effect.void
      const given = Effect.andThen(giveBack(options, bucket, limit, fleet.atMillis), unused)
      if (!mine.granted || round >= maxRounds) return Effect.as(given, { granted: false, atMillis: mine.atMillis })
      const again = { ...lease, count: 0 }
      return Effect.andThen(given, agree(options, again, bucket, key, limit, mine.atMillis, latestMillis, round + 1))
    })
  })
}

// A take from the send times this process leased, each counted in its own bucket at its time; when
// none is there, from the fleet's bucket (a lease of the batch's size, or of one while another is in
// flight), unless the fleet has nothing by the take's latest time. When this process's bucket asks
// for later than a leased time (it counted attempts sent while Redis was away), that time is lost and
// the next one from then is taken, or the fleet is asked from then.
const takeLeased = (
  options: Options,
  lease: Omit<Lease, "count">,
  bucket: string,
  key: string,
  limit: TokenBucket.Limit,
  fromMillis: number,
  latestMillis: number,
  round = 1
): Effect.Effect<Slot> =>
  Effect.clockWith((clock) =>
    Effect.suspend(() => {
      // Degraded (an attempt that waited for a lease may wake to it): this process's bucket alone.
      if (options.degraded()) return options.local.takeOwnAt(key, limit, fromMillis, latestMillis)
      const { leases } = lease
      const found = leases.take(bucket, monotonicMillis(clock), fromMillis, latestMillis)
      if (found._tag === "Spent") return Effect.succeed({ granted: false, atMillis: found.at })
      if (found._tag === "None") {
        const again = takeLeased(options, lease, bucket, key, limit, fromMillis, latestMillis, round)
        const pending = lease.pending.get(bucket)
        if (pending !== undefined) {
          pending.waiting++
          return Effect.andThen(Deferred.await(pending.done), again)
        }
        return Effect.flatMap(Deferred.make<void>(), (done) => {
          lease.pending.set(bucket, { done, waiting: 0 })
          const count = leases.begin(bucket, limit.limit)
          const leased = agree(options, { ...lease, count }, bucket, key, limit, fromMillis, latestMillis)
          const over = Effect.andThen(
            Effect.sync(() => lease.pending.delete(bucket)),
            Deferred.succeed(done, undefined)
          )
          return Effect.ensuring(leased, over)
        })
      }
      return Effect.flatMap(options.local.takeOwnAt(key, limit, found.at, latestMillis), (mine) => {
        if (!mine.granted || mine.agreed) return Effect.succeed(mine)
        const unused = giveBackOwn(options, key, limit, mine.atMillis)
        return Effect.andThen(
          unused,
          round >= maxRounds
            ? agree(options, { ...lease, count: 0 }, bucket, key, limit, mine.atMillis, latestMillis)
            : takeLeased(options, lease, bucket, key, limit, mine.atMillis, latestMillis, round + 1)
        )
      })
    })
  )

// A take from the fleet's bucket and this process's, once this process's memory (its blocks, its
// budget) granted it.
const takeShared = (
  options: Options,
  lease: Omit<Lease, "count">,
  keys: ReturnType<typeof SharedStore.rateLimitKeysFor>,
  key: string,
  limit: TokenBucket.Limit,
  maxWaitMillis: number,
  counted: boolean | undefined,
  blocked: { readonly waitMillis: number; readonly budget?: number | undefined }
) => {
  const { local } = options
  const unsent = uncounted(local, key, blocked.budget)
  if (options.degraded()) return Effect.andThen(unsent, local.rateLimitTake(key, limit, maxWaitMillis, counted))
  return Effect.clockWith((clock) => {
    const now = monotonicMillis(clock)
    const bucket = keys.bucket(limit, key)
    return Effect.flatMap(
      takeLeased(options, lease, bucket, key, limit, now + blocked.waitMillis, now + maxWaitMillis),
      (taken): Effect.Effect<ResilienceStore.ResilienceStore.RateLimitTake> =>
        Effect.clockWith((later) =>
          Effect.as(taken.granted ? Effect.void : unsent, {
            granted: taken.granted,
            waitMillis: Math.max(0, taken.atMillis - monotonicMillis(later)),
            budget: blocked.budget
          })
        )
    )
  })
}

/**
 * The store's rate limit on Redis, for the scope's life: it listens for blocks, and reads those in
 * force, before it is ready. A block Redis did not take (the write failed or timed out) is written
 * again after each subscription, once Redis answers, while it lasts: as a cool-down is.
 *
 * @internal
 */
export const make = (options: Options): Effect.Effect<Operations, never, Scope.Scope> =>
  Effect.gen(function* () {
    const keys = SharedStore.rateLimitKeysFor(options.prefix)
    const { writeBlock, rewriteBlocks } = blockWriter(options, keys)
    // The read must go through for the subscription to hold: the blocks in force are what a
    // process that was not listening missed.
    yield* options.listen(
      keys.blockChannel,
      (message) => onBlockMessage(options, message),
      Effect.andThen(rewriteBlocks, readBlocks(options, keys.blocks))
    )
    const { local } = options
    const lease = { leases: new Leases(), clock: new RedisClock(), pending: new Map<string, Pending>() }
    return {
      rateLimitTake: (key, limit, maxWaitMillis, counted) =>
        // A block in force is this process's to know (every block reaches its memory), and so is the
        // budget: the attempt counts there first, and stops counting if the bucket refuses it.
        Effect.flatMap(local.rateLimitTake(key, undefined, maxWaitMillis, counted), (blocked) =>
          !blocked.granted || limit === undefined
            ? Effect.succeed(blocked)
            : takeShared(options, lease, keys, key, limit, maxWaitMillis, counted, blocked)
        ),
      // Both buckets counted the token: both give it back.
      rateLimitRefund: (key, limit, leftMillis) =>
        Effect.andThen(
          local.rateLimitRefund(key, limit, leftMillis),
          options.degraded()
            ? Effect.void
            : Effect.asVoid(bucketScript(options, keys.bucket(limit, key), "refund", limit, [leftMillis, 0]))
        ),
      // This process's memory at once; the fleet in the background, as a cool-down is told.
      rateLimitBlock: (key, millis) =>
        Effect.andThen(local.rateLimitBlock(key, millis), options.inBackground(writeBlock(key, millis))),
      rateLimitEnded: local.rateLimitEnded
    } satisfies Operations
  })
