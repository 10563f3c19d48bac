// @generated from templates/src/internal/overload.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import { ByAuthority } from "@effect-http-resilience/core/Origin"
import { methodAttribute } from "@effect-http-resilience/core/Telemetry"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as MetricLabel from "effect/MetricLabel"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as ResilienceStore from "../ResilienceStore.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import * as metrics from "./metrics.js"
import type { ResolvedPolicy } from "./policyInput.js"
import * as retryBudgetService from "./retryBudgetService.js"
import { serverDelayMillis } from "./retryPolicy.js"

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
 * What a request sent answers: nothing (a call's first), a failure (a retry) or a hedged
 * copy's wait.
 *
 * @internal
 */
export type SentKind = "first" | "retry" | "hedge"

/**
 * An origin and its counters for one method, worked out once per origin and method.
 *
 * @internal
 */
export interface Origin {
  readonly key: string
  /** Counts a request sent, at once: Effect 3's counters update without an Effect. */
  readonly countSent: (kind: SentKind) => void
  readonly hedgeWon: Effect.Effect<void>
  readonly giveUp: (reason: RetryPolicy.GiveUpReason) => Effect.Effect<void>
}

type Attributes = ReadonlyArray<MetricLabel.MetricLabel>

const withAttribute = (attributes: Attributes, key: string, value: string): Attributes => [
  ...attributes,
  MetricLabel.make(key, value)
]

// The counters' label arrays are made once: their hooks are cached by array identity.
const makeOrigin = (key: string, attributes: Attributes): Origin => {
  const giveUps = new Map<string, Effect.Effect<void>>()
  return {
    key,
    countSent: (kind) => {
      metrics.attempts.unsafeUpdate(1, attributes)
      if (kind === "hedge") metrics.hedges.unsafeUpdate(1, attributes)
      else if (kind === "retry") metrics.retries.unsafeUpdate(1, attributes)
    },
    hedgeWon: Effect.sync(() => metrics.hedgeWins.unsafeUpdate(1, attributes)),
    giveUp: (reason) => {
      let update = giveUps.get(reason)
      if (update === undefined) {
        const labels = withAttribute(attributes, metrics.attribute.giveUpReason, reason)
        update = Effect.sync(() => metrics.giveUps.unsafeUpdate(1, labels))
        giveUps.set(reason, update)
      }
      return update
    }
  }
}

const originAttributes = metrics.originLabels

// A request's method as given is the key: the platform's methods are a closed set, and the
// metric attribute is worked out once for each.
const maxMethods = 16

// Per origin (found by the URL's authority, as written: parsing a URL on every call costs more
// than the budget), per method.
const origins = new ByAuthority((key) => {
  const byMethod = new Map<string, Origin>()
  return (method: string): Origin => {
    let origin = byMethod.get(method)
    if (origin === undefined) {
      origin = makeOrigin(
        key,
        withAttribute(originAttributes(key), metrics.attribute.requestMethod, methodAttribute(method))
      )
      if (byMethod.size < maxMethods) byMethod.set(method, origin)
    }
    return origin
  }
})

/** @internal */
export const originFor = (url: string, method: string): Origin => origins.get(url)(method)

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
  const retryAfter =
    outcome.retryAfterMillis === undefined ? undefined : { retryAfter: Duration.millis(outcome.retryAfterMillis) }
  return circuitBreakerService.failure(retryAfter)
}
