// @generated from templates/src/internal/retryBudgetService.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import { OriginTable } from "@effect-http-resilience/core/Origin"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as RetryBudget from "../RetryBudget.js"
import { durationCodec, fromChecked, type InvalidRetryPolicy, type Validated } from "./invalidOption.js"
import * as line from "./line.js"
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
const toPublicSettings = (settings: RetryBudgetCore.RetryBudgetSettings): RetryBudget.Settings => {
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
  Either.map(fromChecked(RetryBudgetCore.resolveInput(input, durationCodec)), toPublicSettings)

/**
 * The clock's monotonic time in milliseconds (hrtime on the live clock; TestClock moves it with
 * its time), for every duration the budget and the breaker measure: a stepped wall clock must
 * change no decision.
 *
 * @internal
 */
export const monotonicMillis = (clock: Clock.Clock): number => Number(clock.unsafeCurrentTimeNanos() / 1_000_000n)

/**
 * Counts a retry the budget refused, under its origin's attributes.
 *
 * @internal
 */
export const countRefusal = (origin: string): Effect.Effect<void> =>
  line.update(metrics.retryBudgetRefusals, 1, metrics.originAttributes(origin))

const alwaysTrue = Effect.succeed(true)
const unlimitedBalance = Effect.succeed(Number.POSITIVE_INFINITY)

const unlimitedService = (settings: RetryBudget.Settings): RetryBudget.RetryBudget.Service => ({
  settings,
  onRequest: () => Effect.void,
  onFailure: () => Effect.void,
  onSuccess: () => Effect.void,
  tryRetry: () => alwaysTrue,
  balance: () => unlimitedBalance
})

/**
 * The budget's state machine per origin, for the attempt loop to drive in the synchronous step
 * it already takes, where four Effects per call would cost more than the budget itself.
 *
 * @internal
 */
export interface SyncBudget {
  /** Whether `onSuccess` does anything: Finagle's does not, and a call's success then costs nothing. */
  readonly countsSuccesses: boolean
  /**
   * Whether a retry must ask the service (`onFailure`, then `tryRetry`): a shared budget's answer
   * may take a round trip, while its requests and successes are still counted here.
   */
  readonly retriesAskService: boolean
  /** `nowMillis`, here and for the state's methods, is {@link monotonicMillis}. */
  readonly stateFor: (origin: string, nowMillis: number) => RetryBudgetCore.RetryBudgetState
  /** Counts a call's request: the state's `onRequest`, plus whatever else the budget counts. */
  readonly onRequest: (origin: string, nowMillis: number) => void
}

/** @internal */
export const syncBudgets = new WeakMap<RetryBudget.RetryBudget.Service, SyncBudget>()

const makeUnlimited = (settings: RetryBudget.Settings, core: RetryBudgetCore.RetryBudgetSettings) => {
  const unlimited = unlimitedService(settings)
  const unlimitedState = RetryBudgetCore.makeRetryBudgetState(core, 0)
  syncBudgets.set(unlimited, {
    countsSuccesses: false,
    retriesAskService: false,
    stateFor: () => unlimitedState,
    onRequest: () => {}
  })
  return unlimited
}

/** @internal */
export const makeService = (settings: RetryBudget.Settings): RetryBudget.RetryBudget.Service => {
  const core = toCoreSettings(settings)
  if (core._tag === "None") return makeUnlimited(settings, core)
  // An origin's state alone: the refusals' counter is found when one is counted, not kept per origin.
  const table = new OriginTable<RetryBudgetCore.RetryBudgetState>(
    (_origin, nowMillis) => RetryBudgetCore.makeRetryBudgetState(core, nowMillis),
    RetryBudgetCore.isIdle
  )
  // One synchronous step from reading the clock to updating the state: no other fiber can run
  // in between, so concurrent callers see a consistent budget.
  const withState = <A>(
    origin: string,
    f: (state: RetryBudgetCore.RetryBudgetState, nowMillis: number) => A
  ): Effect.Effect<A> =>
    Effect.clockWith((clock) =>
      Effect.sync(() => {
        const nowMillis = monotonicMillis(clock)
        return f(table.get(origin, nowMillis), nowMillis)
      })
    )

  const service: RetryBudget.RetryBudget.Service = {
    settings,
    onRequest: (origin) => withState(origin, (state, now) => state.onRequest(now)),
    onFailure: (origin, kind) => withState(origin, (state, now) => state.onFailure(now, kind)),
    onSuccess: (origin, retriedAfter) => withState(origin, (state, now) => state.onSuccess(now, retriedAfter)),
    tryRetry: (origin, kind) =>
      Effect.flatten(
        withState(origin, (state, now) =>
          state.tryRetry(now, kind) ? alwaysTrue : Effect.as(countRefusal(origin), false)
        )
      ),
    balance: (origin) =>
      Effect.clockWith((clock) =>
        Effect.sync(() => {
          const nowMillis = monotonicMillis(clock)
          // Reading an origin never seen does not start keeping state for it.
          const state = table.peek(origin) ?? RetryBudgetCore.makeRetryBudgetState(core, nowMillis)
          return state.balance(nowMillis)
        })
      )
  }
  syncBudgets.set(service, {
    countsSuccesses: core._tag !== "Finagle",
    retriesAskService: false,
    stateFor: (origin, nowMillis) => table.get(origin, nowMillis),
    onRequest: (origin, nowMillis) => table.get(origin, nowMillis).onRequest(nowMillis)
  })
  return service
}

/** @internal */
export const make = (input?: RetryBudget.Input): Effect.Effect<RetryBudget.RetryBudget.Service, InvalidRetryPolicy> =>
  Effect.suspend(() =>
    Either.match(validate(input), {
      onLeft: Effect.fail,
      onRight: (settings) => Effect.sync(() => makeService(settings))
    })
  )
