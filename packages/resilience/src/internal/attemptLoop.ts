import * as CallMachine from "@effect-http-resilience/core/CallMachine"
import type { FailureKind } from "@effect-http-resilience/core/RetryBudget"
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import * as circuitBreakerService from "./circuitBreakerService.js"
import { type Attempt, connectionError, takeHeldResponse } from "./classify.js"
import * as decisions from "./decisions.js"
import * as hedgedAttempt from "./hedgedAttempt.js"
import * as metrics from "./metrics.js"
import * as overload from "./overload.js"
import * as ResilienceStore from "../ResilienceStore.js"
import * as resilienceStore from "./resilienceStore.js"
import { monotonicMillis } from "./retryBudgetService.js"
import { serverDelayMillis } from "./retryPolicy.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { drain } from "./responseBody.js"

/**
 * One attempt of a call, given its number and its time limit in milliseconds (`Infinity`:
 * none). A transient status fails with its response held (see `classify`).
 *
 * @internal
 */
export type AttemptOnce<A, E, R> = (attempt: Attempt, limitMillis: number) => Effect.Effect<A, E, R>

/**
 * How a call ends when it stops retrying: the failure (with its response still held, if any)
 * and why.
 *
 * @internal
 */
export type GiveUp<A, E, R> = (
  failure: HttpFailure.HttpFailure,
  reason: RetryPolicy.GiveUpReason
) => Effect.Effect<A, E, R>

/**
 * Releases the response behind a failure, if one is held: before any wait, and before a
 * failure is handed back.
 *
 * @internal
 */
export const releaseHeld = (failure: HttpFailure.HttpFailure): Effect.Effect<void> => {
  const response = takeHeldResponse(failure)
  return response === undefined ? Effect.void : drain(response)
}

/**
 * The failure, now carrying why the call stopped.
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

const isRetryDecision = (out: unknown): out is RetryPolicy.RetryDecision =>
  Predicate.isTagged(out, "Retry") || Predicate.isTagged(out, "GiveUp")

const giveUpReasonOf = (out: unknown): RetryPolicy.GiveUpReason =>
  isRetryDecision(out) && out._tag === "GiveUp" ? out.reason : "attempts-exhausted"

// A policy's own decision says where its wait came from, unless the origin's cool-down
// stretched it; any other schedule's is inferred.
const retryDecisionOf = (
  out: unknown,
  failure: HttpFailure.HttpFailure,
  answer: Extract<CallMachine.Answer, { _tag: "Send" }>,
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
  if (isRetryDecision(out) && out._tag === "Retry") {
    return { _tag: "Retry", failure, delay: out.delay, source: out.source, capped: out.capped }
  }
  return {
    _tag: "Retry",
    failure,
    delay: Duration.millis(waitMillis),
    ...RetrySchedule.inferSource(serverDelayMillis(failure), waitMillis)
  }
}

const scheduleAnswer = (
  out: unknown,
  decision: ScheduleDecision.ScheduleDecision,
  now: number
): CallMachine.ScheduleAnswer =>
  ScheduleDecision.isDone(decision)
    ? { _tag: "Done", reason: giveUpReasonOf(out) }
    : { _tag: "Delay", millis: ScheduleIntervals.start(decision.intervals) - now }

const coolDownOf = (failure: HttpFailure.HttpFailure): number =>
  failure._tag === "TransientStatus" ? CallMachine.coolDownAsked(failure.status, serverDelayMillis(failure)) : 0

/**
 * The attempt loop, the pipeline's retry stage: total deadline -> retry (schedule, cool-down,
 * retry budget) -> circuit breaker -> attempt time limit -> transport. What to do next is the
 * core's `CallMachine`'s answer; this sends, sleeps, releases and reports as it says.
 *
 * With `hedging`, each attempt of a request that may be hedged is raced as copies
 * (`hedgedAttempt`): what follows here hears the race's outcome as one attempt's.
 *
 * The first attempt runs with nothing around it but its time limit (and the breaker, when
 * there is one), after the origin's cool-down if another call's 429 started one. After each
 * failure the machine hears what must never be retried, the schedule's answer and the
 * cool-down; a retry it plans still needs the origin's retry budget; then the decision is
 * reported, the discarded response released, and the wait begins. An attempt the open circuit
 * rejects is not sent, and ends the call at once, with no further wait.
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
      const store = resilienceStore.concrete(given, clock)
      const startMillis = monotonicMillis(clock)
      const call = CallMachine.start(policy.limits, startMillis)
      const { budget, syncBudget, breaker } = overload.guardsFor(store, policy)
      const origin = overload.originFor(request.url)
      const attemptLabels = origin.labels(request.method)
      const coolDownLeft = policy.shareRetryAfter ? store.coolDownLeft(origin.key) : noCoolDown
      const hedging = policy.hedging !== undefined && hedgedAttempt.isHedgeable(request) ? policy.hedging : undefined
      // The number of the last request sent: hedged copies take numbers of their own.
      let lastSent = 0

      // The decision's failure says why, as the one handed back does; `giveUp` gets the failure
      // as it came, the key to its held response.
      const stop = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason) => {
        metrics.giveUps.unsafeUpdate(1, origin.giveUpLabels(request.method, reason))
        return Effect.zipRight(
          decisions.report({ _tag: "GiveUp", failure: withGiveUpReason(failure, reason), reason }),
          giveUp(failure, reason)
        )
      }

      // An attempt through the breaker, if there is one, which may reject it unsent. `sentAfter`:
      // what it answers, for the budget's refund and the counters (a retry's failure, a hedge).
      const guarded = (
        attempt: Attempt,
        limitMillis: number,
        sentAfter: SentAfter
      ): Effect.Effect<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R> => {
        lastSent = attempt.attempt
        const sent = attemptOnce(attempt, limitMillis)
        const counted =
          syncBudget !== undefined && !syncBudget.countsSuccesses
            ? sent
            : Effect.tap(sent, () => budgetSuccess(retriedAfterOf(sentAfter)))
        const countSent = (): void => {
          metrics.attempts.unsafeUpdate(1, attemptLabels)
          if (sentAfter === "hedge") metrics.hedges.unsafeUpdate(1, attemptLabels)
          else if (sentAfter !== undefined) metrics.retries.unsafeUpdate(1, attemptLabels)
        }
        if (breaker === undefined) {
          countSent()
          return counted
        }
        // Counted once the breaker lets it through: a rejected attempt is never sent.
        const admitted = Effect.suspend(() => {
          countSent()
          return counted
        })
        // The breaker hears the attempt's time limit: a probe keeps its slot while within it.
        return Effect.flatMap(breaker, (circuits) =>
          Effect.locally(
            circuits.execute(admitted, origin.key, overload.breakerOutcome),
            circuitBreakerService.currentProbeTimeLimit,
            limitMillis
          )
        )
      }

      // What follows an attempt's failure: an open circuit ends the call at once, with the last
      // real failure when there was one, else with the breaker's rejection; any other failure
      // goes to the machine.
      const onAttemptFailure =
        (attempt: Attempt, previous: HttpFailure.HttpFailure | undefined, state: unknown) =>
        (
          error: HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen
        ): Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2> => {
          if (isCircuitOpen(error)) {
            return stop(previous ?? connectionError(attempt, "CircuitOpen", error), "circuit-open")
          }
          if (HttpFailure.isHttpFailure(error)) return afterFailure(error, state)
          return isOtherError(error) ? Effect.fail(error) : Effect.die(error) // not reached
        }

      const budgetSuccess = (retriedAfter: FailureKind | undefined): Effect.Effect<void> => {
        if (syncBudget === undefined) return budget.onSuccess(origin.key, retriedAfter)
        return Effect.clockWith((clock) =>
          Effect.sync(() => {
            const now = monotonicMillis(clock)
            syncBudget.stateFor(origin.key, now).onSuccess(now, retriedAfter)
          })
        )
      }

      // Asks the budget for a retry of `kind` (a hedge is one after a timeout: the slowness it
      // answers), `failed` first recorded with it: false is a refusal.
      const withdraw = (kind: FailureKind, failed: boolean): Effect.Effect<boolean> => {
        if (syncBudget === undefined || syncBudget.retriesAskService) {
          const asked = budget.tryRetry(origin.key, kind)
          return failed ? Effect.zipRight(budget.onFailure(origin.key, kind), asked) : asked
        }
        return Effect.clockWith((clock) => {
          const now = monotonicMillis(clock)
          const state = syncBudget.stateFor(origin.key, now)
          if (failed) state.onFailure(now, kind)
          if (state.tryRetry(now, kind)) return Effect.succeed(true)
          syncBudget.refused(origin.key)
          return Effect.succeed(false)
        })
      }

      // Records the failure with the budget and asks it for a retry: false is a refusal.
      const askBudget = (failure: HttpFailure.HttpFailure): Effect.Effect<boolean> => {
        const kind = overload.failureKind(failure)
        return kind === undefined ? Effect.succeed(true) : withdraw(kind, true)
      }

      // A 429's Retry-After, told to every call sharing the store before this one plans its wait.
      const tellCoolDown = (failure: HttpFailure.HttpFailure): Effect.Effect<number> => {
        const asked = policy.shareRetryAfter ? coolDownOf(failure) : 0
        return asked > 0 ? Effect.zipRight(store.coolDown(origin.key, asked), coolDownLeft) : coolDownLeft
      }

      // Hedged copies of an attempt, when the policy hedges this request.
      const hedges:
        | hedgedAttempt.CallHedges<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R>
        | undefined =
        hedging === undefined
          ? undefined
          : {
              settings: hedging,
              policy,
              request,
              clock,
              origin: origin.key,
              deadlineMillis: call.deadlineMillis,
              hedge: (attempt, limitMillis) => guarded(attempt, limitMillis, "hedge"),
              lastSent: () => lastSent,
              pay: withdraw("timeout", false),
              coolDownLeft,
              breaker,
              tellCoolDown,
              release,
              releaseFailure: releaseHeld,
              hedgeWon: Effect.sync(() => metrics.hedgeWins.unsafeUpdate(1, attemptLabels))
            }

      // One attempt: alone, or raced as hedged copies.
      const attemptWith = (
        attempt: Attempt,
        limitMillis: number,
        sentAfter: SentAfter
      ): Effect.Effect<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R> => {
        const sent = guarded(attempt, limitMillis, sentAfter)
        return hedges === undefined ? sent : hedgedAttempt.attempt(hedges, sent)
      }

      const afterFailure = (
        failure: HttpFailure.HttpFailure,
        state: unknown
      ): Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2> =>
        // A 429 cools its origin down even when this call does not retry it (a hedged copy's was
        // told as it came).
        Effect.flatMap(hedges === undefined ? tellCoolDown(failure) : coolDownLeft, (coolDown) => {
          const refusal = policy.refusal(failure)
          if (refusal !== undefined) return stop(failure, refusal)
          const now = monotonicMillis(clock)
          return Effect.flatMap(policy.schedule.step(now, failure, state), ([next, out, decision]) => {
            // After the last request sent: a hedged attempt's failure may be an earlier copy's.
            const answer = CallMachine.afterFailure(
              call,
              Math.max(lastSent, failure.attempt),
              now,
              undefined,
              scheduleAnswer(out, decision, now),
              coolDown
            )
            if (answer._tag === "Stop") return stop(failure, answer.reason)
            return Effect.flatMap(askBudget(failure), (allowed) => {
              const confirmed = CallMachine.afterBudget(answer, allowed)
              if (confirmed._tag === "Stop") return stop(failure, confirmed.reason)
              const attempt: Attempt = { request, attempt: answer.attempt }
              // Built once the wait is over: a wait that is interrupted sends, and counts, nothing.
              const resend = Effect.suspend(() =>
                Effect.catchAll(
                  Effect.annotateSpans(
                    attemptWith(attempt, answer.limitMillis, failure),
                    "http.request.resend_count",
                    answer.attempt - 1
                  ),
                  onAttemptFailure(attempt, failure, next)
                )
              )
              return decisions
                .report(retryDecisionOf(out, failure, answer, coolDown))
                .pipe(
                  Effect.zipRight(releaseHeld(failure)),
                  Effect.zipRight(sleep(answer.waitMillis)),
                  Effect.zipRight(resend)
                )
            })
          })
        })

      if (syncBudget !== undefined) syncBudget.onRequest(origin.key, startMillis)
      const firstAttempt: Attempt = { request, attempt: 1 }
      const first = Effect.flatMap(coolDownLeft, (coolDown) => {
        const answer = CallMachine.first(call, startMillis, coolDown)
        if (answer._tag === "Stop") return stop(connectionError(firstAttempt, "CoolingDown", undefined), answer.reason)
        return Effect.zipRight(
          sleep(answer.waitMillis),
          Effect.catchAll(
            attemptWith(firstAttempt, answer.limitMillis, undefined),
            onAttemptFailure(firstAttempt, undefined, policy.schedule.initial)
          )
        )
      })
      return syncBudget === undefined ? Effect.zipRight(budget.onRequest(origin.key), first) : first
    })
  )

const noCoolDown = Effect.succeed(0)

// What an attempt answers: nothing (the first), a retry's failure, or a hedged copy's wait.
type SentAfter = HttpFailure.HttpFailure | "hedge" | undefined

const retriedAfterOf = (sentAfter: SentAfter): FailureKind | undefined =>
  sentAfter === undefined ? undefined : sentAfter === "hedge" ? "timeout" : overload.failureKind(sentAfter)

const sleep = (millis: number): Effect.Effect<void> =>
  millis > 0 ? Effect.sleep(Duration.millis(millis)) : Effect.void

const isCircuitOpen = (error: unknown): error is CircuitBreaker.CircuitOpen => Predicate.isTagged(error, "CircuitOpen")

const isOtherError = <E>(
  error: E | HttpFailure.HttpFailure | CircuitBreaker.CircuitOpen
): error is Exclude<E, HttpFailure.HttpFailure> => !isCircuitOpen(error) && !HttpFailure.isHttpFailure(error)
