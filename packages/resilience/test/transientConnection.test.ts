// @generated from templates/test/transientConnection.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Which transport failures retry is the caller's to say (issue #44, item 3):
 * `isTransientConnectionError`, a predicate over our `ConnectionError` (its reason and its
 * cause's codes), as `isTransientStatus` is for statuses. On the TestClock over the scripted
 * transport: exact attempt counts and send times. The real-socket case (a refused port) is
 * test/e2e/transientConnection.e2e.test.ts; the conformance scenarios
 * `transient-connection-by-code-*` play it on both lines.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Fiber, TestClock } from "effect"
import { HttpClientRequest } from "@effect/platform"
import * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as Testing from "../src/Testing.js"

const exact = {
  maxAttempts: 4,
  jitter: "none",
  backoff: RetryPolicy.constant("100 millis"),
  retryBudget: "none"
} as const
const resetsOnly = (failure: HttpFailure.ConnectionError) => HttpFailure.causeCodes(failure).includes("ECONNRESET")

// One call through a scripted transport, run to its end on the TestClock: its failure (or
// status) and when each request was sent.
const play = (
  script: Testing.Script,
  options: RetryPolicy.Options,
  request: HttpClientRequest.HttpClientRequest = HttpClientRequest.get("https://transient.test/items")
) =>
  Effect.gen(function* () {
    const startedAt = yield* Clock.currentTimeMillis
    const scripted = yield* Testing.scriptedHttpClient(script)
    const fiber = yield* ResilientHttpClient.make(RetryPolicy.make(options)).pipe(
      Effect.flatMap((service) => service.execute(request)),
      Effect.map((response) => response.status),
      Effect.scoped,
      Effect.provide(scripted.layer),
      Effect.either,
      Effect.fork
    )
    yield* TestClock.adjust("1 minute")
    const outcome = yield* Fiber.join(fiber)
    const sentAt = (yield* scripted.requests).map((sent) => sent.sentAtMillis - startedAt)
    return { outcome, sentAt }
  })

const failureOf = <A>(outcome: Either.Either<A, HttpFailure.HttpFailure>): HttpFailure.ConnectionError => {
  assert(Either.isLeft(outcome))
  const failure = outcome.left
  assert(failure._tag === "ConnectionError")
  return failure
}

describe("Effect 3 isTransientConnectionError: the caller says which transport failures retry", () => {
  it.effect("retries ECONNRESET by its code: 3 resets, then a 200 on attempt 4", () =>
    Effect.gen(function* () {
      const reset = { transportError: "socket hang up", code: "ECONNRESET" } as const
      const { outcome, sentAt } = yield* play([reset, reset, reset, { status: 200 }], {
        ...exact,
        isTransientConnectionError: resetsOnly
      })
      expect(outcome).toEqual(Either.right(200))
      expect(sentAt).toEqual([0, 100, 200, 300])
    })
  )

  it.effect("never retries what it does not name: ENOTFOUND ends the call at attempt 1, and the message says why", () =>
    Effect.gen(function* () {
      const { outcome, sentAt } = yield* play([{ transportError: "getaddrinfo ENOTFOUND", code: "ENOTFOUND" }], {
        ...exact,
        isTransientConnectionError: resetsOnly
      })
      const failure = failureOf(outcome)
      expect([failure.reason, failure.attempt, failure.giveUpReason]).toEqual(["Transport", 1, "not-retryable"])
      expect(HttpFailure.causeCodes(failure)).toContain("ENOTFOUND")
      expect(failure.message).toContain(
        "not retried: the policy's isTransientConnectionError does not count ENOTFOUND as transient"
      )
      expect(sentAt).toEqual([0])
    })
  )

  it.effect("the default is as before: ENOTFOUND is a transport failure, retried to maxAttempts", () =>
    Effect.gen(function* () {
      const { outcome, sentAt } = yield* play([{ transportError: "getaddrinfo ENOTFOUND", code: "ENOTFOUND" }], exact)
      const failure = failureOf(outcome)
      expect([failure.reason, failure.attempt, failure.giveUpReason]).toEqual(["Transport", 4, "attempts-exhausted"])
      expect(sentAt).toEqual([0, 100, 200, 300])
      expect(RetryPolicy.defaults.isTransientConnectionError).toBe(RetryPolicy.isDefaultTransientConnectionError)
    })
  )

  it.effect("retries a failure of the caller's own client by its code, which the default deems unrecoverable", () =>
    Effect.gen(function* () {
      // A redirect loop is unrecoverable by default; this caller's client clears it between tries.
      const loop = { transportError: "redirect count exceeded", code: "ERR_TOO_MANY_REDIRECTS" } as const
      const byDefault = yield* play([loop, { status: 204 }], exact)
      expect([failureOf(byDefault.outcome).reason, byDefault.sentAt]).toEqual(["Unrecoverable", [0]])
      const named = yield* play([loop, { status: 204 }], {
        ...exact,
        isTransientConnectionError: (failure) => HttpFailure.causeCodes(failure).includes("ERR_TOO_MANY_REDIRECTS")
      })
      expect([named.outcome, named.sentAt]).toEqual([Either.right(204), [0, 100]])
    })
  )

  it.effect("the idempotency rules still apply: a POST without an Idempotency-Key is not retried", () =>
    Effect.gen(function* () {
      const { outcome, sentAt } = yield* play(
        [{ transportError: "socket hang up", code: "ECONNRESET" }, { status: 200 }],
        { ...exact, isTransientConnectionError: () => true },
        HttpClientRequest.post("https://transient.test/orders")
      )
      expect([failureOf(outcome).giveUpReason, sentAt]).toEqual(["not-idempotent", [0]])
    })
  )

  it.effect("reads the reason: timeouts retried, transport failures not", () =>
    Effect.gen(function* () {
      // An attempt limit of 50 ms over a hanging transport: each attempt a Timeout.
      const { outcome, sentAt } = yield* play([{ hang: true }], {
        ...exact,
        attemptTimeout: "50 millis",
        isTransientConnectionError: (failure) => failure.reason !== "Transport"
      })
      const failure = failureOf(outcome)
      expect([failure.reason, failure.attempt, failure.giveUpReason]).toEqual(["Timeout", 4, "attempts-exhausted"])
      expect(sentAt).toEqual([0, 150, 300, 450])
      const reset = yield* play([{ transportError: "socket hang up", code: "ECONNRESET" }], {
        ...exact,
        isTransientConnectionError: (failure) => failure.reason !== "Transport"
      })
      expect([failureOf(reset.outcome).giveUpReason, reset.sentAt]).toEqual(["not-retryable", [0]])
    })
  )

  it("a bad value is an InvalidRetryPolicy naming the option", () => {
    const invalid = RetryPolicy.validate({
      // @ts-expect-error a number is not a predicate
      isTransientConnectionError: 5
    })
    assert(Either.isLeft(invalid))
    expect(invalid.left).toMatchObject({ _tag: "InvalidRetryPolicy", option: "isTransientConnectionError", value: 5 })
    expect(() => RetryPolicy.make({ isTransientConnectionError: null as never })).toThrow(/isTransientConnectionError/)
  })
})
