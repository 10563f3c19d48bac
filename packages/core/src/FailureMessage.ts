/**
 * The words a failed call is explained in: what happened on which attempt and, once the call
 * stopped, why. Written over the plain fields every `HttpFailure` of both Effect lines carries.
 *
 * @example
 * ```ts
 * import type { FailureMessage } from "@effect-http-resilience/core"
 *
 * const reason: FailureMessage.ConnectionFailureReason = "Timeout"
 * ```
 *
 * @since 0.1.0
 */
import * as Redaction from "./Redaction.js"
import * as TransportFailure from "./TransportFailure.js"

/**
 * Why no HTTP response arrived (the `reason` of a `ConnectionError`).
 *
 * @since 0.1.0
 * @category models
 */
export type ConnectionFailureReason =
  | "Transport"
  | "Timeout"
  | "InvalidRequest"
  | "Unrecoverable"
  | "CircuitOpen"
  | "CoolingDown"
  | "ConcurrencyLimited"
  /** Not sent: the client's rate limit (`rateLimit`, or a server's announced reset) has no token in time. */
  | "RateLimited"

/**
 * Why a call stopped retrying (the libraries' `RetryPolicy.GiveUpReason`).
 *
 * @since 0.1.0
 * @category models
 */
export type GiveUpReason =
  /** A permanent status, a decode error, an invalid request or an unrecoverable transport failure. */
  | "not-retryable"
  /** The server said not to retry (`x-should-retry: false`, `Stripe-Should-Retry: false`). */
  | "server-declined"
  /** POST or PATCH (or another non-idempotent method) without an `Idempotency-Key`. */
  | "not-idempotent"
  /** The body is a stream or iterator that the first attempt consumed. */
  | "one-shot-body"
  /** `maxAttempts` attempts were made (or a custom schedule ended). */
  | "attempts-exhausted"
  /** `Retry-After` asked for more than `maxDelay` under `whenRetryAfterExceedsMaxDelay: "give-up"`. */
  | "retry-after-exceeds-max-delay"
  /** The next wait would end past `totalTimeout` (from the call's start) or `maxElapsed`. */
  | "deadline-exceeded"
  /** The retry budget of the request's origin refused the retry. */
  | "retry-budget-exhausted"
  /** The circuit breaker of the request's origin is open. */
  | "circuit-open"
  /** The origin's concurrency limit had every permit taken and its queue full. */
  | "concurrency-limit"
  /** The client's rate limit had no token for the attempt before the deadline. */
  | "rate-limit"
  /**
   * A body handed to the caller stalled past `bodyIdleTimeout` while the caller read it: the call
   * had ended with its response, and nothing retries a read.
   */
  | "body-idle-timeout"

/**
 * What a message reads of a failure: its tag, request line, attempt, why it stopped (once it
 * did), and its reason, status or cause.
 *
 * @since 0.1.0
 * @category models
 */
export type Failure = {
  readonly request: { readonly method: string; readonly url: string }
  readonly attempt: number
  readonly giveUpReason?: GiveUpReason | undefined
} & (
  | { readonly _tag: "ConnectionError"; readonly reason: ConnectionFailureReason; readonly cause?: unknown }
  | { readonly _tag: "TransientStatus" | "PermanentStatus"; readonly status: number }
  | { readonly _tag: "DecodeError"; readonly status: number; readonly cause: unknown }
)

const connectionReasons: Readonly<Record<ConnectionFailureReason, string>> = {
  Transport: "transport failure",
  Timeout: "no response in time",
  InvalidRequest: "the request could not be sent",
  Unrecoverable: "unrecoverable transport failure",
  CircuitOpen: "not sent: the circuit breaker for this origin is open",
  CoolingDown: "not sent: the origin is cooling down after a 429 with Retry-After",
  ConcurrencyLimited: "not sent: the concurrency limit for this origin and its queue are full",
  RateLimited: "not sent: the rate limit has no token before the deadline"
}

// The message of a cause with this tag, which explains itself.
const messageOf = (cause: unknown, tag: string): string | undefined =>
  typeof cause === "object" &&
  cause !== null &&
  "_tag" in cause &&
  cause._tag === tag &&
  "message" in cause &&
  typeof cause.message === "string"
    ? cause.message
    : undefined

const urlCredentialsTag = "UrlCredentialsRefused"

// The rate limit's refusal says which limit and how long the wait would have been.
const rateLimitTag = "RateLimitExceeded"

const isUrlCredentialsRefusal = (failure: {
  readonly reason: ConnectionFailureReason
  readonly cause?: unknown
}): boolean => failure.reason === "InvalidRequest" && messageOf(failure.cause, urlCredentialsTag) !== undefined

// A body over the reader's limit (its message is a predicate: "is larger than …").
const bodyTooLargeMessage = (cause: unknown): string | undefined => messageOf(cause, "BodyTooLarge")

const whatHappened = (failure: Failure): string => {
  const onAttempt = `on attempt ${failure.attempt}`
  switch (failure._tag) {
    case "ConnectionError": {
      // Nothing was sent: no attempt to name.
      if (failure.reason === "CircuitOpen" || failure.reason === "CoolingDown") return connectionReasons[failure.reason]
      // The limiter's refusal names the limit and the queue that were full.
      if (failure.reason === "ConcurrencyLimited") return concurrencyLimited(failure.cause)
      if (failure.reason === "RateLimited") {
        const said = messageOf(failure.cause, rateLimitTag)
        return said === undefined ? connectionReasons.RateLimited : `not sent: ${said}`
      }
      // A body that stalled past `bodyIdleTimeout` says for how long.
      const stalled = messageOf(failure.cause, "BodyIdleTimeoutExceeded")
      if (stalled !== undefined) return `${stalled} ${onAttempt}`
      // Credentials in the URL that were not sent say why, and what to do instead.
      const credentials = isUrlCredentialsRefusal(failure) ? messageOf(failure.cause, urlCredentialsTag) : undefined
      return credentials === undefined
        ? `${connectionReasons[failure.reason]} ${onAttempt}`
        : `not sent: ${credentials}`
    }
    case "TransientStatus":
    case "PermanentStatus":
      return `status ${failure.status} ${onAttempt}`
    case "DecodeError":
      return `the body of status ${failure.status} ${bodyTooLargeMessage(failure.cause) ?? "did not decode"} ${onAttempt}`
  }
}

const concurrencyLimitedTag = "ConcurrencyLimitReached"

const concurrencyLimited = (cause: unknown): string => {
  const full = messageOf(cause, concurrencyLimitedTag)
  return full === undefined ? connectionReasons.ConcurrencyLimited : `not sent: ${full}`
}

const attempts = (count: number): string => `${count} ${count === 1 ? "attempt" : "attempts"}`

// Retried by default: only the policy's `isTransientConnectionError` refuses them. It names the
// cause's code when there is one (what such a predicate reads).
const notTransientConnection = (cause: unknown): string =>
  `the policy's isTransientConnectionError does not count ${TransportFailure.causeCodes(cause)[0] ?? "it"} as transient`

const notRetryableBecause = (failure: Failure): string => {
  switch (failure._tag) {
    case "PermanentStatus":
      return `status ${failure.status} is not transient`
    case "TransientStatus":
      return `the policy does not count status ${failure.status} as transient`
    case "DecodeError":
      return "the server answered, and would answer the same again"
    case "ConnectionError":
      return failure.reason === "InvalidRequest"
        ? "the request cannot be sent"
        : failure.reason === "Transport" || failure.reason === "Timeout"
          ? notTransientConnection(failure.cause)
          : "sending again cannot cure it"
  }
}

/**
 * Why the call stopped, in words: "gave up after 3 attempts", "not retried: POST is not
 * idempotent (...)".
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeGiveUp = (failure: Failure, reason: GiveUpReason): string => {
  // Nothing was sent: the origin's cool-down, asked by another call's 429, stopped this one.
  if (failure._tag === "ConnectionError" && failure.reason === "CoolingDown") {
    return reason === "deadline-exceeded"
      ? "gave up: the total timeout would pass before the cool-down ends"
      : "gave up: the cool-down is longer than maxDelay"
  }
  switch (reason) {
    case "not-retryable":
      return `not retried: ${notRetryableBecause(failure)}`
    case "server-declined":
      return "not retried: the server said not to (x-should-retry or Stripe-Should-Retry: false)"
    case "not-idempotent":
      return `not retried: ${failure.request.method} is not idempotent (send an Idempotency-Key header, or set retryNonIdempotent)`
    case "one-shot-body":
      return "not retried: its body is a one-shot stream that cannot be sent again"
    case "attempts-exhausted":
      return `gave up after ${attempts(failure.attempt)}`
    case "retry-after-exceeds-max-delay":
      return "gave up: the server's Retry-After is longer than maxDelay"
    case "deadline-exceeded":
      return `gave up after ${attempts(failure.attempt)}: the total timeout would pass before the next attempt`
    case "retry-budget-exhausted":
      return "gave up: the retry budget for this origin is spent (too many retries to it lately)"
    case "circuit-open":
      return "gave up: the circuit breaker for this origin is open"
    case "concurrency-limit":
      return "gave up: the concurrency limit for this origin and its queue are full"
    case "rate-limit":
      return "gave up: the rate limit would pass the deadline"
    case "body-idle-timeout":
      return "not retried: the response was handed over"
  }
}

/**
 * What happened and, once the call stopped, why: "status 503 on attempt 3; gave up after 3
 * attempts".
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeOutcome = (failure: Failure): string => {
  const reason = failure.giveUpReason
  const what = whatHappened(failure)
  // A call stopped by an open circuit, or by credentials it could not send, before it sent
  // anything: the first clause says it all.
  const saidAlready =
    failure._tag === "ConnectionError" &&
    ((reason === "circuit-open" && failure.reason === "CircuitOpen") ||
      (reason === "concurrency-limit" && failure.reason === "ConcurrencyLimited") ||
      (reason === "not-retryable" && isUrlCredentialsRefusal(failure)) ||
      (reason === "rate-limit" && failure.reason === "RateLimited"))
  return reason === undefined || saidAlready ? what : `${what}; ${describeGiveUp(failure, reason)}`
}

/**
 * The whole message: the request line, its URL redacted (by default Effect 4's rules: user info
 * and signing query parameters), then {@link describeOutcome}.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeFailure = (failure: Failure, redactUrl: (url: string) => string = redactByDefault): string =>
  `${failure.request.method} ${redactUrl(failure.request.url)}: ${describeOutcome(failure)}`

const redactByDefault = (url: string): string => Redaction.redactUrl(url, Redaction.defaultUrlParamNames)

/**
 * Why the rate limit did not send an attempt: "the rate limit of 10 per 1000 ms for
 * https://api.example.com:443 has no token for 1500 ms, past the deadline".
 *
 * @since 0.2.0
 * @category formatting
 */
export const describeRateLimited = (refusal: {
  readonly key: string
  readonly limit: number | undefined
  readonly windowMillis: number | undefined
  readonly waitMillis: number
}): string => {
  const which =
    refusal.limit === undefined || refusal.windowMillis === undefined
      ? "the rate limit the server announced"
      : `the rate limit of ${refusal.limit} per ${refusal.windowMillis} ms`
  return `${which} for ${refusal.key} has no token for ${Math.ceil(refusal.waitMillis)} ms, past the deadline`
}
