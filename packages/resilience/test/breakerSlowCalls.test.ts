// @generated from templates/test/breakerSlowCalls.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Issue #44 on Effect 3: the breaker's slow-call trigger (`slowCalls`) and half-open sampling
 * (`halfOpen`). A scripted server that turns slow trips the breaker through the client, at the
 * trigger's own ratio and minimum; a half-open circuit lets `probes` through and closes on the
 * `successes`-th. On the TestClock: every time and attempt count is exact.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, Stream, TestClock } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://slow-calls.test/r"
const origin = "http://slow-calls.test:80"

/** One attempt per call, under a 10 s time limit, through `breaker`. */
const resilient = (scripted: ScriptedHttpClient.ScriptedHttpClient, breaker: CircuitBreaker.CircuitBreaker.Service) =>
  ResilientHttpClient.withResilience(scripted.client, {
    jitter: "none",
    maxAttempts: 1,
    attemptTimeout: "10 seconds",
    circuitBreaker: CircuitBreaker.perOrigin(breaker)
  })

/** How a call ended: its status, or its failure's tag and reason. */
const outcomeOf = (client: ReturnType<typeof resilient>) =>
  Effect.scoped(
    Effect.map(client.get(url), (response) => `${response.status}`).pipe(
      Effect.catchAll((failure) =>
        Effect.succeed("reason" in failure ? `${failure._tag} ${String(failure.reason)}` : failure._tag)
      )
    )
  )

/** Runs the call in a fiber and moves the clock until it ends. */
const timed = (client: ReturnType<typeof resilient>, millis: number) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(outcomeOf(client))
    yield* TestClock.adjust(Duration.millis(millis))
    return yield* Fiber.join(fiber)
  })

const fast = { status: 200, delayMillis: 10 }
const slow = { status: 200, delayMillis: 2_000 }

describe("CircuitBreaker slowCalls and halfOpen, on Effect 3", () => {
  it.effect(
    "a server that turns slow trips the breaker at the trigger's ratio and own minimum; failures alone would not",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const breaker = yield* CircuitBreaker.make({
            tripPolicy: CircuitBreaker.consecutive(5),
            breakDuration: "5 seconds",
            slowCalls: { duration: "1 second", ratio: 0.5, minimumThroughput: 4, samplingDuration: "1 minute" }
          })
          const changes = yield* breaker.subscribe
          const scripted = ScriptedHttpClient.make([fast, fast, slow, slow, fast])
          const client = resilient(scripted, breaker)
          expect(yield* timed(client, 10)).toBe("200")
          expect(yield* timed(client, 10)).toBe("200")
          // One slow call of three: under the ratio; two of four: the ratio and the minimum, open.
          expect(yield* timed(client, 2_000)).toBe("200")
          expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
          expect(yield* timed(client, 2_000)).toBe("200")
          expect(yield* breaker.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(5) })
          // The next call is rejected unsent: four requests in all.
          expect(yield* outcomeOf(client)).toBe("ConnectionError CircuitOpen")
          expect(scripted.exchanges.length).toBe(4)
          expect(Array.from(yield* Stream.runCollect(Stream.take(changes, 1)))).toEqual([
            { origin, from: "Closed", to: "Open", breakDuration: Duration.seconds(5), manual: false }
          ])
          // After the break a fast probe closes it.
          yield* TestClock.adjust("5 seconds")
          expect(yield* timed(client, 10)).toBe("200")
          expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
        })
      )
  )

  it.effect("a slow probe reopens the circuit for another break", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds",
        slowCalls: { duration: "1 second" }
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }, slow, fast])
      const client = resilient(scripted, breaker)
      expect(yield* outcomeOf(client)).toBe("TransientStatus")
      yield* TestClock.adjust("5 seconds")
      // The probe answers 200, but in 2 s: the circuit opens again, from then.
      expect(yield* timed(client, 2_000)).toBe("200")
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Open", origin, retryAfter: Duration.seconds(5) })
      yield* TestClock.adjust("5 seconds")
      expect(yield* timed(client, 10)).toBe("200")
      expect(scripted.times()).toEqual([0, 5_000, 12_000])
    })
  )

  it.effect("halfOpen: 3 probes go at once, a 4th caller is rejected unsent, and the 2nd success closes it", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds",
        halfOpen: { probes: 3, successes: 2 }
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200, delayMillis: 100 }])
      const client = resilient(scripted, breaker)
      expect(yield* outcomeOf(client)).toBe("TransientStatus")
      yield* TestClock.adjust("5 seconds")
      const probes = yield* Effect.fork(
        Effect.all([outcomeOf(client), outcomeOf(client), outcomeOf(client)], { concurrency: "unbounded" })
      )
      yield* TestClock.adjust("50 millis")
      expect(yield* breaker.state(origin)).toMatchObject({ _tag: "HalfOpen", probing: true })
      expect(yield* outcomeOf(client)).toBe("ConnectionError CircuitOpen")
      yield* TestClock.adjust("50 millis")
      expect(yield* Fiber.join(probes)).toEqual(["200", "200", "200"])
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
      expect(scripted.times()).toEqual([0, 5_000, 5_000, 5_000])
    })
  )

  it.effect(
    "halfOpen: one failed probe of 3 needing 2 keeps it half-open; the next two succeed one after another",
    () =>
      Effect.gen(function* () {
        const breaker = yield* CircuitBreaker.make({
          tripPolicy: CircuitBreaker.consecutive(1),
          breakDuration: "5 seconds",
          halfOpen: { probes: 3, successes: 2 }
        })
        const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 503 }, fast])
        const client = resilient(scripted, breaker)
        expect(yield* outcomeOf(client)).toBe("TransientStatus")
        yield* TestClock.adjust("5 seconds")
        expect(yield* outcomeOf(client)).toBe("TransientStatus")
        expect(yield* breaker.state(origin)).toEqual({
          _tag: "HalfOpen",
          origin,
          probing: false,
          retryAfter: Duration.zero
        })
        expect(yield* timed(client, 10)).toBe("200")
        expect((yield* breaker.state(origin))._tag).toBe("HalfOpen")
        expect(yield* timed(client, 10)).toBe("200")
        expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
        expect(scripted.exchanges.length).toBe(4)
      })
  )

  it("the settings show both, defaults when empty; left out, no timing and one probe", () => {
    const settings = Either.getOrThrow(CircuitBreaker.validate({ slowCalls: {}, halfOpen: { probes: 4 } }))
    expect(settings.slowCalls).toEqual({
      duration: Duration.seconds(5),
      ratio: 0.5,
      minimumThroughput: 100,
      samplingDuration: Duration.seconds(30)
    })
    expect(settings.halfOpen).toEqual({ probes: 4, successes: 4 })
    const plain = Either.getOrThrow(CircuitBreaker.validate({}))
    expect([plain.slowCalls, plain.halfOpen]).toEqual([undefined, { probes: 1, successes: 1 }])
  })

  it.effect("a bad option is an InvalidRetryPolicy naming it, with the value given", () =>
    Effect.gen(function* () {
      const ratio = yield* Effect.flip(CircuitBreaker.make({ slowCalls: { ratio: 2 } }))
      expect(ratio).toMatchObject({ _tag: "InvalidRetryPolicy", option: "circuitBreaker.slowCalls.ratio", value: 2 })
      expect(ratio.message).toBe(
        'Invalid retry policy option "circuitBreaker.slowCalls.ratio": must be above 0 and at most 1 (got 2)'
      )
      const successes = yield* Effect.flip(CircuitBreaker.make({ halfOpen: { probes: 2, successes: 3 } }))
      expect(successes.message).toBe(
        'Invalid retry policy option "circuitBreaker.halfOpen.successes": must be a whole number from 1 to halfOpen.probes (got 3)'
      )
      const duration = yield* Effect.flip(CircuitBreaker.make({ slowCalls: { duration: "0 millis" } }))
      expect(duration).toMatchObject({ option: "circuitBreaker.slowCalls.duration", value: "0 millis" })
      expect(() => CircuitBreaker.perOrigin({ halfOpen: { probes: 0 } })).toThrow(
        'Invalid retry policy option "circuitBreaker.halfOpen.probes": must be a whole number from 1 to 1000 (got 0)'
      )
    })
  )
})
