import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as LogLevel from "effect/LogLevel"
import * as Predicate from "effect/Predicate"
import * as Schedule from "effect/Schedule"
import type * as ScheduleDecision from "effect/ScheduleDecision"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as HttpFailure from "../HttpFailure.js"
import type * as ResilientHttpClient from "../ResilientHttpClient.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as retryAfter from "./retryAfter.js"
import * as retryPolicy from "./retryPolicy.js"
import { drain, readSnippet } from "./responseBody.js"
import * as timeout from "./timeout.js"
import { track } from "./trackedResponse.js"

interface ResolvedPolicy {
  readonly schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  readonly isTransientStatus: (status: number) => boolean
  readonly attemptTimeout: Duration.Duration
}

const fromPolicy = (policy: RetryPolicy.RetryPolicy): ResolvedPolicy => ({
  schedule: retryPolicy.toSchedule(policy),
  isTransientStatus: policy.isTransientStatus,
  attemptTimeout: policy.attemptTimeout
})

// A caller's own schedule decides when and how long; what must never be retried (permanent
// statuses, decode errors, non-idempotent or one-shot requests) stays out of its reach.
const fromSchedule = (schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>): ResolvedPolicy => ({
  schedule: Schedule.whileInput(
    schedule,
    (failure: HttpFailure.HttpFailure) =>
      retryPolicy.nonRetryableReason(failure, retryPolicy.defaultPolicy) === undefined
  ),
  isTransientStatus: retryPolicy.defaultPolicy.isTransientStatus,
  attemptTimeout: retryPolicy.defaultPolicy.attemptTimeout
})

const resolvePolicy = (
  input: ResilientHttpClient.PolicyInput | undefined
): Either.Either<ResolvedPolicy, RetryPolicy.InvalidRetryPolicy> => {
  if (input === undefined) return Either.right(fromPolicy(retryPolicy.defaultPolicy))
  if (Schedule.isSchedule(input)) return Either.right(fromSchedule(input))
  if (retryPolicy.isRetryPolicy(input)) return Either.right(fromPolicy(input))
  return Either.map(retryPolicy.validate(input), fromPolicy)
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300

// A transient status is an expected outcome that the schedule usually retries: capturing a
// JavaScript stack for each (deep inside the fiber runtime, so telling nothing) is most of its
// cost. Effect's own span trace still locates the failure.
const withoutStackTrace = <A>(make: () => A): A => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return make()
  } finally {
    Error.stackTraceLimit = limit
  }
}

// The call site inside this module says nothing to a reader of the trace: no stack is captured.
const firstAttemptSpan = { kind: "internal", captureStackTrace: false } as const

const resendSpan = (attempt: Attempt) =>
  ({
    kind: "internal",
    captureStackTrace: false,
    attributes: { "http.request.resend_count": attempt.attempt - 1 }
  }) as const

interface Attempt {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attempt: number
}

const connectionError = (
  attempt: Attempt,
  reason: HttpFailure.ConnectionFailureReason,
  cause: unknown
): HttpFailure.ConnectionError =>
  new HttpFailure.ConnectionError({ request: attempt.request, attempt: attempt.attempt, reason, cause })

const decodeError = (attempt: Attempt, status: number, cause: unknown): HttpFailure.DecodeError =>
  new HttpFailure.DecodeError({ request: attempt.request, attempt: attempt.attempt, status, cause })

const retryLogAnnotations = (
  failure: HttpFailure.HttpFailure,
  decision: unknown,
  waitMillis: number
): Record<string, unknown> => {
  const annotations: Record<string, unknown> = {
    "http.request.method": failure.request.method,
    "url.full": failure.request.url,
    "retry.attempt": failure.attempt,
    "retry.failure": failure._tag
  }
  if (failure._tag === "ConnectionError") annotations["retry.reason"] = failure.reason
  else annotations["http.response.status_code"] = failure.status
  if (failure._tag === "TransientStatus" && failure.retryAfter._tag === "Some") {
    annotations["retry.retry_after_millis"] = Duration.toMillis(failure.retryAfter.value)
  }
  if (Predicate.isTagged(decision, "Retry") && Predicate.hasProperty(decision, "source")) {
    annotations["retry.wait_millis"] = waitMillis
    annotations["retry.wait_source"] = decision.source
    annotations["retry.wait_capped"] = Predicate.hasProperty(decision, "capped") && decision.capped === true
  } else if (Predicate.isTagged(decision, "GiveUp") && Predicate.hasProperty(decision, "reason")) {
    annotations["retry.give_up_reason"] = decision.reason
  } else {
    annotations["retry.wait_millis"] = waitMillis
  }
  return annotations
}

const logDecision = (
  [decision, failure]: readonly [unknown, HttpFailure.HttpFailure],
  scheduleDecision: ScheduleDecision.ScheduleDecision
): Effect.Effect<void> =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => {
    const retrying = scheduleDecision._tag === "Continue"
    // A policy's decision carries its exact wait; any other schedule's is read off its interval.
    const waitMillis = !retrying
      ? 0
      : Predicate.isTagged(decision, "Retry") &&
          Predicate.hasProperty(decision, "delay") &&
          Duration.isDuration(decision.delay)
        ? Duration.toMillis(decision.delay)
        : Math.max(0, ScheduleIntervals.start(scheduleDecision.intervals) - now)
    return Effect.logDebug(retrying ? "retrying" : "giving up").pipe(
      Effect.annotateLogs(retryLogAnnotations(failure, decision, waitMillis))
    )
  })

// Logs every decision with what it was about; the wrapped schedule's behaviour is unchanged.
const withDecisionLog = (
  schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>
): Schedule.Schedule<unknown, HttpFailure.HttpFailure> =>
  Schedule.onDecision(Schedule.intersect(schedule, Schedule.identity<HttpFailure.HttpFailure>()), logDecision)

/** @internal */
export const make = (
  policy?: ResilientHttpClient.PolicyInput
): Effect.Effect<
  ResilientHttpClient.ResilientHttpClient.Service,
  RetryPolicy.InvalidRetryPolicy,
  HttpClient.HttpClient
> =>
  Effect.gen(function* () {
    const resolved = yield* resolvePolicy(policy)
    const underlying = yield* HttpClient.HttpClient
    return makeWith(underlying, resolved)
  })

const makeWith = (
  underlying: HttpClient.HttpClient,
  { attemptTimeout, isTransientStatus, schedule }: ResolvedPolicy
): ResilientHttpClient.ResilientHttpClient.Service => {
  const loggedSchedule = withDecisionLog(schedule)
  const timeLimited = Duration.isFinite(attemptTimeout)

  const limitTime = <A, R>(attempt: Attempt, effect: Effect.Effect<A, HttpFailure.HttpFailure, R>) =>
    timeLimited
      ? timeout.timeoutFail(effect, attemptTimeout, () =>
          connectionError(attempt, "Timeout", `no response within ${Duration.format(attemptTimeout)}`)
        )
      : effect

  const permanentStatus = (
    attempt: Attempt,
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<never, HttpFailure.PermanentStatus> =>
    Effect.flatMap(readSnippet(response), (body) =>
      Effect.fail(
        new HttpFailure.PermanentStatus({
          request: attempt.request,
          attempt: attempt.attempt,
          status: response.status,
          headers: response.headers,
          body
        })
      )
    )

  // Decides what a response is. Anything but success is released here, before any wait.
  const classify = (
    attempt: Attempt,
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure> => {
    const status = response.status
    if (isSuccess(status)) return Effect.succeed(response)
    const headers = response.headers
    if (isTransientStatus(status)) {
      return Effect.flatMap(Clock.currentTimeMillis, (now) => {
        // Rate-limit reset headers describe a quota, so they mean "wait" only on a 429.
        const delay =
          status === 429 ? retryAfter.fromHeaders(headers, now) : retryAfter.fromRetryAfterHeader(headers, now)
        return Effect.zipRight(
          drain(response),
          Effect.failSync(() =>
            withoutStackTrace(
              () =>
                new HttpFailure.TransientStatus({
                  request: attempt.request,
                  attempt: attempt.attempt,
                  status,
                  headers,
                  retryAfter: delay
                })
            )
          )
        )
      })
    }
    return permanentStatus(attempt, response)
  }

  // An underlying client that already filters statuses hands the response over in an error:
  // it goes on to `classify` like any other, except that a success status the client rejected
  // is, by its own judgement, not worth retrying.
  const fromClientError = (
    attempt: Attempt,
    error: HttpClientError.HttpClientError
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure> => {
    if (error._tag === "RequestError") {
      return Effect.fail(connectionError(attempt, error.reason === "Transport" ? "Transport" : "InvalidRequest", error))
    }
    if (error.reason === "StatusCode") {
      return isSuccess(error.response.status)
        ? permanentStatus(attempt, error.response)
        : Effect.succeed(error.response)
    }
    return Effect.fail(connectionError(attempt, "Transport", error))
  }

  // The transport aborts the request when this is interrupted (a timeout, the caller), and
  // `classify` releases any response it does not hand on.
  const sendOnce = (attempt: Attempt): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure> =>
    underlying.execute(attempt.request).pipe(
      Effect.catchAll((error) => fromClientError(attempt, error)),
      Effect.flatMap((response) => classify(attempt, response))
    )

  // One attempt: a response that is not handed on is released before any wait.
  const runAttempts = <A, R>(
    request: HttpClientRequest.HttpClientRequest,
    read: (
      response: HttpClientResponse.HttpClientResponse,
      attempt: Attempt
    ) => Effect.Effect<A, HttpFailure.HttpFailure, R>,
    limitReadTime: boolean
  ): Effect.Effect<A, HttpFailure.HttpFailure, R> =>
    Effect.suspend(() => {
      let attempts = 0
      const attemptOnce = Effect.suspend(() => {
        const attempt: Attempt = { request, attempt: ++attempts }
        const sent = sendOnce(attempt)
        // One limit for the whole attempt: with the body included, it also covers the headers.
        const attemptEffect = limitReadTime
          ? limitTime(
              attempt,
              Effect.flatMap(sent, (response) => read(response, attempt))
            )
          : Effect.flatMap(limitTime(attempt, sent), (response) => read(response, attempt))
        return Effect.withSpan(
          attemptEffect,
          "ResilientHttpClient.attempt",
          attempt.attempt === 1 ? firstAttemptSpan : resendSpan(attempt)
        )
      })
      // Most calls succeed at once: the schedule's driver is only built after a first failure,
      // which it then sees first, exactly as `Effect.retry(attemptOnce, retrySchedule)` would.
      // The decisions are logged at debug level: when that level is off, nothing is built for it.
      return Effect.catchAll(attemptOnce, (firstFailure) => {
        let replayed = false
        const retried = Effect.suspend(() => {
          if (replayed) return attemptOnce
          replayed = true
          return Effect.fail(firstFailure)
        })
        return Effect.flatMap(FiberRef.get(FiberRef.currentMinimumLogLevel), (minimum) =>
          Effect.retry(retried, LogLevel.greaterThan(minimum, LogLevel.Debug) ? schedule : loggedSchedule)
        )
      })
    })

  // The response goes to the caller; its scope releases the body if the caller leaves it unread.
  const bindToScope = (
    scope: Scope.Scope,
    response: HttpClientResponse.HttpClientResponse
  ): Effect.Effect<HttpClientResponse.HttpClientResponse> => {
    const tracked = track(response)
    return Effect.as(
      Scope.addFinalizer(
        scope,
        Effect.suspend(() => (tracked.bodyTaken() ? Effect.void : drain(response)))
      ),
      tracked.response
    )
  }

  const execute = (
    request: HttpClientRequest.HttpClientRequest
  ): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope> =>
    Effect.flatMap(Effect.scope, (scope) => runAttempts(request, (response) => bindToScope(scope, response), false))

  const readJson = (
    response: HttpClientResponse.HttpClientResponse,
    attempt: Attempt
  ): Effect.Effect<unknown, HttpFailure.HttpFailure> =>
    Effect.flatMap(
      Effect.mapError(response.text, (error) => connectionError(attempt, "Transport", error)),
      (text) =>
        Effect.try({
          try: (): unknown => JSON.parse(text),
          catch: (cause) => decodeError(attempt, response.status, cause)
        })
    )

  const getJson = <A, I, R>(
    url: string | URL,
    schema: Schema.Schema<A, I, R>,
    options?: HttpClientRequest.Options.NoBody
  ): Effect.Effect<A, HttpFailure.HttpFailure, R> => {
    const decode = Schema.decodeUnknown(schema)
    return runAttempts(
      HttpClientRequest.get(url, options),
      (response, attempt) =>
        Effect.flatMap(readJson(response, attempt), (json) =>
          Effect.mapError(decode(json), (error) => decodeError(attempt, response.status, error))
        ),
      true
    )
  }

  return {
    execute,
    get: (url, options) => execute(HttpClientRequest.get(url, options)),
    getJson
  }
}
