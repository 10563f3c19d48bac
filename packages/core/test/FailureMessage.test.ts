import { describe, expect, it } from "vitest"
import * as FailureMessage from "../src/FailureMessage.js"

const request = { method: "POST", url: "https://api.example.com/orders" }
const transient = (attempt: number, giveUpReason?: FailureMessage.GiveUpReason): FailureMessage.Failure => ({
  _tag: "TransientStatus",
  request,
  attempt,
  status: 503,
  giveUpReason
})

describe("FailureMessage", () => {
  it("says what happened, on which attempt, and why the call stopped", () => {
    expect(FailureMessage.describeFailure(transient(3, "attempts-exhausted"))).toBe(
      "POST https://api.example.com/orders: status 503 on attempt 3; gave up after 3 attempts"
    )
    expect(FailureMessage.describeOutcome(transient(1, "not-idempotent"))).toBe(
      "status 503 on attempt 1; not retried: POST is not idempotent (send an Idempotency-Key header, or set retryNonIdempotent)"
    )
    expect(FailureMessage.describeOutcome(transient(1, "deadline-exceeded"))).toBe(
      "status 503 on attempt 1; gave up after 1 attempt: the total timeout would pass before the next attempt"
    )
    expect(FailureMessage.describeOutcome(transient(2))).toBe("status 503 on attempt 2")
  })

  it("explains why a failure is not retryable, by kind", () => {
    const base = { request, attempt: 1, giveUpReason: "not-retryable" } as const
    expect(FailureMessage.describeOutcome({ ...base, _tag: "PermanentStatus", status: 404 })).toBe(
      "status 404 on attempt 1; not retried: status 404 is not transient"
    )
    expect(FailureMessage.describeOutcome({ ...base, _tag: "ConnectionError", reason: "InvalidRequest" })).toBe(
      "the request could not be sent on attempt 1; not retried: the request cannot be sent"
    )
    expect(FailureMessage.describeOutcome({ ...base, _tag: "ConnectionError", reason: "Unrecoverable" })).toBe(
      "unrecoverable transport failure on attempt 1; not retried: sending again cannot cure it"
    )
    expect(
      FailureMessage.describeOutcome({ ...base, _tag: "DecodeError", status: 200, cause: new SyntaxError() })
    ).toBe(
      "the body of status 200 did not decode on attempt 1; not retried: the server answered, and would answer the same again"
    )
  })

  it("an open circuit that stopped a call before it sent anything says so once, in one sentence", () => {
    const notSent = { _tag: "ConnectionError", request, attempt: 1, reason: "CircuitOpen" } as const
    expect(FailureMessage.describeFailure({ ...notSent, giveUpReason: "circuit-open" })).toBe(
      "POST https://api.example.com/orders: not sent: the circuit breaker for this origin is open"
    )
    expect(FailureMessage.describeOutcome(notSent)).toBe("not sent: the circuit breaker for this origin is open")
    // After a real failure, the failure comes first and the circuit says why no retry followed.
    expect(FailureMessage.describeOutcome(transient(2, "circuit-open"))).toBe(
      "status 503 on attempt 2; gave up: the circuit breaker for this origin is open"
    )
  })

  it("a full concurrency limit says which limit and queue were full, once; after a real failure, why it stopped", () => {
    const cause = {
      _tag: "ConcurrencyLimitReached",
      message: "the concurrency limit for this origin (2 in flight) and its queue (1 waiting) are full"
    }
    const refused = { _tag: "ConnectionError", request, attempt: 1, reason: "ConcurrencyLimited", cause } as const
    expect(FailureMessage.describeFailure({ ...refused, giveUpReason: "concurrency-limit" })).toBe(
      "POST https://api.example.com/orders: not sent: the concurrency limit for this origin (2 in flight) and its queue (1 waiting) are full"
    )
    expect(FailureMessage.describeOutcome({ ...refused, cause: undefined })).toBe(
      "not sent: the concurrency limit for this origin and its queue are full"
    )
    expect(FailureMessage.describeOutcome(transient(2, "concurrency-limit"))).toBe(
      "status 503 on attempt 2; gave up: the concurrency limit for this origin and its queue are full"
    )
  })

  it("a body over the reader's limit says so in its own words", () => {
    const cause = { _tag: "BodyTooLarge", message: "is larger than the limit of 10 bytes (it declares 20)" }
    expect(FailureMessage.describeOutcome({ _tag: "DecodeError", request, attempt: 1, status: 200, cause })).toBe(
      "the body of status 200 is larger than the limit of 10 bytes (it declares 20) on attempt 1"
    )
  })

  it("has words for every give-up reason", () => {
    const reasons: ReadonlyArray<FailureMessage.GiveUpReason> = [
      "not-retryable",
      "server-declined",
      "not-idempotent",
      "one-shot-body",
      "attempts-exhausted",
      "retry-after-exceeds-max-delay",
      "deadline-exceeded",
      "retry-budget-exhausted",
      "circuit-open"
    ]
    const messages = reasons.map((reason) => FailureMessage.describeGiveUp(transient(2), reason))
    expect(new Set(messages).size).toBe(reasons.length)
    for (const message of messages) expect(message).toMatch(/^(gave up|not retried)/)
  })
})

describe("a call the origin's cool-down stopped before it sent anything", () => {
  it("says nothing was sent, and why it stopped", () => {
    const failure = {
      _tag: "ConnectionError",
      request: { method: "GET", url: "https://api.example.com/items" },
      attempt: 1,
      reason: "CoolingDown"
    } as const
    expect(FailureMessage.describeOutcome({ ...failure, giveUpReason: "deadline-exceeded" })).toBe(
      "not sent: the origin is cooling down after a 429 with Retry-After; gave up: the total timeout would pass before the cool-down ends"
    )
    expect(FailureMessage.describeOutcome({ ...failure, giveUpReason: "retry-after-exceeds-max-delay" })).toBe(
      "not sent: the origin is cooling down after a 429 with Retry-After; gave up: the cool-down is longer than maxDelay"
    )
  })
})
