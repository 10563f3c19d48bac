// @generated from templates/src/internal/classify.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as RetryAfterCore from "@effect-http-resilience/core/RetryAfter"
import { isUnrecoverableCause } from "@effect-http-resilience/core/TransportFailure"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as HttpFailure from "../HttpFailure.js"
import * as line from "./line.js"
import * as platformErrors from "./platformErrors.js"
import { readSnippet } from "./responseBody.js"
import * as retryAfter from "./retryAfter.js"

/**
 * One attempt of a call: which request, and its 1-based number.
 *
 * @internal
 */
export interface Attempt {
  readonly request: HttpClientRequest.HttpClientRequest
  readonly attempt: number
  /** Told the headers of the response, whatever its status: the rate limit learns from them. */
  readonly heard?: ((headers: HttpClientResponse.HttpClientResponse["headers"]) => Effect.Effect<void>) | undefined
}

const isSuccess = (status: number): boolean => status >= 200 && status < 300

/**
 * A failure without a response. A platform error for its cause is kept as one that writes its
 * request redacted (`platformErrors.redactedClientError`): `Cause.pretty` and node's inspect show it.
 *
 * @internal
 */
export const connectionError = (
  attempt: Attempt,
  reason: HttpFailure.ConnectionFailureReason,
  cause: unknown
): HttpFailure.ConnectionError =>
  new HttpFailure.ConnectionError({
    request: attempt.request,
    attempt: attempt.attempt,
    reason,
    cause: HttpClientError.isHttpClientError(cause) ? platformErrors.redactedClientError(cause) : cause
  })

/**
 * A limit's refusal of an attempt, unsent (the concurrency limit's or the rate limit's), and the
 * give-up reason it ends the call with: it is never retried.
 *
 * @internal
 */
export const limitRefusalOf = (failure: unknown): "concurrency-limit" | "rate-limit" | undefined => {
  if (!HttpFailure.isConnectionError(failure)) return undefined
  if (failure.reason === "ConcurrencyLimited") return "concurrency-limit"
  return failure.reason === "RateLimited" ? "rate-limit" : undefined
}

/** @internal */
export const decodeError = (attempt: Attempt, status: number, cause: unknown): HttpFailure.DecodeError =>
  new HttpFailure.DecodeError({ request: attempt.request, attempt: attempt.attempt, status, cause })

/**
 * `make()`, its errors built without capturing a stack (Effect makes its spans' errors so): a
 * stack is the dearest part of an error, and where it is unread, paid for nothing. Left as it is
 * where `Error.stackTraceLimit` is not writable.
 */
const withoutStack = <A>(make: () => A): A => {
  const limit: unknown = Reflect.get(Error, "stackTraceLimit")
  if (!Reflect.set(Error, "stackTraceLimit", 0)) return make()
  try {
    return make()
  } finally {
    Reflect.set(Error, "stackTraceLimit", limit)
  }
}

// Its stack would be the fiber runtime's frames, and nobody reads it: the failure a call hands
// back is a copy made where it stops (`attemptLoop.withGiveUpReason`), with a stack of its own.
const transientStatus = (
  attempt: Attempt,
  response: HttpClientResponse.HttpClientResponse,
  headers: HttpClientResponse.HttpClientResponse["headers"],
  delay: HttpFailure.TransientStatus["retryAfter"]
): HttpFailure.TransientStatus =>
  withoutStack(
    () =>
      new HttpFailure.TransientStatus({
        request: attempt.request,
        attempt: attempt.attempt,
        status: response.status,
        headers,
        retryAfter: delay
      })
  )

/**
 * The response behind a transient status, held unread until the retry decision: released
 * before a wait, or handed back as it is by the platform-typed client when the call gives up.
 * Keyed by the failure as `classifyResponse` made it.
 */
const heldResponses = new WeakMap<HttpFailure.TransientStatus, HttpClientResponse.HttpClientResponse>()

/** @internal */
export const takeHeldResponse = (
  failure: HttpFailure.HttpFailure
): HttpClientResponse.HttpClientResponse | undefined => {
  if (failure._tag !== "TransientStatus") return undefined
  // A WeakMap keyed by identity must find the error itself (`line.originalError`).
  const made = line.originalError(failure)
  const response = heldResponses.get(made)
  heldResponses.delete(made)
  return response
}

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

/**
 * What a response is: a success goes on; a transient status fails with its response held for
 * the retry decision; a permanent status fails with a snippet of its body (read and released
 * here) when `permanentAsFailure`, or goes on as a response otherwise.
 *
 * @internal
 */
export const classifyResponse = (
  attempt: Attempt,
  response: HttpClientResponse.HttpClientResponse,
  policy: {
    readonly isTransientStatus: (status: number) => boolean
    readonly retryHints: RetryAfterCore.HintNames
  },
  permanentAsFailure: boolean
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure> => {
  const status = response.status
  if (isSuccess(status)) return Effect.succeed(response)
  // Some transports build the headers anew on every access: read them once.
  const headers = response.headers
  // A server's `x-should-retry: true` makes any failed status transient; the idempotency rules still decide.
  if (policy.isTransientStatus(status) || RetryAfterCore.shouldRetry(headers, policy.retryHints.shouldRetry) === true) {
    return Effect.clockWith((clock) => {
      const delay = retryAfter.ofTransientResponse(
        status,
        headers,
        clock.currentTimeMillisUnsafe(),
        policy.retryHints.retryAfterMillis
      )
      const failure = transientStatus(attempt, response, headers, delay)
      heldResponses.set(failure, response)
      return Effect.fail(failure)
    })
  }
  return permanentAsFailure ? permanentStatus(attempt, response) : Effect.succeed(response)
}

/**
 * A platform client error as what it means for a retry: no response (a connection error of the
 * right reason), or, from a client that already filters statuses (`filterStatusOk`), the
 * response itself, to be classified like any other, except that a success status the client
 * rejected is, by its own judgement, not worth retrying.
 *
 * @internal
 */
export const fromClientError = (
  attempt: Attempt,
  error: HttpClientError.HttpClientError
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure> => {
  const read = platformErrors.readClientError(error)
  switch (read._tag) {
    case "Transport":
      return Effect.fail(
        connectionError(attempt, isUnrecoverableCause(read.cause) ? "Unrecoverable" : "Transport", error)
      )
    case "InvalidRequest":
      return Effect.fail(connectionError(attempt, "InvalidRequest", error))
    case "StatusCode":
      return isSuccess(read.response.status) ? permanentStatus(attempt, read.response) : Effect.succeed(read.response)
    case "Other":
      return Effect.fail(connectionError(attempt, "Transport", error))
  }
}
