// @generated from templates/src/internal/attemptLoop.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as CallMachine from "@effect-http-resilience/core/CallMachine"
import * as CircuitBreakerCore from "@effect-http-resilience/core/CircuitBreaker"
import { ByAuthority } from "@effect-http-resilience/core/Origin"
import * as RetryBudgetCore from "@effect-http-resilience/core/RetryBudget"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import { methodAttribute } from "@effect-http-resilience/core/Telemetry"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import type * as Exit from "effect/Exit"
import * as MetricLabel from "effect/MetricLabel"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as HttpFailure from "../HttpFailure.js"
import * as ResilienceStore from "../ResilienceStore.js"
import type * as RetryBudget from "../RetryBudget.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import { type Attempt, connectionError, limitRefusalOf, takeHeldResponse } from "./classify.js"
import * as concurrencyLimit from "./concurrencyLimit.js"
import * as decisions from "./decisions.js"
import * as hedgedAttempt from "./hedgedAttempt.js"
import * as metrics from "./metrics.js"
import type { ResolvedPolicy } from "./policyInput.js"
import * as rateLimit from "./rateLimit.js"
import * as resilienceStore from "./resilienceStore.js"
import { drain } from "./responseBody.js"
import { countRefusal, monotonicMillis, type SyncBudget, syncBudgets } from "./retryBudgetService.js"
import { serverDelayMillis } from "./retryPolicy.js"
import * as timeout from "./timeout.js"

/**
 * One attempt of a call, given its number; the loop bounds it in time. A transient status fails
 * with its response held (see `classify`).
 */
type AttemptOnce<A, E, R> = (attempt: Attempt) => Effect.Effect<A, E, R>

/**
 * How a call ends when it stops retrying: the failure (with its response still held, if any)
 * and why.
 */
type GiveUp<A, E, R> = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason) => Effect.Effect<A, E, R>

/**
 * Bounds an attempt: past `limitMillis` (`Infinity`: no limit) it is interrupted and fails with
 * a `ConnectionError` "Timeout". Interrupting the platform's exchange aborts its request, every
 * hop of it (redirects followed inside the wrapped client included): public APIs only, no handle
 * on the request that another call or another hop could share.
 */
const limitTime = <A, E, R>(
  attempt: Attempt,
  limitMillis: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> =>
  Number.isFinite(limitMillis)
    ? timeout.timeoutFail(effect, Duration.millis(limitMillis), () =>
        connectionError(attempt, "Timeout", `no response within ${Duration.format(Duration.millis(limitMillis))}`)
      )
    : effect

/**
 * Releases the response behind a failure, if one is held: before any wait, and before a
 * failure is handed back. `withinMillis` bounds the read (500 ms unless given).
 *
 * @internal
 */
export const releaseHeld = (failure: HttpFailure.HttpFailure, withinMillis?: number): Effect.Effect<void> => {
  const response = takeHeldResponse(failure)
  return response === undefined ? Effect.void : drain(response, withinMillis)
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

/**
 * The attempt loop, the pipeline's retry stage: total deadline -> retry (schedule, cool-down,
 * retry budget) -> circuit breaker -> attempt time limit -> transport. What to do next is the
 * core's `CallMachine`'s answer; this sends, sleeps, releases and reports as it says.
 *
 * With `hedging`, each attempt of a request that may be hedged is raced as copies
 * (`hedgedAttempt`): what follows here hears the race's outcome as one attempt's.
 *
 * The first attempt runs with nothing around it but its time limit (and the breaker, when there
 * is one), after the origin's cool-down if another call's 429 started one; only a failure steps
 * the schedule. After each failure the machine hears what must never be retried, the schedule's
 * answer and the cool-down; a retry it plans still needs the origin's retry budget; then the
 * decision is reported, the discarded response released, and the wait begins. An open circuit
 * ends the call at once, with no wait: with the last real failure, or with the breaker's
 * rejection as a `ConnectionError` "CircuitOpen" when nothing was sent yet.
 *
 * @internal
 */
export const run = <A, E, R, E2, R2>(
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  attemptOnce: AttemptOnce<A, HttpFailure.HttpFailure | E, R>,
  giveUp: GiveUp<A, E2, R2>,
  release: (value: A) => Effect.Effect<void>
): Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2> =>
  Effect.flatMap(ResilienceStore.ResilienceStore, (given) =>
    Effect.clockWith((clock) => {
      const call = startCall(policy, request, attemptOnce, giveUp, release, clock, given)
      const { budget, syncBudget } = call.guards
      // The budget's synchronous face counts the request in this step; another asks for an Effect.
      if (syncBudget === undefined) return Effect.zipRight(budget.onRequest(call.origin.key), first(call))
      syncBudget.onRequest(call.origin.key, call.startMillis)
      return first(call)
    })
  )

// Everything a call's steps share, made once per call: the module-level functions below take it.
interface Call<A, E, R, E2, R2> {
  readonly policy: ResolvedPolicy
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attemptOnce: AttemptOnce<A, HttpFailure.HttpFailure | E, R>
  readonly giveUp: GiveUp<A, E2, R2>
  readonly release: (value: A) => Effect.Effect<void>
  readonly clock: Clock.Clock
  readonly store: ResilienceStore.ResilienceStore.Service
  readonly startMillis: number
  readonly machine: CallMachine.Call
  readonly guards: Guards
  readonly origin: Origin
  readonly coolDownLeft: Effect.Effect<number>
  /** The rate limit each attempt takes a token of; `undefined`: none. */
  readonly rateGate: rateLimit.Gate | undefined
  /** Hedged copies of each attempt, when the policy hedges this request. */
  hedges: hedgedAttempt.CallHedges<A, Attempted<E>, R> | undefined
  /** The number of the last request sent: hedged copies take numbers of their own. */
  lastSent: number
  /** The schedule's state, stepped at each failure. */
  scheduleState: unknown
}

// What an attempt may fail with before the loop hears it.
type Attempted<E> = HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen

// How a call ends, as `run` gives it.
type Outcome<A, E, R, E2, R2> = Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2>

const startCall = <A, E, R, E2, R2>(
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  attemptOnce: AttemptOnce<A, HttpFailure.HttpFailure | E, R>,
  giveUp: GiveUp<A, E2, R2>,
  release: (value: A) => Effect.Effect<void>,
  clock: Clock.Clock,
  given: ResilienceStore.ResilienceStore.Service
): Call<A, E, R, E2, R2> => {
  const store = resilienceStore.concrete(given, clock)
  const startMillis = monotonicMillis(clock)
  const origin = originFor(request.url, request.method)
  const call: Call<A, E, R, E2, R2> = {
    policy,
    request,
    attemptOnce,
    giveUp,
    release,
    clock,
    store,
    startMillis,
    machine: CallMachine.start(policy.limits, startMillis),
    guards: guardsFor(store, policy),
    origin,
    coolDownLeft: policy.shareRetryAfter ? store.coolDownLeft(origin.key) : noCoolDown,
    rateGate: rateLimit.gateFor(
      policy,
      request,
      origin.key,
      store,
      clock,
      startMillis + policy.limits.totalTimeoutMillis
    ),
    hedges: undefined,
    lastSent: 0,
    scheduleState: policy.schedule.initial
  }
  if (policy.hedging !== undefined && hedgedAttempt.isHedgeable(request)) call.hedges = makeHedges(call, policy.hedging)
  return call
}

const noCoolDown = Effect.succeed(0)

// The first attempt, after the origin's cool-down if another call's 429 started one: built once
// the wait is over, so a wait that is interrupted sends, and counts, nothing.
const first = <A, E, R, E2, R2>(call: Call<A, E, R, E2, R2>): Outcome<A, E, R, E2, R2> =>
  Effect.flatMap(call.coolDownLeft, (coolDown): Outcome<A, E, R, E2, R2> => {
    const firstAttempt: Attempt = { request: call.request, attempt: 1 }
    const answer = CallMachine.first(call.machine, call.startMillis, coolDown)
    if (answer._tag === "Stop") {
      return stop(call, connectionError(firstAttempt, "CoolingDown", undefined), answer.reason)
    }
    const send = () =>
      Effect.catchAll(
        attemptWith(call, firstAttempt, answer.limitMillis, undefined),
        onAttemptFailure(call, firstAttempt, undefined)
      )
    return answer.waitMillis > 0 ? Effect.zipRight(sleep(answer.waitMillis), Effect.suspend(send)) : send()
  })

// The decision's failure says why, as the one handed back does; `giveUp` gets the failure as it
// came, the key to its held response.
const stop = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  failure: HttpFailure.HttpFailure,
  reason: RetryPolicy.GiveUpReason
): Outcome<A, E, R, E2, R2> =>
  Effect.zipRight(
    Effect.zipRight(
      call.origin.giveUp(reason),
      decisions.report({ _tag: "GiveUp", failure: withGiveUpReason(failure, reason), reason })
    ),
    call.giveUp(failure, reason)
  )

// What an attempt answers: nothing (the first), a retry's failure, or a hedged copy's wait.
type SentAfter = HttpFailure.HttpFailure | "hedge" | undefined

// One attempt: alone, or raced as hedged copies.
const attemptWith = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  attempt: Attempt,
  limitMillis: number,
  sentAfter: SentAfter
): Effect.Effect<A, Attempted<E>, R> => {
  const sent = permitted(call, attempt, limitMillis, sentAfter)
  return call.hedges === undefined ? sent : hedgedAttempt.attempt(call.hedges, sent)
}

// An attempt under the origin's concurrency limit, if there is one: it takes a permit just before
// it is sent (waiting for one, or refused unsent), and its time limit ends by the deadline still.
const permitted = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  attempt: Attempt,
  limitMillis: number,
  sentAfter: SentAfter
): Effect.Effect<A, Attempted<E>, R> => {
  const limits = call.guards.concurrency
  if (limits === undefined) return guarded(call, attempt, limitMillis, sentAfter)
  call.lastSent = attempt.attempt
  const hedges = call.hedges
  const latencies = {
    origin: call.origin.key,
    clock: call.clock,
    recorded: hedges !== undefined && hedges.settings.delay._tag === "Percentile"
  }
  return concurrencyLimit.withPermit(limits, latencies, call.machine.deadlineMillis, attempt, (left) =>
    guarded(call, attempt, Math.min(limitMillis, left), sentAfter)
  )
}

// An attempt after its rate limit's token, if there is one, which may hold it or refuse it unsent.
const guarded = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  attempt: Attempt,
  limitMillis: number,
  sentAfter: SentAfter
): Effect.Effect<A, Attempted<E>, R> => {
  call.lastSent = attempt.attempt
  const gate = call.rateGate
  if (gate === undefined) return throughBreaker(call, attempt, limitMillis, sentAfter)
  return rateLimit.admit(gate, attempt, limitMillis, sentAfter === "hedge", (admitted, limit) =>
    throughBreaker(call, admitted, limit, sentAfter)
  )
}

// An attempt through the breaker, if there is one, which may reject it unsent. `sentAfter`: what
// it answers, for the budget's refund and the counters (a retry's failure, a hedge).
const throughBreaker = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  attempt: Attempt,
  limitMillis: number,
  sentAfter: SentAfter
): Effect.Effect<A, Attempted<E>, R> => {
  const { breaker, syncBudget } = call.guards
  const limited = limitTime(attempt, limitMillis, call.attemptOnce(attempt))
  const sent =
    syncBudget !== undefined && !syncBudget.countsSuccesses
      ? limited
      : Effect.tap(limited, () => budgetSuccess(call, retriedAfterOf(sentAfter)))
  const kind = sentAfter === undefined ? "first" : sentAfter === "hedge" ? "hedge" : "retry"
  // Counted once the breaker lets it through: a rejected attempt is never sent.
  if (breaker === undefined) {
    call.origin.countSent(kind)
    return sent
  }
  const admitted = Effect.suspend(() => {
    call.origin.countSent(kind)
    return sent
  })
  // The breaker hears the attempt's time limit: a probe keeps its slot while within it.
  return Effect.flatMap(breaker, (circuits) =>
    Effect.locally(
      circuits.execute(admitted, call.origin.key, breakerOutcome),
      circuitBreakerService.currentProbeTimeLimit,
      limitMillis
    )
  )
}

const retriedAfterOf = (sentAfter: SentAfter): RetryBudgetCore.FailureKind | undefined =>
  sentAfter === undefined ? undefined : sentAfter === "hedge" ? "timeout" : RetryBudgetCore.failureKindOf(sentAfter)

const budgetSuccess = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  retriedAfter: RetryBudgetCore.FailureKind | undefined
): Effect.Effect<void> => {
  const { budget, syncBudget } = call.guards
  if (syncBudget === undefined) return budget.onSuccess(call.origin.key, retriedAfter)
  return Effect.sync(() => {
    const now = monotonicMillis(call.clock)
    syncBudget.stateFor(call.origin.key, now).onSuccess(now, retriedAfter)
  })
}

// Asks the budget for a retry of `kind` (a hedge is one after a timeout: the slowness it
// answers), `failed` first recorded with it: false is a refusal.
const withdraw = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  kind: RetryBudgetCore.FailureKind,
  failed: boolean
): Effect.Effect<boolean> => {
  const { budget, syncBudget } = call.guards
  const origin = call.origin.key
  if (syncBudget === undefined || syncBudget.retriesAskService) {
    const asked = budget.tryRetry(origin, kind)
    return failed ? Effect.zipRight(budget.onFailure(origin, kind), asked) : asked
  }
  return Effect.suspend(() => {
    const now = monotonicMillis(call.clock)
    const state = syncBudget.stateFor(origin, now)
    if (failed) state.onFailure(now, kind)
    return state.tryRetry(now, kind) ? alwaysTrue : Effect.as(countRefusal(origin), false)
  })
}

const alwaysTrue = Effect.succeed(true)

// A 429's Retry-After, told to every call sharing the store before this one plans its wait.
const tellCoolDown = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  failure: HttpFailure.HttpFailure
): Effect.Effect<number> => {
  const asked = call.policy.shareRetryAfter ? coolDownOf(failure) : 0
  return asked > 0 ? Effect.zipRight(call.store.coolDown(call.origin.key, asked), call.coolDownLeft) : call.coolDownLeft
}

const coolDownOf = (failure: HttpFailure.HttpFailure): number =>
  failure._tag === "TransientStatus" ? CallMachine.coolDownAsked(failure.status, serverDelayMillis(failure)) : 0

const makeHedges = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  settings: NonNullable<ResolvedPolicy["hedging"]>
): hedgedAttempt.CallHedges<A, Attempted<E>, R> => ({
  settings,
  policy: call.policy,
  request: call.request,
  clock: call.clock,
  origin: call.origin.key,
  deadlineMillis: call.machine.deadlineMillis,
  hedge: (attempt, limitMillis) => permitted(call, attempt, limitMillis, "hedge"),
  lastSent: () => call.lastSent,
  pay: withdraw(call, "timeout", false),
  coolDownLeft: call.coolDownLeft,
  breaker: call.guards.breaker,
  tellCoolDown: (failure) => tellCoolDown(call, failure),
  release: call.release,
  releaseFailure: releaseHeld,
  hedgeWon: call.origin.hedgeWon
})

// What follows an attempt's failure: an open circuit ends the call at once, with the last real
// failure when there was one, else with the breaker's rejection; any other failure goes to the
// machine; anything else is the caller's.
const onAttemptFailure =
  <A, E, R, E2, R2>(call: Call<A, E, R, E2, R2>, attempt: Attempt, previous: HttpFailure.HttpFailure | undefined) =>
  (error: Attempted<E>): Outcome<A, E, R, E2, R2> => {
    if (isCircuitOpen(error)) {
      return stop(call, previous ?? connectionError(attempt, "CircuitOpen", error), "circuit-open")
    }
    const refusedBy = limitRefusalOf(error)
    if (refusedBy !== undefined && HttpFailure.isHttpFailure(error)) return stop(call, previous ?? error, refusedBy)
    if (HttpFailure.isHttpFailure(error)) return afterFailure(call, error)
    return isOtherError(error) ? Effect.fail(error) : Effect.die(error) // not reached
  }

const isCircuitOpen = (error: unknown): error is CircuitBreaker.CircuitOpen => Predicate.isTagged(error, "CircuitOpen")

const isOtherError = <E>(error: Attempted<E>): error is Exclude<E, HttpFailure.HttpFailure> =>
  !isCircuitOpen(error) && !HttpFailure.isHttpFailure(error)

// A 429 cools its origin down even when this call does not retry it (a hedged copy's was told as
// it came). What must never be retried stops here; anything else asks the schedule.
const afterFailure = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  failure: HttpFailure.HttpFailure
): Outcome<A, E, R, E2, R2> =>
  Effect.flatMap(
    call.hedges === undefined ? tellCoolDown(call, failure) : call.coolDownLeft,
    (coolDown): Outcome<A, E, R, E2, R2> => {
      const refusal = call.policy.refusal(failure)
      if (refusal !== undefined) return stop(call, failure, refusal)
      const now = monotonicMillis(call.clock)
      return Effect.flatMap(stepSchedule(call, failure, now), ([out, scheduled]) =>
        planRetry(call, failure, now, coolDown, out, scheduled)
      )
    }
  )

// The schedule's output and its answer for this failure.
const stepSchedule = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  failure: HttpFailure.HttpFailure,
  now: number
): Effect.Effect<readonly [unknown, CallMachine.ScheduleAnswer]> =>
  Effect.map(call.policy.schedule.step(now, failure, call.scheduleState), ([next, out, decision]) => {
    call.scheduleState = next
    const answer: CallMachine.ScheduleAnswer = ScheduleDecision.isDone(decision)
      ? { _tag: "Done", reason: giveUpReasonOf(out) }
      : { _tag: "Delay", millis: ScheduleIntervals.start(decision.intervals) - now }
    return [out, answer] as const
  })

// The machine plans from the schedule's answer and the cool-down; a retry it plans still needs
// the origin's retry budget.
const planRetry = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  failure: HttpFailure.HttpFailure,
  now: number,
  coolDown: number,
  out: unknown,
  scheduled: CallMachine.ScheduleAnswer
): Outcome<A, E, R, E2, R2> => {
  // After the last request sent: a hedged attempt's failure may be an earlier copy's.
  const sentLast = Math.max(call.lastSent, failure.attempt)
  const answer = CallMachine.afterFailure(call.machine, sentLast, now, undefined, scheduled, coolDown)
  if (answer._tag === "Stop") return stop(call, failure, answer.reason)
  const kind = RetryBudgetCore.failureKindOf(failure)
  const allowed = kind === undefined ? alwaysTrue : withdraw(call, kind, true)
  return Effect.flatMap(allowed, (allowed): Outcome<A, E, R, E2, R2> => {
    const confirmed = CallMachine.afterBudget(answer, allowed)
    if (confirmed._tag === "Stop") return stop(call, failure, confirmed.reason)
    return retry(call, failure, answer, retryDecisionOf(out, failure, answer, coolDown))
  })
}

// The decision reported, the discarded response released, the wait, then the attempt: built once
// the wait is over, so a wait that is interrupted sends, and counts, nothing.
const retry = <A, E, R, E2, R2>(
  call: Call<A, E, R, E2, R2>,
  failure: HttpFailure.HttpFailure,
  answer: SendAnswer,
  decision: decisions.Decision
): Outcome<A, E, R, E2, R2> => {
  const attempt: Attempt = { request: call.request, attempt: answer.attempt }
  const resend = Effect.suspend(() =>
    Effect.catchAll(
      Effect.annotateSpans(
        attemptWith(call, attempt, answer.limitMillis, failure),
        "http.request.resend_count",
        answer.attempt - 1
      ),
      onAttemptFailure(call, attempt, failure)
    )
  )
  return decisions.report(decision).pipe(
    // Bounded as the next attempt is: by the attempt limit and the deadline, after the wait.
    Effect.zipRight(releaseHeld(failure, answer.limitMillis)),
    Effect.zipRight(sleep(answer.waitMillis)),
    Effect.zipRight(resend)
  )
}

type SendAnswer = Extract<CallMachine.Answer, { _tag: "Send" }>

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

// The origin's guards and counters: what the loop asks and tells about the origin it calls.

// What a call guards its origin with, from the store: the retry budget (always present; "none" is
// an unlimited one) and, when configured, the circuit breaker.
interface Guards {
  readonly budget: RetryBudget.RetryBudget.Service
  /** The budget's synchronous face, when it is one of ours. */
  readonly syncBudget: SyncBudget | undefined
  readonly breaker: Effect.Effect<CircuitBreaker.CircuitBreaker.Service> | undefined
  /** The origins' concurrency limits, when the policy sets one. */
  readonly concurrency: ResilienceStore.ResilienceStore.ConcurrencyLimits | undefined
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
    syncBudget: syncBudgets.get(budget),
    breaker:
      breaker === "none" ? undefined : "acquire" in breaker ? Effect.succeed(breaker) : store.circuitBreaker(breaker),
    concurrency: policy.concurrency === undefined ? undefined : store.concurrencyLimit(policy.concurrency)
  }
}

// Worked out once per store and policy: the store hands out the same budget and breaker to
// every policy with the same settings, so this only saves the lookups.
const guardsByStore = new WeakMap<ResilienceStore.ResilienceStore.Service, WeakMap<ResolvedPolicy, Guards>>()

const guardsFor = (store: ResilienceStore.ResilienceStore.Service, policy: ResolvedPolicy): Guards => {
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

// What a request sent answers: nothing (a call's first), a failure (a retry) or a hedged copy's
// wait.
type SentKind = "first" | "retry" | "hedge"

// An origin and its counters for one method, worked out once per origin and method.
interface Origin {
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

const originFor = (url: string, method: string): Origin => origins.get(url)(method)

// What an attempt tells the breaker (the shared core's rule, in this line's `Outcome`): anything
// but an `HttpFailure` (an interruption, another error) says nothing about the origin.
const breakerOutcome = (exit: Exit.Exit<unknown, unknown>): CircuitBreaker.Outcome => {
  if (exit._tag === "Success") return circuitBreakerService.success
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (!HttpFailure.isHttpFailure(failure)) return circuitBreakerService.ignored
  const outcome = CircuitBreakerCore.outcomeOfFailure(failure, serverDelayMillis(failure))
  if (outcome._tag !== "Failure") return outcome
  return outcome.retryAfterMillis === undefined
    ? circuitBreakerService.failed
    : { _tag: "Failure", retryAfter: Duration.millis(outcome.retryAfterMillis) }
}
