import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type * as CircuitBreaker from "../CircuitBreaker.js"
import { type Attempt, connectionError, takeHeldResponse } from "./classify.js"
import * as decisions from "./decisions.js"
import * as metrics from "./metrics.js"
import * as overload from "./overload.js"
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

// A policy's own decision says where its wait came from; any other schedule's is inferred.
const retryDecisionOf = (out: unknown, failure: HttpFailure.HttpFailure, waitMillis: number): decisions.Decision => {
  if (isRetryDecision(out) && out._tag === "Retry") {
    return { _tag: "Retry", failure, delay: out.delay, source: out.source, capped: out.capped }
  }
  const server =
    failure._tag === "TransientStatus" && failure.retryAfter._tag === "Some"
      ? Duration.toMillis(failure.retryAfter.value)
      : undefined
  return {
    _tag: "Retry",
    failure,
    delay: Duration.millis(waitMillis),
    ...RetrySchedule.inferSource(server, waitMillis)
  }
}

/**
 * The attempt loop, the pipeline's retry stage: total deadline -> retry (schedule, retry
 * budget) -> circuit breaker -> attempt time limit -> transport.
 *
 * The first attempt runs with nothing around it but its time limit (and the breaker, when
 * there is one); only a failure builds the retry machinery. After each failure: what must never
 * be retried stops at once; otherwise the schedule decides; a wait that would end past the
 * total deadline is not started; the origin's retry budget is asked; then the decision is
 * reported, the discarded response released, and the wait begins. An attempt the open circuit
 * rejects is not sent, and ends the call at once, with no further wait.
 *
 * @internal
 */
export const run = <A, E, R, E2, R2>(
  policy: ResolvedPolicy,
  request: HttpClientRequest.HttpClientRequest,
  attemptOnce: AttemptOnce<A, HttpFailure.HttpFailure | E, R>,
  giveUp: GiveUp<A, E2, R2>
): Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2> =>
  Effect.clockWith((clock) => {
    const startMillis = clock.unsafeCurrentTimeMillis()
    const deadline = startMillis + policy.totalTimeoutMillis
    const firstLimit = Math.min(policy.attemptTimeoutMillis, policy.totalTimeoutMillis)
    const { budget, syncBudget, breaker } = policy.guards
    const origin = overload.originFor(request.url)
    const attemptLabels = origin.labels(request.method)

    // The decision's failure says why, as the one handed back does; `giveUp` gets the failure
    // as it came, the key to its held response.
    const stop = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason) => {
      metrics.giveUps.unsafeUpdate(1, origin.giveUpLabels(request.method, reason))
      return Effect.zipRight(
        decisions.report({ _tag: "GiveUp", failure: withGiveUpReason(failure, reason), reason }),
        giveUp(failure, reason)
      )
    }

    // An attempt through the breaker, if there is one, which may reject it unsent.
    const guarded = (
      attempt: Attempt,
      limitMillis: number,
      previous: HttpFailure.HttpFailure | undefined
    ): Effect.Effect<A, HttpFailure.HttpFailure | E | CircuitBreaker.CircuitOpen, R> => {
      const sent = attemptOnce(attempt, limitMillis)
      const counted =
        syncBudget !== undefined && !syncBudget.countsSuccesses ? sent : Effect.tap(sent, () => budgetSuccess(previous))
      const countSent = (): void => {
        metrics.attempts.unsafeUpdate(1, attemptLabels)
        if (previous !== undefined) metrics.retries.unsafeUpdate(1, attemptLabels)
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
      return Effect.flatMap(breaker, (circuits) => circuits.execute(admitted, origin.key, overload.breakerOutcome))
    }

    // What follows an attempt's failure: an open circuit ends the call at once, with the last
    // real failure when there was one, else with the breaker's rejection; any other failure
    // goes to the schedule.
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

    const budgetSuccess = (previous: HttpFailure.HttpFailure | undefined): Effect.Effect<void> => {
      const retriedAfter = previous === undefined ? undefined : overload.failureKind(previous)
      if (syncBudget === undefined) return budget.onSuccess(origin.key, retriedAfter)
      return Effect.clockWith((clock) =>
        Effect.sync(() => {
          const now = clock.unsafeCurrentTimeMillis()
          syncBudget.stateFor(origin.key, now).onSuccess(now, retriedAfter)
        })
      )
    }

    // Records the failure with the budget and asks it for a retry: false is a refusal.
    const askBudget = (failure: HttpFailure.HttpFailure, now: number): Effect.Effect<boolean> => {
      const kind = overload.failureKind(failure)
      if (kind === undefined) return Effect.succeed(true)
      if (syncBudget === undefined) {
        return Effect.zipRight(budget.onFailure(origin.key, kind), budget.tryRetry(origin.key, kind))
      }
      const state = syncBudget.stateFor(origin.key, now)
      state.onFailure(now, kind)
      if (state.tryRetry(now, kind)) return Effect.succeed(true)
      syncBudget.refused(origin.key)
      return Effect.succeed(false)
    }

    const afterFailure = (
      failure: HttpFailure.HttpFailure,
      state: unknown
    ): Effect.Effect<A, Exclude<E, HttpFailure.HttpFailure> | E2, R | R2> => {
      const refusal = policy.refusal(failure)
      if (refusal !== undefined) return stop(failure, refusal)
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(policy.schedule.step(now, failure, state), ([next, out, decision]) => {
          if (ScheduleDecision.isDone(decision)) return stop(failure, giveUpReasonOf(out))
          const waitMillis = Math.max(0, ScheduleIntervals.start(decision.intervals) - now)
          if (now + waitMillis >= deadline) return stop(failure, "deadline-exceeded")
          return Effect.flatMap(askBudget(failure, now), (allowed) => {
            if (!allowed) return stop(failure, "retry-budget-exhausted")
            const attempt: Attempt = { request, attempt: failure.attempt + 1 }
            const limit = Math.min(policy.attemptTimeoutMillis, deadline - now - waitMillis)
            // Built once the wait is over: a wait that is interrupted sends, and counts, nothing.
            const resend = Effect.suspend(() =>
              Effect.catchAll(
                Effect.annotateSpans(guarded(attempt, limit, failure), "http.request.resend_count", failure.attempt),
                onAttemptFailure(attempt, failure, next)
              )
            )
            return decisions
              .report(retryDecisionOf(out, failure, waitMillis))
              .pipe(
                Effect.zipRight(releaseHeld(failure)),
                Effect.zipRight(waitMillis > 0 ? Effect.sleep(Duration.millis(waitMillis)) : Effect.void),
                Effect.zipRight(resend)
              )
          })
        })
      )
    }

    if (syncBudget !== undefined) syncBudget.stateFor(origin.key, startMillis).onRequest(startMillis)
    const firstAttempt: Attempt = { request, attempt: 1 }
    const first = Effect.catchAll(
      guarded(firstAttempt, firstLimit, undefined),
      onAttemptFailure(firstAttempt, undefined, policy.schedule.initial)
    )
    return syncBudget === undefined ? Effect.zipRight(budget.onRequest(origin.key), first) : first
  })

const isCircuitOpen = (error: unknown): error is CircuitBreaker.CircuitOpen => Predicate.isTagged(error, "CircuitOpen")

const isOtherError = <E>(
  error: E | HttpFailure.HttpFailure | CircuitBreaker.CircuitOpen
): error is Exclude<E, HttpFailure.HttpFailure> => !isCircuitOpen(error) && !HttpFailure.isHttpFailure(error)
