// @generated from templates/src/internal/attemptLoop.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A call as a pipeline of stages, and its retry loop.
 *
 * The pipeline, outermost first, as Polly's and Microsoft's standard HTTP handler order it:
 *
 * ```
 * total deadline -> retry loop (schedule, Retry-After cool-down, retry budget)
 *   -> hedging -> concurrency permit -> rate-limit token -> circuit breaker -> attempt time limit -> transport
 * ```
 *
 * The deadline bounds everything. The retry loop (`run`) asks the budget before each retry.
 * Hedging races copies of the attempt below it, each taking its own permit and token. The limits
 * on outgoing load sit where the standard handler puts its rate limiter: a refused attempt is
 * never sent. The breaker sees every attempt that goes (each a health sample) and an open circuit
 * ends the call at once; the time limit bounds one exchange.
 *
 * Each opt-in stage is a value built by its own module (`Hedging.after`, `ConcurrencyLimit.fixed`,
 * `RateLimit.make`, `RateLimit.fromHeaders`, `CircuitBreaker.perOrigin`) that carries its
 * `wrap`: a resolved policy composes the stages it has, once (`compose`), around this module's
 * `transport`; a policy with none is the transport alone. This module imports no stage's code.
 *
 * @internal
 */
import * as CallMachine from "@effect-http-resilience/core/CallMachine"
import { ByAuthority } from "@effect-http-resilience/core/Origin"
import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import type * as RetryPolicyOptions from "@effect-http-resilience/core/RetryPolicyOptions"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import { methodAttribute } from "@effect-http-resilience/core/Telemetry"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import * as ResilienceStore from "../ResilienceStore.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import { type Attempt, connectionError, limitRefusalOf, takeHeldResponse } from "./classify.js"
import * as decisions from "./decisions.js"
import * as line from "./line.js"
import * as metrics from "./metrics.js"
import type { ResolvedPolicy } from "./policyInput.js"
import * as resilienceStore from "./resilienceStore.js"
import { drain } from "./responseBody.js"
import { countRefusal, monotonicMillis, type SyncBudget, syncBudgets } from "./retryBudgetService.js"
import { serverDelayMillis } from "./retryPolicy.js"

// ---------------------------------------------------------------------------------------------
// The stages' contract

/** What a request sent is: a call's first, a retry, or a hedged copy. */
type SentKind = "first" | "retry" | "hedge"

/** What a stage may fail an attempt with, unsent: a limit's refusal, a timeout, an open circuit. */
export type Refusal = HttpFailure.ConnectionError | CircuitBreaker.CircuitOpen

/**
 * One call, as the loop and every stage see it: made once per call, the only state it keeps.
 * `E` is the attempt's own error type (its `HttpFailure`s and the caller's).
 */
export interface Call<A, E, R> {
  readonly policy: ResolvedPolicy
  readonly request: HttpClientRequest.HttpClientRequest
  readonly clock: Clock.Clock
  readonly store: ResilienceStore.ResilienceStore.Service
  readonly origin: Origin
  readonly budget: Budget
  readonly machine: CallMachine.Call
  readonly startMillis: number
  /** One exchange: the request sent and its response classified (a transient status held). */
  readonly attemptOnce: (attempt: Attempt) => Effect.Effect<A, E, R>
  /** Frees a value the caller will not get (a hedged copy's losing response). */
  readonly release: (value: A) => Effect.Effect<void>
  /** Whether the policy hedges this request (idempotent, its body sendable again). */
  readonly hedged: boolean
  /** The number of the last request sent: hedged copies take numbers of their own. */
  lastSent: number
  /** What failed before the retry in flight, for the budget's refund when it succeeds. */
  retriedAfter: RetryBudgetCore.FailureKind | undefined
  /** The policy's schedule, run from the first failure on: its state is this call's. */
  schedule: line.ScheduleRun<HttpFailure.HttpFailure> | undefined
  /** The plan for the attempt that just failed, made within its time limit (`settle`). */
  planned: Planned | undefined
}

/** Sends attempt `attempt` of `call` within `limitMillis` through the stages below. */
export type Send = <A, E, R>(
  call: Call<A, E, R>,
  attempt: Attempt,
  limitMillis: number,
  kind: SentKind
) => Effect.Effect<A, E | Refusal, R>

/**
 * An opt-in stage's value: its brand (what `RetryPolicy`'s options check) and `wrap`, this stage
 * around the rest of the attempt.
 */
export interface Stage<F extends RetryPolicyOptions.Feature> extends RetryPolicyOptions.Stage<F> {
  /** @internal */
  readonly wrap: (next: Send) => Send
}

// ---------------------------------------------------------------------------------------------
// The pipeline

// The innermost stage: the exchange under its time limit, counted once it goes; a success
// refunds the budget what the retry or hedge it answers cost.
const transport: Send = (call, attempt, limitMillis, kind) => {
  const exchange = call.hedged
    ? call.attemptOnce(attempt)
    : Effect.catch(call.attemptOnce(attempt), (error) => Effect.andThen(settle(call, error), Effect.fail(error)))
  const limited = limitTime(attempt, limitMillis, exchange)
  const { sync } = call.budget
  const sent =
    sync !== undefined && !sync.countsSuccesses
      ? limited
      : Effect.tap(limited, () =>
          budgetSuccess(call, kind === "first" ? undefined : kind === "hedge" ? "timeout" : call.retriedAfter)
        )
  const counted = call.origin.countSent(kind)
  return counted === undefined ? sent : Effect.andThen(counted, sent)
}

// An attempt takes its number as it enters the stages below hedging: a hedge sent meanwhile
// takes the next.
const numbered =
  (next: Send): Send =>
  (call, attempt, limitMillis, kind) => {
    call.lastSent = attempt.attempt
    return next(call, attempt, limitMillis, kind)
  }

/**
 * The policy's attempt: its stages around the transport, composed once per resolved policy.
 * The rate limit and its headers are one stage (one token, one key), whichever is set.
 *
 * @internal
 */
export const compose = (stages: {
  readonly hedging: Stage<"hedging"> | undefined
  readonly concurrencyLimit: Stage<"concurrencyLimit"> | undefined
  readonly rateLimit: Stage<"rateLimit"> | undefined
  readonly rateLimitHeaders: Stage<"rateLimitHeaders"> | undefined
  readonly circuitBreaker: Stage<"circuitBreaker"> | undefined
}): Send => {
  let send = transport
  for (const stage of [stages.circuitBreaker, stages.rateLimit ?? stages.rateLimitHeaders, stages.concurrencyLimit]) {
    if (stage !== undefined) send = stage.wrap(send)
  }
  send = numbered(send)
  return stages.hedging === undefined ? send : stages.hedging.wrap(send)
}

/**
 * Bounds an attempt: past `limitMillis` (`Infinity`: no limit) it is interrupted and fails with
 * a `ConnectionError` "Timeout". Interrupting the platform's exchange aborts its request, every
 * hop of it (redirects followed inside the wrapped client included).
 */
const limitTime = <A, E, R>(
  attempt: Attempt,
  limitMillis: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> =>
  Number.isFinite(limitMillis)
    ? line.timeoutFail(effect, Duration.millis(limitMillis), () =>
        connectionError(attempt, "Timeout", `no response within ${Duration.format(Duration.millis(limitMillis))}`)
      )
    : effect

// ---------------------------------------------------------------------------------------------
// The retry loop

// How a call ends, as `run` gives it.
type Outcome<A, E, E2, R> = Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R>

/**
 * The retry loop, in the shape of cockatiel's `execute`: attempt, classify, decide (the core's
 * `CallMachine`, the schedule, the budget), release, wait, attempt again; unless hedged, the
 * decision and the release are made within the failed attempt's time limit (`settle`). The first attempt
 * waits out the origin's cool-down if another call's 429 started one. Each attempt is built once
 * its wait is over, so a wait that is interrupted sends, and counts, nothing. A call that stops
 * reports why, then hands `giveUp` the failure as it came (the key to its held response).
 *
 * @internal
 */
export const run = <A, E, R, E2, R2>(
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  attemptOnce: (attempt: Attempt) => Effect.Effect<A, HttpFailure.HttpFailure | E, R>,
  giveUp: (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason) => Effect.Effect<A, E2, R2>,
  release: (value: A) => Effect.Effect<void>
): Outcome<A, E, E2, R | R2> => {
  const onStore = (given: ResilienceStore.ResilienceStore.Service): Outcome<A, E, E2, R | R2> =>
    Effect.clockWith((clock) => {
      const call = startCall(policy, request, attemptOnce, release, clock, given)
      const stop = stopping(call.origin, giveUp)
      const attempt = (
        answer: SendAnswer,
        previous: HttpFailure.HttpFailure | undefined
      ): Outcome<A, E, E2, R | R2> => {
        const sent: Attempt = { request, attempt: answer.attempt }
        const once =
          previous === undefined
            ? policy.send(call, sent, answer.limitMillis, "first")
            : Effect.annotateSpans(
                policy.send(call, sent, answer.limitMillis, "retry"),
                "http.request.resend_count",
                answer.attempt - 1
              )
        return Effect.catch(once, (error): Outcome<A, E, E2, R | R2> => {
          // Planned within the attempt's limit (`settle`): a timeout while releasing changes nothing.
          const planned = call.planned
          call.planned = undefined
          if (planned !== undefined) return follow(planned.failure, planned.plan)
          const failed = classified(error, sent, previous)
          if (failed._tag === "Other") return failed.fail
          if (failed._tag === "Stop") return stop(failed.failure, failed.reason)
          const failure = failed.failure
          return Effect.flatMap(decide(call, failure), (plan) => follow(failure, plan))
        })
      }
      const follow = (failure: HttpFailure.HttpFailure, plan: Plan): Outcome<A, E, E2, R | R2> => {
        if (plan._tag === "Stop") return stop(failure, plan.reason)
        call.retriedAfter = RetryBudgetCore.failureKindOf(failure)
        return decisions.report(plan.decision).pipe(
          // Released already unless hedged: then bounded as the next attempt is.
          Effect.andThen(releaseHeld(failure, plan.answer.limitMillis)),
          Effect.andThen(sleep(plan.answer.waitMillis)),
          Effect.andThen(Effect.suspend(() => attempt(plan.answer, failure)))
        )
      }
      const start = Effect.flatMap(coolDownLeft(call), (coolDown): Outcome<A, E, E2, R | R2> => {
        const answer = CallMachine.first(call.machine, call.startMillis, coolDown)
        if (answer._tag === "Stop") {
          return stop(connectionError({ request, attempt: 1 }, "CoolingDown", undefined), answer.reason)
        }
        if (answer.waitMillis <= 0) return attempt(answer, undefined)
        return Effect.andThen(
          sleep(answer.waitMillis),
          Effect.suspend(() => attempt(answer, undefined))
        )
      })
      const counted = countRequest(call)
      return counted === undefined ? start : Effect.andThen(counted, start)
    })
  // The store the client was built with wins over the call's (docs/overload.md).
  return policy.store === undefined ? Effect.flatMap(ResilienceStore.ResilienceStore, onStore) : onStore(policy.store)
}

type SendAnswer = Extract<CallMachine.Answer, { _tag: "Send" }>

// How a call stops: its give-up counted and reported, then `giveUp` handed the failure as it came.
const stopping =
  <A, E2, R2>(
    origin: Origin,
    giveUp: (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason) => Effect.Effect<A, E2, R2>
  ) =>
  (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason): Effect.Effect<A, E2, R2> =>
    Effect.andThen(
      Effect.andThen(
        origin.giveUp(reason),
        decisions.report({ _tag: "GiveUp", failure: withGiveUpReason(failure, reason), reason })
      ),
      giveUp(failure, reason)
    )

const startCall = <A, E, R>(
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  attemptOnce: (attempt: Attempt) => Effect.Effect<A, E, R>,
  release: (value: A) => Effect.Effect<void>,
  clock: Clock.Clock,
  given: ResilienceStore.ResilienceStore.Service
): Call<A, E, R> => {
  const store = resilienceStore.concrete(given, clock)
  const startMillis = monotonicMillis(clock)
  return {
    policy,
    request,
    clock,
    store,
    origin: originFor(request.url, request.method),
    budget: budgetFor(store, policy),
    machine: CallMachine.start(policy.limits, startMillis),
    startMillis,
    attemptOnce,
    release,
    hedged: policy.hedges(request),
    lastSent: 0,
    retriedAfter: undefined,
    schedule: undefined,
    planned: undefined
  }
}

// What an attempt failed with, classified: an open circuit ends the call at once, with the last
// real failure when there was one, else with the breaker's rejection; so does a limit's refusal;
// any other `HttpFailure` goes to `decide`; anything else is the caller's.
const classified = <E>(
  error: E | Refusal,
  attempt: Attempt,
  previous: HttpFailure.HttpFailure | undefined
):
  | { readonly _tag: "Stop"; readonly failure: HttpFailure.HttpFailure; readonly reason: RetryPolicy.GiveUpReason }
  | { readonly _tag: "Failed"; readonly failure: HttpFailure.HttpFailure }
  | { readonly _tag: "Other"; readonly fail: Effect.Effect<never, Exclude<E, HttpFailure.HttpFailure>> } => {
  if (isCircuitOpen(error)) {
    return { _tag: "Stop", failure: previous ?? connectionError(attempt, "CircuitOpen", error), reason: "circuit-open" }
  }
  if (HttpFailure.isHttpFailure(error)) {
    const refusedBy = limitRefusalOf(error)
    return refusedBy === undefined
      ? { _tag: "Failed", failure: error }
      : { _tag: "Stop", failure: previous ?? error, reason: refusedBy }
  }
  return { _tag: "Other", fail: isOtherError(error) ? Effect.fail(error) : Effect.die(error) } // die: not reached
}

const isCircuitOpen = (error: unknown): error is CircuitBreaker.CircuitOpen => Predicate.isTagged(error, "CircuitOpen")

const isOtherError = <E>(error: E | Refusal): error is Exclude<E, HttpFailure.HttpFailure> =>
  !isCircuitOpen(error) && !HttpFailure.isHttpFailure(error)

type Plan =
  | { readonly _tag: "Stop"; readonly reason: RetryPolicy.GiveUpReason }
  | { readonly _tag: "Retry"; readonly answer: SendAnswer; readonly decision: decisions.Decision }

/** A failure and the plan made for it. */
interface Planned {
  readonly failure: HttpFailure.HttpFailure
  readonly plan: Plan
}

// Within the attempt's time limit, an exchange's failure is planned for and, when it is retried,
// its response released: read and dropped under that limit's race, with no time bound of its
// own. The plan is made whole (uninterruptible: a budget withdrawn is a retry planned).
const settle = <A, E, R>(call: Call<A, E, R>, error: E): Effect.Effect<void> =>
  HttpFailure.isHttpFailure(error) && limitRefusalOf(error) === undefined
    ? Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(decide(call, error), (plan) => {
          call.planned = { failure: error, plan }
          return plan._tag === "Retry" ? restore(releaseHeld(error, Number.POSITIVE_INFINITY)) : Effect.void
        })
      )
    : Effect.void

// After a failure: a 429 cools its origin down even when this call does not retry it (a hedged
// copy's was told as it came); what must never be retried stops; the machine plans from the
// schedule's answer and the cool-down; a retry it plans still needs the origin's retry budget.
const decide = <A, E, R>(call: Call<A, E, R>, failure: HttpFailure.HttpFailure): Effect.Effect<Plan> =>
  Effect.flatMap(call.hedged ? coolDownLeft(call) : tellCoolDown(call, failure), (coolDown) => {
    const refusal = call.policy.refusal(failure)
    if (refusal !== undefined) return Effect.succeed<Plan>({ _tag: "Stop", reason: refusal })
    const now = monotonicMillis(call.clock)
    return Effect.flatMap(stepSchedule(call, failure, now), ([out, scheduled]) => {
      // After the last request sent: a hedged attempt's failure may be an earlier copy's.
      const sentLast = Math.max(call.lastSent, failure.attempt)
      const answer = CallMachine.afterFailure(call.machine, sentLast, now, undefined, scheduled, coolDown)
      if (answer._tag === "Stop") return Effect.succeed<Plan>(answer)
      const kind = RetryBudgetCore.failureKindOf(failure)
      return Effect.map(kind === undefined ? alwaysTrue : withdraw(call, kind, true), (allowed): Plan => {
        const confirmed = CallMachine.afterBudget(answer, allowed)
        if (confirmed._tag === "Stop") return confirmed
        return { _tag: "Retry", answer, decision: retryDecisionOf(out, failure, answer, coolDown) }
      })
    })
  })

// The schedule's output and its answer for this failure.
const stepSchedule = <A, E, R>(
  call: Call<A, E, R>,
  failure: HttpFailure.HttpFailure,
  now: number
): Effect.Effect<readonly [unknown, CallMachine.ScheduleAnswer]> =>
  Effect.suspend(() => {
    call.schedule ??= line.runSchedule(call.policy.schedule)
    return Effect.map(call.schedule(now, failure), ({ out, delayMillis }) => {
      const answer: CallMachine.ScheduleAnswer =
        delayMillis === undefined
          ? { _tag: "Done", reason: giveUpReasonOf(out) }
          : { _tag: "Delay", millis: delayMillis }
      return [out, answer] as const
    })
  })

const isRetryDecision = (out: unknown): out is RetryPolicy.RetryDecision =>
  Predicate.isTagged(out, "Retry") || Predicate.isTagged(out, "GiveUp")

const giveUpReasonOf = (out: unknown): RetryPolicy.GiveUpReason =>
  isRetryDecision(out) && out._tag === "GiveUp" ? out.reason : "attempts-exhausted"

// A policy's own decision says where its wait came from, unless the origin's cool-down
// stretched it; any other schedule's is inferred.
const retryDecisionOf = (
  out: unknown,
  failure: HttpFailure.HttpFailure,
  answer: SendAnswer,
  coolDownMillis: number
): decisions.Decision => {
  const waitMillis = answer.waitMillis
  if (answer.coolDownMillis > 0) {
    return {
      _tag: "Retry",
      failure,
      delay: Duration.millis(waitMillis),
      source: "retry-after",
      capped: waitMillis < coolDownMillis
    }
  }
  return isRetryDecision(out) && out._tag === "Retry"
    ? { _tag: "Retry", failure, delay: out.delay, source: out.source, capped: out.capped }
    : {
        _tag: "Retry",
        failure,
        delay: Duration.millis(waitMillis),
        ...RetrySchedule.inferSource(serverDelayMillis(failure), waitMillis)
      }
}

const sleep = (millis: number): Effect.Effect<void> =>
  millis > 0 ? Effect.sleep(Duration.millis(millis)) : Effect.void

/**
 * Releases the response behind a failure, if one is held: before any wait, and before a
 * failure is handed back. `withinMillis` bounds the read (500 ms unless given).
 *
 * @internal
 */
export const releaseHeld = (failure: HttpFailure.HttpFailure, withinMillis?: number): Effect.Effect<void> => {
  const response = takeHeldResponse(failure)
  return response === undefined || failure._tag !== "TransientStatus"
    ? Effect.void
    : drain(response, withinMillis, failure.headers)
}

/**
 * The failure, now carrying why the call stopped: a copy with every field and `giveUpReason`.
 *
 * @internal
 */
export const withGiveUpReason = (
  failure: HttpFailure.HttpFailure,
  giveUpReason: RetryPolicy.GiveUpReason
): HttpFailure.HttpFailure => {
  const { attempt, request } = failure
  switch (failure._tag) {
    case "ConnectionError":
      return new HttpFailure.ConnectionError({
        request,
        attempt,
        reason: failure.reason,
        cause: failure.cause,
        giveUpReason
      })
    case "TransientStatus":
      return new HttpFailure.TransientStatus({
        request,
        attempt,
        status: failure.status,
        headers: failure.headers,
        retryAfter: failure.retryAfter,
        giveUpReason
      })
    case "PermanentStatus":
      return new HttpFailure.PermanentStatus({
        request,
        attempt,
        status: failure.status,
        headers: failure.headers,
        body: failure.body,
        giveUpReason
      })
    case "DecodeError":
      return new HttpFailure.DecodeError({
        request,
        attempt,
        status: failure.status,
        cause: failure.cause,
        giveUpReason
      })
  }
}

// ---------------------------------------------------------------------------------------------
// The origin's retry budget and cool-down, as the loop and the stages ask them

/** The origin's retry budget: always one ("none" is an unlimited one), from the store. */
interface Budget {
  readonly service: RetryBudget.RetryBudget.Service
  /** The budget's synchronous face, when it is one of ours. */
  readonly sync: SyncBudget | undefined
}

const isBudgetService = (
  budget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
): budget is RetryBudget.RetryBudget.Service => "tryRetry" in budget

// Worked out once per store and policy: the store hands out the same budget to every policy
// with the same settings, so this only saves the lookups.
const budgetsByStore = new WeakMap<ResilienceStore.ResilienceStore.Service, WeakMap<ResolvedPolicy, Budget>>()

const budgetFor = (store: ResilienceStore.ResilienceStore.Service, policy: ResolvedPolicy): Budget => {
  let byPolicy = budgetsByStore.get(store)
  if (byPolicy === undefined) {
    byPolicy = new WeakMap()
    budgetsByStore.set(store, byPolicy)
  }
  let budget = byPolicy.get(policy)
  if (budget === undefined) {
    const input = policy.retryBudget
    const service = isBudgetService(input) ? input : store.retryBudget(input)
    budget = { service, sync: syncBudgets.get(service) }
    byPolicy.set(policy, budget)
  }
  return budget
}

// The budget's synchronous face counts the request in this step; another asks for an Effect.
const countRequest = <A, E, R>(call: Call<A, E, R>): Effect.Effect<void> | undefined => {
  const { service, sync } = call.budget
  if (sync === undefined) return service.onRequest(call.origin.key)
  sync.onRequest(call.origin.key, call.startMillis)
  return undefined
}

const budgetSuccess = <A, E, R>(
  call: Call<A, E, R>,
  retriedAfter: RetryBudgetCore.FailureKind | undefined
): Effect.Effect<void> => {
  const { service, sync } = call.budget
  if (sync === undefined) return service.onSuccess(call.origin.key, retriedAfter)
  return Effect.sync(() => {
    const now = monotonicMillis(call.clock)
    sync.stateFor(call.origin.key, now).onSuccess(now, retriedAfter)
  })
}

/**
 * Asks the budget for a retry of `kind` (a hedge is one after a timeout: the slowness it
 * answers), `failed` first recorded with it: false is a refusal.
 *
 * @internal
 */
export const withdraw = <A, E, R>(
  call: Call<A, E, R>,
  kind: RetryBudgetCore.FailureKind,
  failed: boolean
): Effect.Effect<boolean> => {
  const { service, sync } = call.budget
  const origin = call.origin.key
  if (sync === undefined || sync.retriesAskService) {
    const asked = service.tryRetry(origin, kind)
    return failed ? Effect.andThen(service.onFailure(origin, kind), asked) : asked
  }
  return Effect.suspend(() => {
    const now = monotonicMillis(call.clock)
    const state = sync.stateFor(origin, now)
    if (failed) state.onFailure(now, kind)
    return state.tryRetry(now, kind) ? alwaysTrue : Effect.as(countRefusal(origin), false)
  })
}

const alwaysTrue = Effect.succeed(true)

const noCoolDown = Effect.succeed(0)

/**
 * Milliseconds left of the origin's cool-down, when the policy shares a 429's `Retry-After`.
 *
 * @internal
 */
export const coolDownLeft = <A, E, R>(call: Call<A, E, R>): Effect.Effect<number> =>
  call.policy.shareRetryAfter ? call.store.coolDownLeft(call.origin.key) : noCoolDown

/**
 * A 429's `Retry-After`, told to every call sharing the store before this one plans its wait;
 * the cool-down left after it.
 *
 * @internal
 */
export const tellCoolDown = <A, E, R>(call: Call<A, E, R>, failure: HttpFailure.HttpFailure): Effect.Effect<number> => {
  const asked =
    call.policy.shareRetryAfter && failure._tag === "TransientStatus"
      ? CallMachine.coolDownAsked(failure.status, serverDelayMillis(failure))
      : 0
  return asked > 0
    ? Effect.andThen(call.store.coolDown(call.origin.key, asked), coolDownLeft(call))
    : coolDownLeft(call)
}

// ---------------------------------------------------------------------------------------------
// The origin's counters

// An origin and its counters for one method, worked out once per origin and method.
interface Origin {
  readonly key: string
  /** Counts a request sent: every attempt, and a retry or a hedged copy as such too. */
  readonly countSent: (kind: SentKind) => line.Count
  readonly hedgeWon: Effect.Effect<void>
  readonly giveUp: (reason: RetryPolicy.GiveUpReason) => Effect.Effect<void>
}

// The counters and their attributes are made once per origin and method.
const makeOrigin = (key: string, attributes: line.Attributes): Origin => {
  const giveUps = new Map<string, Effect.Effect<void>>()
  const attempts = line.counter(metrics.attempts, attributes)
  const resent = line.bothCounts(attempts, line.counter(metrics.retries, attributes))
  const hedged = line.bothCounts(attempts, line.counter(metrics.hedges, attributes))
  return {
    key,
    countSent: (kind) => (kind === "first" ? attempts() : kind === "retry" ? resent() : hedged()),
    hedgeWon: line.update(metrics.hedgeWins, 1, attributes),
    giveUp: (reason) => {
      let update = giveUps.get(reason)
      if (update === undefined) {
        update = line.update(
          metrics.giveUps,
          1,
          line.withAttributes(attributes, { [metrics.attribute.giveUpReason]: reason })
        )
        giveUps.set(reason, update)
      }
      return update
    }
  }
}

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
        line.withAttributes(metrics.originAttributes(key), {
          [metrics.attribute.requestMethod]: methodAttribute(method)
        })
      )
      if (byMethod.size < maxMethods) byMethod.set(method, origin)
    }
    return origin
  }
})

const originFor = (url: string, method: string): Origin => origins.get(url)(method)

/**
 * A give-up outside the loop (a handed-over body whose read stalled), counted and reported as
 * the loop's are.
 *
 * @internal
 */
export const reportGiveUp = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason): Effect.Effect<void> =>
  Effect.andThen(
    originFor(failure.request.url, failure.request.method).giveUp(reason),
    decisions.report({ _tag: "GiveUp", failure, reason })
  )
