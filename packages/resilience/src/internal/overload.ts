import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as MetricLabel from "effect/MetricLabel"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import * as metrics from "./metrics.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { serverDelayMillis } from "./retryPolicy.js"
import { ByAuthority } from "@effect-http-resilience/core/Origin"
import { methodAttribute } from "@effect-http-resilience/core/Telemetry"
import * as retryBudgetService from "./retryBudgetService.js"

/**
 * What a call guards its origin with, from the store: the retry budget (always present; "none"
 * is an unlimited one) and, when configured, the circuit breaker.
 *
 * @internal
 */
export interface Guards {
  readonly budget: RetryBudget.RetryBudget.Service
  /** The budget's synchronous face, when it is one of ours. */
  readonly syncBudget: retryBudgetService.SyncBudget | undefined
  readonly breaker: Effect.Effect<CircuitBreaker.CircuitBreaker.Service> | undefined
}

const isBudgetService = (
  budget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
): budget is RetryBudget.RetryBudget.Service => "tryRetry" in budget

const makeGuards = (store: ResilienceStore.ResilienceStore.Service, policy: ResolvedPolicy): Guards => {
  const input = policy.retryBudget
  const budget = isBudgetService(input) ? input : store.retryBudget(input)
  const breaker = policy.circuitBreaker
  return {
    budget,
    syncBudget: retryBudgetService.syncBudgets.get(budget),
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
 * An origin and the metric labels of calls to it, worked out once per origin.
 *
 * @internal
 */
export interface Origin {
  readonly key: string
  /** Labels by method, each array made once: the metric hooks are cached by array identity. */
  readonly labels: (method: string) => ReadonlyArray<MetricLabel.MetricLabel>
  readonly giveUpLabels: (method: string, reason: RetryPolicy.GiveUpReason) => ReadonlyArray<MetricLabel.MetricLabel>
}

const makeOrigin = (key: string): Origin => {
  const base = metrics.originLabels(key)
  const byMethod = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  const byReason = new Map<string, ReadonlyArray<MetricLabel.MetricLabel>>()
  return {
    key,
    labels: (requestMethod) => {
      const method = methodAttribute(requestMethod)
      let labels = byMethod.get(method)
      if (labels === undefined) {
        labels = [...base, MetricLabel.make(metrics.attribute.requestMethod, method)]
        byMethod.set(method, labels)
      }
      return labels
    },
    giveUpLabels: (requestMethod, reason) => {
      const method = methodAttribute(requestMethod)
      const key = `${method} ${reason}`
      let labels = byReason.get(key)
      if (labels === undefined) {
        labels = [
          ...base,
          MetricLabel.make(metrics.attribute.requestMethod, method),
          MetricLabel.make(metrics.attribute.giveUpReason, reason)
        ]
        byReason.set(key, labels)
      }
      return labels
    }
  }
}

// Origins by the URL's scheme and authority, as written (bounded): parsing a URL on every call
// costs more than the budget.
const origins = new ByAuthority(makeOrigin)

/** @internal */
export const originFor = (url: string): Origin => origins.get(url)

/**
 * What a failure tells the budget: the kind of trouble, or nothing (the shared core's rule).
 *
 * @internal
 */
export const failureKind: (failure: HttpFailure.HttpFailure) => RetryBudget.FailureKind | undefined =
  RetryBudgetCore.failureKindOf

/**
 * What an attempt tells the breaker (the shared core's rule, in this line's `Outcome`): anything
 * but an `HttpFailure` (an interruption, another error) says nothing about the origin.
 *
 * @internal
 */
export const breakerOutcome = (exit: Exit.Exit<unknown, unknown>): CircuitBreaker.Outcome => {
  if (Exit.isSuccess(exit)) return circuitBreakerService.success
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (!HttpFailure.isHttpFailure(failure)) return circuitBreakerService.ignored
  const outcome = CircuitBreakerCore.outcomeOfFailure(failure, serverDelayMillis(failure))
  if (outcome._tag !== "Failure") return outcome
  return outcome.retryAfterMillis === undefined
    ? circuitBreakerService.failure()
    : circuitBreakerService.failure({ retryAfter: Duration.millis(outcome.retryAfterMillis) })
}
