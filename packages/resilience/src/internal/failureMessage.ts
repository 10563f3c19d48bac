import * as Predicate from "effect/Predicate"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"

const connectionReasons: Record<HttpFailure.ConnectionFailureReason, string> = {
  Transport: "transport failure",
  Timeout: "no response in time",
  InvalidRequest: "the request could not be sent",
  Unrecoverable: "unrecoverable transport failure"
}

const whatHappened = (failure: HttpFailure.HttpFailure): string => {
  const onAttempt = `on attempt ${failure.attempt}`
  switch (failure._tag) {
    case "ConnectionError":
      return `${connectionReasons[failure.reason]} ${onAttempt}`
    case "TransientStatus":
    case "PermanentStatus":
      return `status ${failure.status} ${onAttempt}`
    case "DecodeError": {
      const cause = failure.cause
      const tooLarge = Predicate.isTagged(cause, "BodyTooLarge") && Predicate.hasProperty(cause, "message")
      return `the body of status ${failure.status} ${tooLarge ? String(cause.message) : "did not decode"} ${onAttempt}`
    }
  }
}

/**
 * What happened and, once the call stopped, why: "status 503 on attempt 3; gave up after 3
 * attempts". The failure's `message` puts the request before it.
 *
 * @internal
 */
export const describeOutcome = (failure: HttpFailure.HttpFailure): string => {
  const reason = failure.giveUpReason
  const what = whatHappened(failure)
  return reason === undefined ? what : `${what}; ${describeGiveUp(failure, reason)}`
}

/** @internal */
export const describeFailure = (failure: HttpFailure.HttpFailure): string =>
  `${failure.request.method} ${failure.request.url}: ${describeOutcome(failure)}`

const describeGiveUp = (failure: HttpFailure.HttpFailure, reason: RetryPolicy.GiveUpReason): string => {
  switch (reason) {
    case "not-retryable":
      return `not retried: ${notRetryableBecause(failure)}`
    case "not-idempotent":
      return `not retried: ${failure.request.method} is not idempotent (send an Idempotency-Key header, or set retryNonIdempotent)`
    case "one-shot-body":
      return "not retried: its body is a one-shot stream that cannot be sent again"
    case "attempts-exhausted":
      return `gave up after ${failure.attempt} ${failure.attempt === 1 ? "attempt" : "attempts"}`
    case "retry-after-exceeds-max-delay":
      return "gave up: the server's Retry-After is longer than maxDelay"
    case "deadline-exceeded":
      return `gave up after ${failure.attempt} ${failure.attempt === 1 ? "attempt" : "attempts"}: the total timeout would pass before the next attempt`
    case "retry-budget-exhausted":
      return "gave up: the retry budget for this origin is spent (too many retries to it lately)"
    case "circuit-open":
      return "gave up: the circuit breaker for this origin is open"
  }
}

const notRetryableBecause = (failure: HttpFailure.HttpFailure): string => {
  switch (failure._tag) {
    case "PermanentStatus":
      return `status ${failure.status} is not transient`
    case "TransientStatus":
      return `the policy does not count status ${failure.status} as transient`
    case "DecodeError":
      return "the server answered, and would answer the same again"
    case "ConnectionError":
      return failure.reason === "InvalidRequest" ? "the request cannot be sent" : "sending again cannot cure it"
  }
}
