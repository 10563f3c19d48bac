import * as CoreBreaker from "@effect-http-resilience/core/CircuitBreaker"
import { originOf } from "@effect-http-resilience/core/Origin"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Metric from "effect/Metric"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import * as metrics from "./metrics.js"
import * as retryBudgetService from "./retryBudgetService.js"
import { serverDelayMillis } from "./retryPolicy.js"

/**
 * What one client guards its origins with: the retry budget (always present; "none" is an
 * unlimited one) and, when configured, the circuit breaker (made on first use, since making one
 * is an effect and a combinator is applied synchronously).
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

const breakerOf = (
  input: RetryPolicy.RetryPolicy["circuitBreaker"]
): Effect.Effect<CircuitBreaker.CircuitBreaker.Service> | undefined => {
  if (input === "none") return undefined
  if ("acquire" in input) return Effect.succeed(input)
  let made: CircuitBreaker.CircuitBreaker.Service | undefined
  // The options were validated with the policy: making the breaker cannot fail.
  return Effect.suspend(() =>
    made !== undefined
      ? Effect.succeed(made)
      : Effect.map(Effect.orDie(circuitBreakerService.make(input)), (breaker) => {
          made ??= breaker
          return made
        })
  )
}

/** @internal */
export const makeGuards = (policy: RetryPolicy.RetryPolicy): Guards => ({
  budget: isBudgetService(policy.retryBudget) ? policy.retryBudget : retryBudgetService.makeService(policy.retryBudget),
  breaker: breakerOf(policy.circuitBreaker)
})

/**
 * An origin and its metrics, worked out once per origin and method.
 *
 * @internal
 */
export interface Origin {
  readonly key: string
  readonly attempts: Effect.Effect<void>
  readonly retries: Effect.Effect<void>
  readonly giveUp: (reason: RetryPolicy.GiveUpReason) => Effect.Effect<void>
}

const makeOrigin = (key: string, method: string): Origin => {
  const attributes = { ...metrics.originAttributes(key), [metrics.attribute.requestMethod]: method }
  const giveUps = new Map<string, Effect.Effect<void>>()
  return {
    key,
    attempts: Metric.update(Metric.withAttributes(metrics.attempts, attributes), 1),
    retries: Metric.update(Metric.withAttributes(metrics.retries, attributes), 1),
    giveUp: (reason) => {
      let update = giveUps.get(reason)
      if (update === undefined) {
        update = Metric.update(
          Metric.withAttributes(metrics.giveUps, { ...attributes, [metrics.attribute.giveUpReason]: reason }),
          1
        )
        giveUps.set(reason, update)
      }
      return update
    }
  }
}

// Bounded: a client that calls more origins than this starts over.
const origins = new Map<string, Origin>()
const maxOrigins = 1024

const authorityOf = (url: string): string => {
  const start = url.indexOf("//")
  if (start < 0) return url
  const end = url.slice(start + 2).search(/[/?#]/)
  return end < 0 ? url : url.slice(0, start + 2 + end)
}

/** @internal */
export const originFor = (url: string, method: string): Origin => {
  const cacheKey = `${method} ${authorityOf(url)}`
  let origin = origins.get(cacheKey)
  if (origin === undefined) {
    if (origins.size >= maxOrigins) origins.clear()
    origin = makeOrigin(originOf(authorityOf(url)), method)
    origins.set(cacheKey, origin)
  }
  return origin
}

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
  const outcome = CoreBreaker.outcomeOfFailure(failure, serverDelayMillis(failure))
  if (outcome._tag !== "Failure") return outcome
  return EffectBreaker.failure(
    outcome.retryAfterMillis === undefined ? undefined : { retryAfter: Duration.millis(outcome.retryAfterMillis) }
  )
}
