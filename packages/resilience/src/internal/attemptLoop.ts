import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Predicate from "effect/Predicate"
import * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import { type Attempt, connectionError, takeHeldResponse } from "./classify.js"
import * as decisions from "./decisions.js"
import type { ResolvedPolicy } from "./policyInput.js"
import { release } from "./attemptLimit.js"
import * as timeout from "./timeout.js"

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
 * Bounds an attempt: past `limitMillis`, it is interrupted (which aborts its request) and fails
 * with a `ConnectionError` "Timeout".
 *
 * @internal
 */
export const limitTime = <A, E, R>(
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
 * failure is handed back.
 *
 * @internal
 */
export const releaseHeld = (failure: HttpFailure.HttpFailure): Effect.Effect<void> => {
  const response = takeHeldResponse(failure)
  return response === undefined ? Effect.void : release(response)
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
    source: server === undefined ? "backoff" : "retry-after",
    capped: server !== undefined && server > waitMillis
  }
}

/**
 * The attempt loop. The first attempt runs with nothing around it but its time limit; only a
 * failure builds the retry machinery. After each failure: what must never be retried stops at
 * once; otherwise the schedule decides; a wait that would end past the total deadline is not
 * started; the decision is reported, the discarded response released, and then the wait.
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
    const deadline = clock.unsafeCurrentTimeMillis() + policy.totalTimeoutMillis
    const firstLimit = Math.min(policy.attemptTimeoutMillis, policy.totalTimeoutMillis)

    // The decision's failure says why, as the one handed back does; `giveUp` gets the failure
    // as it came, the key to its held response.
    const stop = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason) =>
      Effect.zipRight(
        decisions.report({ _tag: "GiveUp", failure: withGiveUpReason(failure, reason), reason }),
        giveUp(failure, reason)
      )

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
          const attempt: Attempt = { request, attempt: failure.attempt + 1 }
          const limit = Math.min(policy.attemptTimeoutMillis, deadline - now - waitMillis)
          const resend = Effect.annotateSpans(attemptOnce(attempt, limit), "http.request.resend_count", failure.attempt)
          return decisions.report(retryDecisionOf(out, failure, waitMillis)).pipe(
            Effect.zipRight(releaseHeld(failure)),
            Effect.zipRight(waitMillis > 0 ? Effect.sleep(Duration.millis(waitMillis)) : Effect.void),
            Effect.zipRight(resend),
            Effect.catchIf(HttpFailure.isHttpFailure, (nextFailure) => afterFailure(nextFailure, next))
          )
        })
      )
    }

    return Effect.catchIf(attemptOnce({ request, attempt: 1 }, firstLimit), HttpFailure.isHttpFailure, (failure) =>
      afterFailure(failure, policy.schedule.initial)
    )
  })
