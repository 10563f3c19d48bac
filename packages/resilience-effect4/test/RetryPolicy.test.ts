/**
 * The retry policy on Effect 4: its options checked as the Effect 3 line checks them (the core's
 * checks over Effect 4's Duration), its schedule's waits on the TestClock, and RetryAfter
 * against Effect 4's own `Headers.parseRetryAfter`.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Option, Pull, Result, Schedule } from "effect"
import { Headers, HttpClient, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryAfter from "../src/RetryAfter.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const transient = (status: number, retryAfter?: Duration.Duration, attempt = 1) =>
  new HttpFailure.TransientStatus({
    request: HttpClientRequest.get("http://api.test/"),
    attempt,
    status,
    headers: Headers.empty,
    retryAfter: Option.fromUndefinedOr(retryAfter)
  })

/** The waits the policy's schedule asks for, failure after failure, until it gives up (and why). */
const waits = (policy: RetryPolicy.RetryPolicy, failures: ReadonlyArray<HttpFailure.HttpFailure>) =>
  Effect.gen(function* () {
    const step = yield* Schedule.toStep(RetryPolicy.toSchedule(policy))
    const out: Array<number | RetryPolicy.GiveUpReason> = []
    for (const failure of failures) {
      const next = yield* Pull.matchEffect(step(0, failure), {
        onSuccess: ([, delay]) => Effect.succeed(Duration.toMillis(delay)),
        onFailure: Effect.failCause,
        onDone: (decision) => Effect.succeed(decision._tag === "GiveUp" ? decision.reason : "attempts-exhausted")
      })
      out.push(next)
      if (typeof next !== "number") break
    }
    return out
  })

describe("RetryPolicy options, Effect 4", () => {
  it("applies the documented defaults", () => {
    const policy = RetryPolicy.defaults
    expect(policy.maxAttempts).toBe(3)
    expect(policy.backoff).toEqual({ _tag: "Exponential", base: Duration.millis(500), factor: 2 })
    expect(Duration.toMillis(policy.maxDelay)).toBe(30_000)
    expect([policy.jitter, policy.retryAfter, policy.whenRetryAfterExceedsMaxDelay]).toEqual([
      "equal",
      "respect",
      "wait-max-delay"
    ])
    expect([408, 429, 500, 502, 503, 504].every(policy.isTransientStatus)).toBe(true)
    expect(policy.isTransientStatus(501)).toBe(false)
    expect(policy.retryNonIdempotent).toBe(false)
    expect(Duration.isFinite(policy.maxElapsed)).toBe(false)
    expect([Duration.toMillis(policy.attemptTimeout), Duration.toMillis(policy.totalTimeout)]).toEqual([10_000, 30_000])
    expect(policy.maxBodyBytes).toBe(16 * 1024 * 1024)
    expect(policy.retryBudget).toMatchObject({ _tag: "Finagle", ratio: 0.1, minPerSecond: 10 })
    expect(policy.circuitBreaker).toBeUndefined()
  })

  const invalid: ReadonlyArray<readonly [string, RetryPolicy.Options, string, string]> = [
    ["a zero maxAttempts", { maxAttempts: 0 }, "maxAttempts", "got 0"],
    ["NaN attempts", { maxAttempts: Number.NaN }, "maxAttempts", "got NaN"],
    ["a negative duration", { maxDelay: "-1 seconds" }, "maxDelay", 'got "-1 seconds"'],
    ["a negative Duration object", { attemptTimeout: { seconds: -1 } }, "attemptTimeout", "got { seconds: -1 }"],
    ["a zero cap", { maxDelay: 0 }, "maxDelay", "got 0"],
    ["an infinite cap", { maxDelay: "Infinity" }, "maxDelay", 'got "Infinity"'],
    ["a sub-millisecond limit", { totalTimeout: Duration.micros(10n) }, "totalTimeout", "got 10000ns"],
    [
      "an exponential factor below 1",
      { backoff: RetryPolicy.exponential("1 second", 0.5) },
      "backoff.factor",
      "got 0.5"
    ],
    [
      "a malformed Duration string",
      JSON.parse('{ "backoff": { "_tag": "Constant", "base": "soon" } }'),
      "backoff.base",
      'got "soon"'
    ],
    ["a bad byte count", { maxBodyBytes: 1.5 }, "maxBodyBytes", "got 1.5"]
  ]
  for (const [name, options, option, named] of invalid) {
    it(`refuses ${name}, naming "${option}" and the value as given`, () => {
      const result = RetryPolicy.validate(options)
      if (Result.isSuccess(result)) return assert.fail("expected an invalid policy")
      expect(result.failure.option).toBe(option)
      expect(result.failure.message).toContain(`"${option}"`)
      expect(result.failure.message).toContain(named)
      expect(() => RetryPolicy.make(options)).toThrow(RetryPolicy.InvalidRetryPolicy)
    })
  }

  it('accepts "infinity" where an option may be infinite', () => {
    expect(Duration.isFinite(RetryPolicy.make({ attemptTimeout: "infinity" }).attemptTimeout)).toBe(false)
    expect(Duration.isFinite(RetryPolicy.make({ totalTimeout: "Infinity" }).totalTimeout)).toBe(false)
  })

  it.effect(
    "a layer given plain options fails with InvalidRetryPolicy; given a policy or a Schedule it cannot fail",
    () =>
      Effect.gen(function* () {
        const transport = Layer.succeed(HttpClient.HttpClient, ScriptedHttpClient.make([{ status: 200 }]).client)
        const bad: RetryPolicy.Options = JSON.parse('{ "jitter": "half" }')
        const error = yield* Effect.flip(
          Layer.build(ResilientHttpClient.layer(bad).pipe(Layer.provide(transport))).pipe(Effect.scoped)
        )
        expect(error).toMatchObject({ _tag: "InvalidRetryPolicy", option: "jitter" })
        // Types: `never` in the error channel for these two.
        const fromPolicy: Layer.Layer<ResilientHttpClient.ResilientHttpClient, never, HttpClient.HttpClient> =
          ResilientHttpClient.layer(RetryPolicy.make())
        const fromSchedule: Layer.Layer<ResilientHttpClient.ResilientHttpClient, never, HttpClient.HttpClient> =
          ResilientHttpClient.layer(Schedule.recurs(2))
        expect([fromPolicy, fromSchedule].length).toBe(2)
      })
  )

  it.effect("a throwing isTransientStatus is a defect naming the option and the status", () =>
    Effect.gen(function* () {
      const policy = RetryPolicy.make({
        isTransientStatus: () => {
          throw new Error("boom")
        }
      })
      const exit = yield* Effect.exit(Effect.retry(Effect.fail(transient(503)), RetryPolicy.toSchedule(policy)))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const defect = exit.cause.reasons.find((reason) => reason._tag === "Die")
        expect(defect?._tag === "Die" ? String(defect.defect) : "").toContain(
          'Retry policy option "isTransientStatus" threw for status 503: boom'
        )
      }
    })
  )
})

describe("the policy's schedule, Effect 4", () => {
  it.effect("linear, exponential (capped), constant; maxAttempts 1 never retries", () =>
    Effect.gen(function* () {
      const none = { jitter: "none" } as const
      expect(
        yield* waits(RetryPolicy.make({ ...none, maxAttempts: 4, backoff: RetryPolicy.linear("500 millis") }), [
          transient(503),
          transient(503),
          transient(503),
          transient(503)
        ])
      ).toEqual([500, 1000, 1500, "attempts-exhausted"])
      expect(
        yield* waits(RetryPolicy.make({ ...none, maxAttempts: 5, maxDelay: "3 seconds" }), [
          transient(503),
          transient(503),
          transient(503),
          transient(503)
        ])
      ).toEqual([500, 1000, 2000, 3000])
      expect(yield* waits(RetryPolicy.make({ ...none, maxAttempts: 1 }), [transient(503)])).toEqual([
        "attempts-exhausted"
      ])
    })
  )

  it.effect("Retry-After over the cap waits the cap, or gives up at once", () =>
    Effect.gen(function* () {
      const day = Duration.days(1)
      expect(yield* waits(RetryPolicy.make({ maxDelay: "2 seconds" }), [transient(503, day)])).toEqual([2000])
      expect(
        yield* waits(RetryPolicy.make({ maxDelay: "2 seconds", whenRetryAfterExceedsMaxDelay: "give-up" }), [
          transient(503, day)
        ])
      ).toEqual(["retry-after-exceeds-max-delay"])
    })
  )

  it.effect("the jitter draws from Effect's Random (the TestClock's run fixes it): equal within [v/2, v]", () =>
    Effect.gen(function* () {
      const [first] = yield* waits(RetryPolicy.make(), [transient(503)])
      expect(typeof first === "number" && first >= 250 && first <= 500).toBe(true)
    })
  )

  it.effect("used with Effect.retry directly: the call's failure comes back after maxAttempts", () =>
    Effect.gen(function* () {
      let attempts = 0
      const call = Effect.suspend(() => {
        attempts++
        return Effect.fail(transient(503, undefined, attempts))
      })
      const fiber = yield* Effect.forkChild(
        Effect.exit(Effect.retry(call, RetryPolicy.toSchedule(RetryPolicy.make({ jitter: "none" })))),
        {
          startImmediately: true
        }
      )
      yield* TestClock.adjust("10 seconds")
      const exit = yield* Fiber.join(fiber)
      expect(attempts).toBe(3)
      assert.isTrue(Exit.isFailure(exit))
    })
  )
})

describe("RetryAfter, Effect 4", () => {
  const now = Date.parse("2026-03-01T12:00:00Z")
  it("reads the three date forms and delay-seconds, as Duration", () => {
    expect(RetryAfter.parse("120", now)).toEqual(Option.some(Duration.millis(120_000)))
    expect(RetryAfter.parse(new Date(now + 7000).toUTCString(), now)).toEqual(Option.some(Duration.millis(7000)))
    expect(RetryAfter.parse("-1", now)).toEqual(Option.none())
    expect(RetryAfter.fromHeaders(Headers.fromInput({ "x-ratelimit-reset": "30" }), now)).toEqual(
      Option.some(Duration.millis(30_000))
    )
  })

  it("agrees with Effect 4's own Headers.parseRetryAfter on every delay-seconds and IMF-fixdate", () =>
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 0, max: 10 ** 9 }).map(String),
          fc.integer({ min: -(10 ** 9), max: 10 ** 9 }).map((offset) => new Date(now + offset * 1000).toUTCString())
        ),
        (value) => {
          const ours = RetryAfter.parse(value, now)
          const effects = Result.map(Headers.parseRetryAfter(value), (parsed) => Headers.retryAfterDelay(parsed, now))
          expect(Option.map(ours, Duration.toMillis)).toEqual(
            Result.isSuccess(effects) ? Option.some(Duration.toMillis(effects.success)) : Option.none()
          )
        }
      )
    ))
})
