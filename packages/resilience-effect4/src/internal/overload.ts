import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import { ByAuthority } from "@effect-http-resilience/core/Origin"
import { methodAttribute } from "@effect-http-resilience/core/Telemetry"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as metrics from "./metrics.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { serverDelayMillis } from "./retryPolicy.js"

/**
 * What a call guards its origin with, from the store: the retry budget (always present; "none"
 * is an unlimited one) and, when configured, the circuit breaker.
 *
 * @internal
 */
export interface Guards {
  readonly budget: RetryBudget.RetryBudget.Service
  readonly breaker: Effect.Effect<CircuitBreaker.CircuitBreaker.Service> | undefined
}

const isBudgetService = (
  budget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
): budget is RetryBudget.RetryBudget.Service => "tryRetry" in budget

const makeGuards = (store: ResilienceStore.ResilienceStore.Service, policy: ResolvedPolicy): Guards => {
  const input = policy.retryBudget
  const breaker = policy.circuitBreaker
  return {
    budget: isBudgetService(input) ? input : store.retryBudget(input),
    breaker:
      breaker === "none" ? undefined : "acquire" in breaker ? Effect.succeed(breaker) : store.circuitBreaker(breaker)
  }
}

// Worked out once per store and policy: the store hands out the same budget and breaker to
// every policy with the same settings, so this only saves the lookups.
const guardsByStore = new WeakMap<ResilienceStore.ResilienceStore.Service, WeakMap<ResolvedPolicy, Guards>>()

/** @internal */
export const guardsFor = (store: ResilienceStore.ResilienceStore.Service, policy: ResolvedPolicy): Guards => {
  let byPolicy = guardsByStore.get(store)
  if (byPolicy === undefined) {
    byPolicy = new WeakMap()
    guardsByStore.set(store, byPolicy)
  }
  let guards = byPolicy.get(policy)
  if (guards === undefined) {
    guards = makeGuards(store, policy)
    byPolicy.set(policy, guards)
  }
  return guards
}

/**
 * An origin and its metrics per method, worked out once per origin and method.
 *
 * @internal
 */
export interface Origin {
  readonly key: string
  readonly attempts: Effect.Effect<void>
  /** An attempt after the first: both counters. */
  readonly resent: Effect.Effect<void>
  /** A hedged copy: both counters. */
  readonly hedged: Effect.Effect<void>
  readonly hedgeWon: Effect.Effect<void>
  readonly giveUp: (reason: RetryPolicy.GiveUpReason) => Effect.Effect<void>
}

const counted = (metric: Metric.Counter<number>, attributes: Readonly<Record<string, string>>) =>
  Metric.update(Metric.withAttributes(metric, attributes), 1)

// Per origin (found by the URL's authority, as written: parsing a URL on every call costs more
// than the budget), per method.
const origins = new ByAuthority((key) => {
  const byMethod = new Map<string, Origin>()
  return (method: string): Origin => {
    let origin = byMethod.get(method)
    if (origin === undefined) {
      const attributes = { ...metrics.originAttributes(key), [metrics.attribute.requestMethod]: method }
      const giveUps = new Map<string, Effect.Effect<void>>()
      const attempts = counted(metrics.attempts, attributes)
      const retries = counted(metrics.retries, attributes)
      origin = {
        key,
        attempts,
        resent: Effect.andThen(attempts, retries),
        hedged: Effect.andThen(attempts, counted(metrics.hedges, attributes)),
        hedgeWon: counted(metrics.hedgeWins, attributes),
        giveUp: (reason) => {
          let update = giveUps.get(reason)
          if (update === undefined) {
            update = counted(metrics.giveUps, { ...attributes, [metrics.attribute.giveUpReason]: reason })
            giveUps.set(reason, update)
          }
          return update
        }
      }
      byMethod.set(method, origin)
    }
    return origin
  }
})

/** @internal */
export const originFor = (url: string, method: string): Origin => origins.get(url)(methodAttribute(method))

/**
 * What an attempt tells the breaker (the core's rule, in Effect 4's `Outcome`): anything but an
 * `HttpFailure` (an interruption, another error) says nothing about the origin.
 *
 * @internal
 */
export const breakerOutcome = (exit: Exit.Exit<unknown, unknown>): CircuitBreaker.Outcome => {
  if (exit._tag === "Success") return EffectBreaker.success
  const reason = exit.cause.reasons[0]
  const failure = exit.cause.reasons.length === 1 && reason?._tag === "Fail" ? reason.error : undefined
  if (!HttpFailure.isHttpFailure(failure)) return EffectBreaker.ignored
  const outcome = CircuitBreakerCore.outcomeOfFailure(failure, serverDelayMillis(failure))
  if (outcome._tag !== "Failure") return outcome
  return EffectBreaker.failure(
    outcome.retryAfterMillis === undefined ? undefined : { retryAfter: Duration.millis(outcome.retryAfterMillis) }
  )
}
