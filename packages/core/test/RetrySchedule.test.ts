import type { ConnectionFailureReason } from "../src/FailureMessage.js"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as RetrySchedule from "../src/RetrySchedule.js"

const policy = (overrides: Partial<RetrySchedule.Policy> = {}): RetrySchedule.Policy => ({
  maxAttempts: 3,
  backoff: { _tag: "Exponential", baseMillis: 500, factor: 2 },
  maxDelayMillis: 30_000,
  maxElapsedMillis: Number.POSITIVE_INFINITY,
  jitter: "none",
  respectRetryAfter: true,
  giveUpOverCap: false,
  ...overrides
})
const fresh: RetrySchedule.FailureInput = { refusal: undefined, serverDelayMillis: undefined }

/** Runs the schedule over failures at the times it asks for, drawing `draw` for every jitter. */
const decisions = (
  p: RetrySchedule.Policy,
  failures: ReadonlyArray<RetrySchedule.FailureInput>,
  draw = 0.5
): Array<RetrySchedule.Decision> => {
  let state = RetrySchedule.initialState(p)
  let now = 0
  const out: Array<RetrySchedule.Decision> = []
  for (const failure of failures) {
    const planned = RetrySchedule.step(p, state, now, failure)
    const step = "complete" in planned ? planned.complete(draw) : planned
    state = step.state
    out.push(step.decision)
    if (step.decision._tag === "GiveUp") break
    now += step.decision.delayMillis
  }
  return out
}

describe("RetrySchedule", () => {
  it("backoff: linear, constant, exponential (base 0 stays 0)", () => {
    expect(
      [1, 2, 3].map((n) => RetrySchedule.backoffMillis({ _tag: "Linear", baseMillis: 500, factor: 1 }, n))
    ).toEqual([500, 1000, 1500])
    expect(RetrySchedule.backoffMillis({ _tag: "Constant", baseMillis: 70, factor: 1 }, 9)).toBe(70)
    expect(RetrySchedule.backoffMillis({ _tag: "Exponential", baseMillis: 500, factor: 3 }, 3)).toBe(4500)
    expect(RetrySchedule.backoffMillis({ _tag: "Exponential", baseMillis: 0, factor: 2 }, 5000)).toBe(0)
  })

  it("retries maxAttempts - 1 times, then gives up with attempts-exhausted", () => {
    expect(decisions(policy(), [fresh, fresh, fresh])).toEqual([
      { _tag: "Retry", attempt: 1, delayMillis: 500, source: "backoff", capped: false },
      { _tag: "Retry", attempt: 2, delayMillis: 1000, source: "backoff", capped: false },
      { _tag: "GiveUp", attempt: 3, reason: "attempts-exhausted" }
    ])
  })

  it("a refusal stops at once; a server delay replaces the backoff, capped, or gives up over the cap", () => {
    expect(decisions(policy(), [{ refusal: "not-idempotent", serverDelayMillis: undefined }])).toEqual([
      { _tag: "GiveUp", attempt: 1, reason: "not-idempotent" }
    ])
    const server = { refusal: undefined, serverDelayMillis: 5_000 }
    expect(decisions(policy({ maxDelayMillis: 2_000 }), [server])[0]).toEqual({
      _tag: "Retry",
      attempt: 1,
      delayMillis: 2_000,
      source: "retry-after",
      capped: true
    })
    expect(decisions(policy({ maxDelayMillis: 2_000, giveUpOverCap: true }), [server])[0]).toEqual({
      _tag: "GiveUp",
      attempt: 1,
      reason: "retry-after-exceeds-max-delay"
    })
    expect(decisions(policy({ respectRetryAfter: false }), [server])[0]).toMatchObject({ delayMillis: 500 })
  })

  it("maxElapsed: a wait that would end past it is not taken", () => {
    expect(decisions(policy({ maxAttempts: 9, maxElapsedMillis: 1_000 }), [fresh, fresh, fresh])).toEqual([
      { _tag: "Retry", attempt: 1, delayMillis: 500, source: "backoff", capped: false },
      { _tag: "GiveUp", attempt: 2, reason: "deadline-exceeded" }
    ])
  })

  it("equal jitter draws in [v/2, v]; full in [0, v]; a cut backoff is capped", () => {
    expect(decisions(policy({ jitter: "equal" }), [fresh], 0)[0]).toMatchObject({ delayMillis: 250 })
    expect(decisions(policy({ jitter: "full" }), [fresh], 0.5)[0]).toMatchObject({ delayMillis: 250 })
    expect(decisions(policy({ jitter: "equal", maxDelayMillis: 400 }), [fresh], 1)[0]).toMatchObject({
      delayMillis: 400,
      capped: true
    })
  })

  it("no jitter draws nothing", () => {
    expect("complete" in RetrySchedule.step(policy(), RetrySchedule.initialState(policy()), 0, fresh)).toBe(false)
  })

  it("every wait is within [0, maxDelay], whatever the jitter, backoff and server delay", () =>
    fc.assert(
      fc.property(
        fc.constantFrom<RetrySchedule.Jitter>("none", "full", "equal", "decorrelated"),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 60_000 }),
        fc.array(fc.option(fc.integer({ min: 0, max: 10 ** 9 }), { nil: undefined }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (jitter, baseMillis, maxDelayMillis, serverDelays, draw) => {
          const p = policy({
            jitter,
            maxAttempts: 10,
            maxDelayMillis,
            backoff: { _tag: "Exponential", baseMillis, factor: 2 }
          })
          const failures = serverDelays.map((serverDelayMillis) => ({ refusal: undefined, serverDelayMillis }))
          for (const decision of decisions(p, failures, draw)) {
            if (decision._tag === "Retry") {
              expect(decision.delayMillis).toBeGreaterThanOrEqual(0)
              expect(decision.delayMillis).toBeLessThanOrEqual(maxDelayMillis)
              expect(Number.isInteger(decision.delayMillis)).toBe(true)
            }
          }
        }
      )
    ))

  it("refusal: a caller's isTransientConnectionError decides a sent connection failure, never an unsent one", () => {
    const request = { method: "GET", url: "/", headers: {}, body: { _tag: "Empty" } }
    const connection = (reason: ConnectionFailureReason) =>
      ({ _tag: "ConnectionError", request, attempt: 1, reason }) as const
    const policy = { isTransientStatus: () => true, retryNonIdempotent: false }
    const always = { ...policy, isTransientConnectionError: () => true }
    for (const reason of ["Transport", "Timeout", "InvalidRequest", "Unrecoverable"] as const) {
      expect(RetrySchedule.refusal(connection(reason), always)).toBeUndefined()
      expect(RetrySchedule.refusal(connection(reason), { ...policy, isTransientConnectionError: () => false })).toBe(
        "not-retryable"
      )
    }
    for (const reason of ["CircuitOpen", "CoolingDown", "ConcurrencyLimited", "RateLimited"] as const) {
      expect(RetrySchedule.refusal(connection(reason), always)).toBe("not-retryable")
    }
    // Without one: Transport and Timeout, as before.
    expect(RetrySchedule.refusal(connection("Transport"), policy)).toBeUndefined()
    expect(RetrySchedule.refusal(connection("Unrecoverable"), policy)).toBe("not-retryable")
    // The idempotency rules still apply.
    expect(RetrySchedule.refusal({ ...connection("Transport"), request: { ...request, method: "POST" } }, always)).toBe(
      "not-idempotent"
    )
  })

  it("refusal: kind, transient set, idempotency, one-shot body", () => {
    const request = { method: "GET", url: "/", headers: {}, body: { _tag: "Empty" } }
    const lenient = { isTransientStatus: () => true, retryNonIdempotent: false }
    const transient = { _tag: "TransientStatus", request, attempt: 1, status: 503 } as const
    expect(RetrySchedule.refusal(transient, lenient)).toBeUndefined()
    expect(RetrySchedule.refusal(transient, { ...lenient, isTransientStatus: () => false })).toBe("not-retryable")
    expect(RetrySchedule.refusal({ ...transient, request: { ...request, method: "POST" } }, lenient)).toBe(
      "not-idempotent"
    )
    expect(
      RetrySchedule.refusal(
        { ...transient, request: { ...request, method: "POST" } },
        { ...lenient, retryNonIdempotent: true }
      )
    ).toBeUndefined()
    expect(RetrySchedule.refusal({ ...transient, request: { ...request, body: { _tag: "Stream" } } }, lenient)).toBe(
      "one-shot-body"
    )
    expect(
      RetrySchedule.refusal({ _tag: "ConnectionError", request, attempt: 1, reason: "InvalidRequest" }, lenient)
    ).toBe("not-retryable")
  })

  it("refusal: a server's shouldRetry stops a transient status, or makes any status transient, never a write", () => {
    const request = { method: "GET", url: "/", headers: {}, body: { _tag: "Empty" } }
    const policy = { isTransientStatus: (status: number) => status === 503, retryNonIdempotent: false }
    const unavailable = { _tag: "TransientStatus", request, attempt: 1, status: 503 } as const
    const conflict = { ...unavailable, status: 409 }
    expect(RetrySchedule.refusal(unavailable, policy, false)).toBe("server-declined")
    expect(RetrySchedule.refusal(unavailable, policy, undefined)).toBeUndefined()
    expect(RetrySchedule.refusal(conflict, policy, true)).toBeUndefined()
    expect(RetrySchedule.refusal(conflict, policy, undefined)).toBe("not-retryable")
    // `true` never retries a POST without a key, nor a one-shot body.
    expect(RetrySchedule.refusal({ ...conflict, request: { ...request, method: "POST" } }, policy, true)).toBe(
      "not-idempotent"
    )
    expect(
      RetrySchedule.refusal({ ...conflict, request: { ...request, body: { _tag: "Stream" } } }, policy, true)
    ).toBe("one-shot-body")
    // A failure of a kind that cannot be cured stays so whatever the server says.
    expect(
      RetrySchedule.refusal({ _tag: "ConnectionError", request, attempt: 1, reason: "InvalidRequest" }, policy, true)
    ).toBe("not-retryable")
    // QUERY is retried as GET is.
    expect(RetrySchedule.refusal({ ...unavailable, request: { ...request, method: "QUERY" } }, policy)).toBeUndefined()
  })

  it("a plain schedule's wait with the server's delay: replaced, capped, or stopped", () => {
    const cap = { capMillis: 2_000, giveUpOverCap: false }
    expect(RetrySchedule.withServerDelay(100, undefined, cap)).toBe(100)
    expect(RetrySchedule.withServerDelay(100, 1_500, cap)).toBe(1_500)
    expect(RetrySchedule.withServerDelay(9_000, undefined, cap)).toBe(2_000)
    expect(RetrySchedule.withServerDelay(100, 5_000, { ...cap, giveUpOverCap: true })).toBeUndefined()
    expect(RetrySchedule.inferSource(5_000, 2_000)).toEqual({ source: "retry-after", capped: true })
    expect(RetrySchedule.inferSource(undefined, 300)).toEqual({ source: "backoff", capped: false })
  })
})
