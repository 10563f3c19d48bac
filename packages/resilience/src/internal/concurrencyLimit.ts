// @generated from templates/src/internal/concurrencyLimit.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The per-origin concurrency limit (bulkhead), fixed or adaptive: the store keeps one table of
// origins per `concurrencyLimit` setting; `withPermit` runs one attempt under a permit of its origin.
// The accounting and the algorithms are the core's `ConcurrencyLimit`; this parks and wakes waiters.
import * as ConcurrencyLimitCore from "@effect-http-resilience/core/ConcurrencyLimit"
import { idleTimeToLiveMillis, OriginTable } from "@effect-http-resilience/core/Origin"
import { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as ConcurrencyLimit from "../ConcurrencyLimit.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import type { Send } from "./attemptLoop.js"
import { type Attempt, connectionError } from "./classify.js"
import { latencyWindows } from "./latencyWindows.js"
import * as line from "./line.js"
import * as metrics from "./metrics.js"
import { monotonicMillis } from "./retryBudgetService.js"

type Waiter = Deferred.Deferred<void>
type Limits = ResilienceStore.ResilienceStore.ConcurrencyLimits
type OriginLimit = ResilienceStore.ResilienceStore.OriginConcurrency

// Why an attempt was refused, unsent: the origin's permits were all taken and its queue full.
// The cause of the `ConnectionError` "ConcurrencyLimited" it fails with.
class ConcurrencyLimitReached extends Data.TaggedError("ConcurrencyLimitReached")<{
  readonly limit: number
  readonly queue: number
}> {
  override get message(): string {
    return `the concurrency limit for this origin (${this.limit} in flight) and its queue (${this.queue} waiting) are full`
  }
}

const originLimit = (settings: ConcurrencyLimitCore.Resolved): OriginLimit => {
  if (settings._tag === "Fixed") {
    return { bulkhead: ConcurrencyLimitCore.makeBulkhead<Waiter>(settings), learn: undefined }
  }
  let state = ConcurrencyLimitCore.initialState(settings.algorithm, settings)
  const bulkhead = ConcurrencyLimitCore.makeBulkhead<Waiter>({ limit: settings.initial, queue: settings.queue })
  return {
    bulkhead,
    learn: (sample, baselineRttMillis) => {
      state = ConcurrencyLimitCore.update(settings, state, sample, baselineRttMillis)
      const limit = ConcurrencyLimitCore.limitOf(state)
      return limit === bulkhead.limit() ? [] : bulkhead.setLimit(limit)
    }
  }
}

// Nothing in flight or waiting, and unused for the idle time: a learnt limit is forgotten with it.
const isIdle = (entry: OriginLimit, nowMillis: number, lastUsedMillis: number): boolean =>
  !isBusy(entry) && nowMillis - lastUsedMillis >= idleTimeToLiveMillis

const isBusy = (entry: OriginLimit): boolean => entry.bulkhead.inFlight() > 0 || entry.bulkhead.queued() > 0

// One setting's origins, in this process: bounded as the budgets' and breakers' tables are, and
// never dropping an origin with a permit held or an attempt waiting.
const makeLimits = (settings: ConcurrencyLimitCore.Resolved): Limits => {
  const table = new OriginTable<OriginLimit>(() => originLimit(settings), isIdle, { isPinned: isBusy })
  return { settings, forOrigin: (origin, nowMillis) => table.get(origin, nowMillis) }
}

const keyOf = (settings: ConcurrencyLimitCore.Resolved): string => `concurrencyLimit ${JSON.stringify(settings)}`

/**
 * The limits `store` keeps for a stage: one table of origins per setting, this process's in any store.
 *
 * @internal
 */
export const limitsIn = (
  store: ResilienceStore.ResilienceStore.Service,
  stage: ConcurrencyLimit.ConcurrencyLimit
): Limits => store.keep(keyOf(stage.settings), () => makeLimits(stage.settings))

/**
 * The concurrency-limit stage: each attempt below it holds a permit of its origin while it runs,
 * its time limit cut to the deadline once it waited for one.
 *
 * @internal
 */
export const stage = (settings: ConcurrencyLimitCore.Resolved): ConcurrencyLimit.ConcurrencyLimit => {
  const key = keyOf(settings)
  const make = () => makeLimits(settings)
  const wrap =
    (next: Send): Send =>
    (call, attempt, limitMillis, kind) => {
      const hedging = call.policy.hedging
      const latencies = {
        origin: call.origin.key,
        clock: call.clock,
        recorded: call.hedged && hedging !== undefined && hedging.settings.delay._tag === "Percentile"
      }
      return withPermit(call.store.keep(key, make), latencies, call.machine.deadlineMillis, attempt, (left) =>
        next(call, attempt, Math.min(limitMillis, left), kind)
      )
    }
  return { [StageTypeId]: "concurrencyLimit", settings, wrap }
}

const wake = (waiters: ReadonlyArray<Waiter>): Effect.Effect<void> =>
  waiters.length === 0
    ? Effect.void
    : Effect.forEach(waiters, (waiter) => Deferred.succeed(waiter, undefined), { discard: true })

// Gives the permit back, to the first waiter if one is queued.
const releaseOne = (entry: OriginLimit): Effect.Effect<void> =>
  Effect.suspend(() => {
    const next = entry.bulkhead.release()
    return next === undefined ? Effect.void : Deferred.succeed(next, undefined)
  })

const failureOf = (exit: Exit.Exit<unknown, unknown>): unknown =>
  exit._tag === "Failure" ? line.onlyFailure(exit.cause) : undefined

/**
 * What an attempt's end teaches an adaptive limit: an answer (a response below 500, its RTT a
 * round trip's), a `429` or `503` (a drop) or its time limit passing (a drop). Anything else (any
 * other 5xx, a transport failure, a rejection by the breaker, an interruption) says nothing of the
 * server's capacity: a storm of fast 502s read as answers would teach a 1 ms baseline, and the
 * server's real latency afterwards would read as a queue.
 */
const droppedOf = (exit: Exit.Exit<unknown, unknown>): boolean | undefined => {
  if (Exit.isSuccess(exit)) return false
  const failure = failureOf(exit)
  if (!HttpFailure.isHttpFailure(failure)) return undefined
  if (failure._tag === "ConnectionError") return failure.reason === "Timeout" ? true : undefined
  if (failure._tag !== "TransientStatus" && failure._tag !== "PermanentStatus") return false
  if (failure.status === 429 || failure.status === 503) return true
  return failure.status >= 500 ? undefined : false
}

/**
 * Where an attempt's RTT goes: the origin's latency window, which Gradient2 reads for the
 * origin's usual RTT; `recorded` when hedging records the attempt there already.
 *
 * @internal
 */
interface Latencies {
  readonly origin: string
  readonly clock: Clock.Clock
  readonly recorded: boolean
}

// Records an answer that was not shed in the origin's latency window; gives the origin's usual RTT
// as Gradient2 reads it when a window closes: the median, once the window holds enough samples.
const baselineAfter = (latencies: Latencies, rttMillis: number, dropped: boolean, nowMillis: number) => {
  const windows = latencyWindows(latencies.clock)
  if (!dropped && !latencies.recorded) windows.get(latencies.origin, nowMillis).record(rttMillis, nowMillis)
  return () => windows.peek(latencies.origin)?.percentile(ConcurrencyLimitCore.baselinePercentile, nowMillis)
}

// Runs the attempt holding its permit: given back when the attempt ends, however it ends; an
// adaptive limit learns from it first, and a higher limit wakes the waiters it grants.
const holding = <A, E, R>(
  entry: OriginLimit,
  latencies: Latencies,
  sentMillis: number,
  attempt: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const learn = entry.learn
  if (learn === undefined) return Effect.ensuring(attempt, releaseOne(entry))
  const inFlight = entry.bulkhead.inFlight()
  return Effect.onExit(attempt, (exit) =>
    Effect.suspend(() => {
      const dropped = droppedOf(exit)
      const endedAtMillis = monotonicMillis(latencies.clock)
      const rttMillis = endedAtMillis - sentMillis
      if (dropped === undefined) return releaseOne(entry)
      const before = entry.bulkhead.limit()
      const baseline = baselineAfter(latencies, rttMillis, dropped, endedAtMillis)
      const granted = learn({ rttMillis, inFlight, dropped, endedAtMillis }, baseline)
      const limit = entry.bulkhead.limit()
      const woken = Effect.zipRight(wake(granted), releaseOne(entry))
      return limit === before ? woken : Effect.zipRight(setLimitGauge(latencies.origin, limit), woken)
    })
  )
}

const count = (metric: typeof metrics.concurrencyLimitRefusals, origin: string): Effect.Effect<void> =>
  line.update(metric, 1, metrics.originAttributes(origin))

// Origins past the label cap keep no gauge: their limits summed under one label mean nothing.
const setLimitGauge = (origin: string, limit: number): Effect.Effect<void> => {
  const labels = metrics.originAttributes(origin)
  if (metrics.isOverflow(labels)) return Effect.void
  return line.update(metrics.concurrencyLimit, limit, labels)
}

type Permitted<A, E, R> = Effect.Effect<A, E | HttpFailure.ConnectionError, R>

/**
 * Runs `send` under a permit of the attempt's origin: at once when one is free, after a wait in
 * the queue otherwise (interruptible, and no later than `deadlineMillis`, past which it fails as
 * the deadline does: a `ConnectionError` `"Timeout"`), or not at all when the queue is full (a
 * `ConnectionError` `"ConcurrencyLimited"`, its cause a `ConcurrencyLimitReached`). `send` hears
 * the time left to the deadline once it waited (`Infinity` when it did not), to cut its own time
 * limit to it. A permit is never lost: one granted as the wait is interrupted is given back.
 *
 * @internal
 */
const withPermit = <A, E, R>(
  limits: Limits,
  latencies: Latencies,
  deadlineMillis: number,
  attempt: Attempt,
  send: (leftMillis: number) => Effect.Effect<A, E, R>
): Permitted<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Deferred.make<void>(), (waiter): Permitted<A, E, R> => {
      const { clock, origin } = latencies
      const now = monotonicMillis(clock)
      const entry = limits.forOrigin(origin, now)
      const acquired = entry.bulkhead.acquire(waiter)
      if (acquired === "granted") return holding(entry, latencies, now, restore(send(Number.POSITIVE_INFINITY)))
      if (acquired === "rejected") {
        const full = new ConcurrencyLimitReached({ limit: entry.bulkhead.limit(), queue: limits.settings.queue })
        return Effect.zipRight(
          count(metrics.concurrencyLimitRefusals, origin),
          Effect.fail(connectionError(attempt, "ConcurrencyLimited", full))
        )
      }
      // A wait that ends unsent leaves the queue, or gives back the permit granted meanwhile.
      const waited = Effect.onExit(restore(waitFor(waiter, attempt, deadlineMillis - now)), (exit) =>
        Exit.isSuccess(exit) || entry.bulkhead.cancel(waiter) ? Effect.void : releaseOne(entry)
      )
      return Effect.zipRight(
        count(metrics.concurrencyLimitWaits, origin),
        Effect.flatMap(waited, () => {
          const sent = monotonicMillis(clock)
          return holding(entry, latencies, sent, restore(send(deadlineMillis - sent)))
        })
      )
    })
  )

const waitFor = (
  waiter: Waiter,
  attempt: Attempt,
  leftMillis: number
): Effect.Effect<void, HttpFailure.ConnectionError> => {
  const timedOut = () => connectionError(attempt, "Timeout", "no concurrency permit before the total timeout")
  if (!Number.isFinite(leftMillis)) return Deferred.await(waiter)
  if (leftMillis <= 0) return Effect.fail(timedOut())
  return line.timeoutFail(Deferred.await(waiter), Duration.millis(leftMillis), timedOut)
}
