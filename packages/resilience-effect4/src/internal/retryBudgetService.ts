import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import { OriginTable } from "@effect-http-resilience/core/Origin"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import * as Result from "effect/Result"
import type * as RetryBudget from "../RetryBudget.js"
import { durationCodec, fromChecked, type InvalidRetryPolicy, type Validated } from "./invalidOption.js"
import * as metrics from "./metrics.js"

/** @internal */
export const finagle = (options: RetryBudget.FinagleOptions = {}): RetryBudget.Strategy => ({
  _tag: "Finagle",
  options
})

/** @internal */
export const tokenBucket = (options: RetryBudget.TokenBucketOptions = {}): RetryBudget.Strategy => ({
  _tag: "TokenBucket",
  options
})

/** @internal */
export const awsQuota = (options: RetryBudget.AwsQuotaOptions = {}): RetryBudget.Strategy => ({
  _tag: "AwsQuota",
  options
})

/** @internal */
export const none: RetryBudget.Strategy = { _tag: "None" }

/** @internal */
export const toPublicSettings = (settings: RetryBudgetCore.RetryBudgetSettings): RetryBudget.Settings => {
  if (settings._tag !== "Finagle") return settings
  const { ttlMillis, ...rest } = settings
  return { ...rest, ttl: Duration.millis(ttlMillis) }
}

/** @internal */
export const toCoreSettings = (settings: RetryBudget.Settings): RetryBudgetCore.RetryBudgetSettings => {
  if (settings._tag !== "Finagle") return settings
  const { ttl, ...rest } = settings
  return { ...rest, ttlMillis: Duration.toMillis(ttl) }
}

/** @internal */
export const validate = (input?: unknown): Validated<RetryBudget.Settings> =>
  Result.map(fromChecked(RetryBudgetCore.resolveInput(input, durationCodec)), toPublicSettings)

/**
 * The clock's monotonic time in milliseconds (`process.hrtime` on the live clock; TestClock
 * moves it forward with its time), for every duration the budget and the breaker measure: a
 * stepped wall clock must change no decision.
 *
 * @internal
 */
export const monotonicMillis = (clock: Clock.Clock): number => Number(clock.monotonicTimeNanosUnsafe() / 1_000_000n)

// An origin's state; the refusals' counter is found when one is counted, not kept per origin.
interface Entry {
  readonly origin: string
  readonly state: RetryBudgetCore.RetryBudgetState
}

/** @internal */
export const makeService = (publicSettings: RetryBudget.Settings): RetryBudget.RetryBudget.Service => {
  const settings = toCoreSettings(publicSettings)
  const table = new OriginTable<Entry>(
    (origin, nowMillis) => ({ origin, state: RetryBudgetCore.makeRetryBudgetState(settings, nowMillis) }),
    (entry, nowMillis, lastUsedMillis) => RetryBudgetCore.isIdle(entry.state, nowMillis, lastUsedMillis)
  )
  // One synchronous step from reading the clock to updating the state: no other fiber can run
  // in between, so concurrent callers see a consistent budget.
  const withState = <A>(origin: string, f: (entry: Entry, nowMillis: number) => A): Effect.Effect<A> =>
    Effect.clockWith((clock) =>
      Effect.sync(() => {
        const nowMillis = monotonicMillis(clock)
        return f(table.get(origin, nowMillis), nowMillis)
      })
    )
  return {
    settings: publicSettings,
    onRequest: (origin) => withState(origin, (entry, now) => entry.state.onRequest(now)),
    onFailure: (origin, kind) => withState(origin, (entry, now) => entry.state.onFailure(now, kind)),
    onSuccess: (origin, retriedAfter) => withState(origin, (entry, now) => entry.state.onSuccess(now, retriedAfter)),
    tryRetry: (origin, kind) =>
      Effect.flatten(
        withState(origin, (entry, now) =>
          entry.state.tryRetry(now, kind)
            ? Effect.succeed(true)
            : Effect.as(
                Metric.update(
                  Metric.withAttributes(metrics.retryBudgetRefusals, metrics.originAttributes(entry.origin)),
                  1
                ),
                false
              )
        )
      ),
    balance: (origin) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const nowMillis = monotonicMillis(clock)
          // Reading an origin never seen does not start keeping state for it.
          const state = table.peek(origin)?.state ?? RetryBudgetCore.makeRetryBudgetState(settings, nowMillis)
          return state.balance(nowMillis)
        })
      )
  }
}

/** @internal */
export const make = (input?: RetryBudget.Input): Effect.Effect<RetryBudget.RetryBudget.Service, InvalidRetryPolicy> =>
  Effect.suspend(() =>
    Result.match(validate(input), {
      onFailure: Effect.fail,
      onSuccess: (settings) => Effect.sync(() => makeService(settings))
    })
  )
