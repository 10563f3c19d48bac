/**
 * Effect 4 has a `CircuitBreaker` of its own: our circuits can be its store (`effectStore`), so
 * that `toEffectBreaker` gives `HttpClient.withCircuitBreaker` our circuits. Only this module
 * reaches `effect/persistence` (and the `Schema` its errors are made of): a call's path does not.
 * Effect 4 only; hand-written, not generated.
 *
 * @internal
 */
import type * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import * as Scope from "effect/Scope"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import {
  admit,
  type Breaker,
  breakerOf,
  type CircuitOpen,
  type Entry,
  failure,
  notify,
  stateOf,
  withEntry
} from "./circuitBreakerService.js"

// ---------------------------------------------------------------------------------------------
// Our circuits as Effect 4's `CircuitBreakerStore`: its breaker admits, runs, classifies and
// records through them, and keeps nothing per key of its own.

// Effect's transitions know no isolation: a manual change is ours alone (see `changes`).
const toEffectTransition = (
  origin: string,
  transition: CircuitBreakerCore.Transition | undefined
): EffectBreaker.Transition | undefined => {
  if (transition === undefined || transition.manual) return undefined
  switch (transition.to) {
    case "Open":
      return {
        key: origin,
        from: transition.from,
        to: "Open",
        retryAfter: Duration.millis(transition.breakMillis),
        consecutiveOpenings: 1
      }
    case "HalfOpen":
      return { key: origin, from: "Open", to: "HalfOpen" }
    case "Closed":
      return transition.from === "HalfOpen" ? { key: origin, from: "HalfOpen", to: "Closed" } : undefined
    default:
      return undefined
  }
}

const toEffectState = (state: CircuitBreaker.State): EffectBreaker.State => {
  const key = state.origin
  switch (state._tag) {
    case "Closed":
      return { _tag: "Closed", key }
    case "HalfOpen":
      return { _tag: "HalfOpen", key, probing: state.probing, consecutiveOpenings: 0 }
    case "Open":
      return { _tag: "Open", key, retryAfter: state.retryAfter, consecutiveOpenings: 0 }
    case "Isolated":
      return { _tag: "Open", key, retryAfter: Duration.infinity, consecutiveOpenings: 0 }
  }
}

const toBreakerError = (key: string, rejection: CircuitOpen): EffectBreaker.CircuitBreakerError =>
  new EffectBreaker.CircuitBreakerError({
    reason:
      rejection.state === "HalfOpen"
        ? new EffectBreaker.CircuitHalfOpen({ key })
        : new EffectBreaker.CircuitOpen({ key, retryAfter: rejection.retryAfter })
  })

/** An admission of Effect's breaker: the circuit that gave it, and its permit. */
interface Admitted {
  readonly entry: Entry
  readonly permit: CircuitBreakerCore.Permit
}

// Applies an outcome to the circuit that admitted the call, unless that circuit was dropped since.
const recordPermit = (
  breaker: Breaker,
  origin: string,
  admitted: Admitted,
  outcome: CircuitBreakerCore.Outcome
): Effect.Effect<CircuitBreakerCore.Transition | undefined> =>
  withEntry(breaker, origin, (entry, nowMillis, _probeLimitMillis, context) => {
    if (entry !== admitted.entry) return Effect.undefined
    const transition = entry.machine.report(nowMillis, admitted.permit, outcome)
    return Effect.as(notify(breaker, entry, transition, context), transition)
  })

// Effect's store knows an outcome by the generation `admit` gave it: here a token for the
// admission's own permit, kept while the call runs (the admission's scope), so that the circuit
// times the call (`slowCalls`) and knows each half-open probe, as through our own `execute`.
const effectStore = (breaker: Breaker): EffectBreaker.CircuitBreakerStore["Service"] => {
  const admissions = new Map<number, Admitted>()
  let tokens = 0
  return EffectBreaker.CircuitBreakerStore.of({
    admit: (key) =>
      Effect.mapError(
        Effect.flatMap(
          admit(breaker, key, (entry, permit, transition) => {
            const generation = ++tokens
            admissions.set(generation, { entry, permit })
            return {
              generation,
              probe: permit.probe,
              consecutiveOpenings: 0,
              transition: toEffectTransition(key, transition)
            }
          }),
          (admission) =>
            Effect.as(
              Effect.addFinalizer(() => Effect.sync(() => admissions.delete(admission.generation))),
              admission
            )
        ),
        (rejection) => toBreakerError(key, rejection)
      ),
    record: ({ key, generation, outcome, openFor }) =>
      Effect.suspend(() => {
        const admitted = admissions.get(generation)
        admissions.delete(generation)
        if (admitted === undefined) return Effect.undefined
        return Effect.map(
          recordPermit(
            breaker,
            key,
            admitted,
            // Effect folds a failure's Retry-After into `openFor` (capped at maxOpenDuration,
            // which is our maxBreakDuration): the machine reads it back as the hint.
            outcome === "Failure"
              ? { _tag: "Failure", retryAfterMillis: Duration.toMillis(openFor) }
              : { _tag: outcome }
          ),
          (transition) => toEffectTransition(key, transition)
        )
      }),
    state: (key) => Effect.map(stateOf(breaker, key), toEffectState)
  })
}

// Effect's breaker needs a scope for its transitions stream; ours lives as long as the breaker
// does (a breaker is made where no scope is at hand, by a policy).
const effectBreaker = (
  settings: CircuitBreaker.Settings,
  store: EffectBreaker.CircuitBreakerStore["Service"]
): Effect.Effect<EffectBreaker.CircuitBreaker> =>
  EffectBreaker.make({
    tripPolicy:
      settings.tripPolicy._tag === "Consecutive"
        ? EffectBreaker.consecutive(settings.tripPolicy.failures)
        : // Effect's own rate policy counts the last N calls; ours samples a time window. The
          // store is ours, so this only describes the policy to Effect.
          EffectBreaker.rate({
            threshold: settings.tripPolicy.failureRatio,
            size: settings.tripPolicy.minimumThroughput
          }),
    openDuration: settings.breakDuration,
    maxOpenDuration: settings.maxBreakDuration,
    onStoreError: "fail"
  }).pipe(Effect.provideService(EffectBreaker.CircuitBreakerStore, store), Scope.provide(Scope.makeUnsafe()))

// A breaker service not made by `make` is reached through its public face: a permit per
// admission, reported when Effect records its generation.
const serviceStore = (service: CircuitBreaker.CircuitBreaker.Service): EffectBreaker.CircuitBreakerStore["Service"] => {
  const permits = new Map<number, CircuitBreaker.Permit>()
  let generations = 0
  return EffectBreaker.CircuitBreakerStore.of({
    admit: (key) =>
      Effect.mapError(
        Effect.map(service.acquire(key), (permit) => {
          const generation = ++generations
          permits.set(generation, permit)
          return { generation, probe: permit.probe, consecutiveOpenings: 0, transition: undefined }
        }),
        (rejection) => toBreakerError(key, rejection)
      ),
    record: ({ generation, outcome, openFor }) =>
      Effect.suspend(() => {
        const permit = permits.get(generation)
        permits.delete(generation)
        if (permit === undefined) return Effect.undefined
        const reported = outcome === "Failure" ? failure({ retryAfter: openFor }) : { _tag: outcome }
        return Effect.as(permit.report(reported), undefined)
      }),
    state: (key) => Effect.map(service.state(key), toEffectState)
  })
}

const effectBreakers = new WeakMap<CircuitBreaker.CircuitBreaker.Service, EffectBreaker.CircuitBreaker>()

/** @internal */
export const toEffectBreaker = (
  service: CircuitBreaker.CircuitBreaker.Service
): Effect.Effect<EffectBreaker.CircuitBreaker> =>
  Effect.suspend(() => {
    const made = effectBreakers.get(service)
    if (made !== undefined) return Effect.succeed(made)
    const breaker = breakerOf(service)
    const store = breaker === undefined ? serviceStore(service) : effectStore(breaker)
    return Effect.tap(effectBreaker(service.settings, store), (effect) =>
      Effect.sync(() => {
        effectBreakers.set(service, effect)
      })
    )
  })
