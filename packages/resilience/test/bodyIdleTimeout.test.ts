// @generated from templates/test/bodyIdleTimeout.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The body idle timeout (issue #44) on the TestClock: a body that stalls fails its read exactly
 * `bodyIdleTimeout` after its last bytes, as a `ConnectionError` `"Timeout"`; `getJson` retries
 * it by the usual rules; a body handed to the caller fails the caller's read. A bad duration is
 * an `InvalidRetryPolicy` naming the option.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Fiber, Schema, Stream, TestClock } from "effect"
import { HttpClient } from "@effect/platform"
import * as BodyIdleTimeout from "../src/BodyIdleTimeout.js"
import * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as Testing from "../src/Testing.js"

// The attempt time limit far above the idle limit: what ends a read is the idle limit.
const policy = {
  maxAttempts: 3,
  jitter: "none",
  backoff: RetryPolicy.constant("1 second"),
  attemptTimeout: "1 minute",
  totalTimeout: "5 minutes",
  retryBudget: "none",
  bodyIdleTimeout: BodyIdleTimeout.make("5 seconds")
} as const

const stalled: Testing.ScriptStep = {
  status: 200,
  headers: { "content-type": "application/json" },
  body: "[1,",
  bodyStalls: true
}
const whole: Testing.ScriptStep = { status: 200, headers: { "content-type": "application/json" }, body: "[1,2]" }

// Runs `effect` to its end on the TestClock, with the clock's time when it ended.
const timed = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(
      Effect.flatMap(Effect.either(effect), (outcome) =>
        Effect.map(Clock.currentTimeMillis, (endedAtMillis) => ({ outcome, endedAtMillis }))
      )
    )
    yield* TestClock.adjust("1 hour")
    return yield* Fiber.join(fiber)
  })

// The library's failure in a platform error's cause, as a handed-over body's read fails.
const connectionErrorIn = (error: unknown): HttpFailure.ConnectionError | undefined => {
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  return HttpFailure.isConnectionError(cause) ? cause : undefined
}

describe("BodyIdleTimeout", () => {
  it("is a finite duration of at least 1 ms; anything else is an InvalidRetryPolicy naming the option", () => {
    expect(Duration.toMillis(BodyIdleTimeout.make("250 millis").timeout)).toBe(250)
    for (const bad of [0, -1, Number.NaN, Duration.infinity]) {
      expect(() => BodyIdleTimeout.make(bad)).toThrow(
        expect.objectContaining({ _tag: "InvalidRetryPolicy", option: "bodyIdleTimeout" })
      )
    }
    // A plain duration is not the stage: the option says how to build one.
    const options: RetryPolicy.Options = JSON.parse('{"bodyIdleTimeout": 5000}')
    expect(() => RetryPolicy.make(options)).toThrow(
      `Invalid retry policy option "bodyIdleTimeout": must be built with BodyIdleTimeout.make; leave it out for none (got 5000)`
    )
  })

  it.effect("a handed-over body that stalls fails the caller's read 5 s after its last bytes, not retried", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([stalled, whole])
      const client = scripted.client.pipe(ResilientHttpClient.withResilience(policy))
      const { outcome, endedAtMillis } = yield* timed(
        Effect.scoped(
          Effect.flatMap(client.get("https://stall.test/items"), (response) => Stream.runDrain(response.stream))
        )
      )
      expect(endedAtMillis).toBe(5000)
      assert(Either.isLeft(outcome))
      const failure = connectionErrorIn(outcome.left)
      expect(failure).toMatchObject({ reason: "Timeout", attempt: 1, giveUpReason: "body-idle-timeout" })
      expect(BodyIdleTimeout.isBodyIdleTimeoutExceeded(failure?.cause)).toBe(true)
      expect(failure?.message).toBe(
        "GET https://stall.test/items: the body stalled: no byte for 5000 ms (bodyIdleTimeout) on attempt 1; not retried: the response was handed over"
      )
      expect((yield* scripted.requests).length).toBe(1)
    })
  )

  it.effect("through layerHttpClient, response.json on a stalled body fails at 5 s with the platform's error", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([stalled])
      const { outcome, endedAtMillis } = yield* timed(
        HttpClient.get("https://stall.test/json").pipe(
          Effect.flatMap((response) => response.json),
          Effect.provide(ResilientHttpClient.layerHttpClient(policy)),
          Effect.provide(scripted.layer)
        )
      )
      expect(endedAtMillis).toBe(5000)
      assert(Either.isLeft(outcome))
      expect(outcome.left._tag).toBe("ResponseError")
      expect(connectionErrorIn(outcome.left)).toMatchObject({ reason: "Timeout", giveUpReason: "body-idle-timeout" })
    })
  )

  it.effect(
    "getJson retries a stalled body by the usual rules: 5 s, 1 s wait, 5 s, 1 s wait, then the whole body",
    () =>
      Effect.gen(function* () {
        const scripted = yield* Testing.scriptedHttpClient([stalled, stalled, whole])
        const service = yield* Effect.provide(ResilientHttpClient.make(policy), scripted.layer)
        const { outcome, endedAtMillis } = yield* timed(
          service.getJson("https://stall.test/json", Schema.Array(Schema.Number))
        )
        expect(outcome).toEqual(Either.right([1, 2]))
        expect(endedAtMillis).toBe(12_000)
        expect((yield* scripted.requests).map((request) => request.sentAtMillis)).toEqual([0, 6000, 12_000])
      })
  )

  it.effect("getJson gives up on a body that stalls every time: a Timeout on attempt 3, attempts exhausted", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([stalled])
      const service = yield* Effect.provide(ResilientHttpClient.make(policy), scripted.layer)
      const { outcome, endedAtMillis } = yield* timed(service.getJson("https://stall.test/json", Schema.Unknown))
      expect(endedAtMillis).toBe(17_000)
      assert(Either.isLeft(outcome))
      const failure = outcome.left
      expect(failure).toMatchObject({
        _tag: "ConnectionError",
        reason: "Timeout",
        attempt: 3,
        giveUpReason: "attempts-exhausted"
      })
      assert(failure._tag === "ConnectionError")
      expect(BodyIdleTimeout.isBodyIdleTimeoutExceeded(failure.cause)).toBe(true)
      expect(failure.message).toContain(
        "the body stalled: no byte for 5000 ms (bodyIdleTimeout) on attempt 3; gave up after 3 attempts"
      )
    })
  )

  it.effect("without the option, a stalled body waits on (the attempt time limit bounds getJson)", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([stalled])
      const { bodyIdleTimeout: _, ...withoutIdle } = policy
      const service = yield* Effect.provide(
        ResilientHttpClient.make({ ...withoutIdle, maxAttempts: 1 }),
        scripted.layer
      )
      const { outcome, endedAtMillis } = yield* timed(service.getJson("https://stall.test/json", Schema.Unknown))
      expect(endedAtMillis).toBe(60_000)
      assert(Either.isLeft(outcome))
      expect(HttpFailure.isConnectionError(outcome.left) && outcome.left.reason).toBe("Timeout")
    })
  )
})
