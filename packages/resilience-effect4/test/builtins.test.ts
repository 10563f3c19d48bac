/**
 * This library next to Effect 4's own `HttpClient.retryTransient`, `withRateLimiter` and
 * `withCircuitBreaker`, on the TestClock: one test per row of the package README's comparison
 * table, each measuring both sides over the same scripted server.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, type Scope } from "effect"
import { HttpClient } from "effect/http"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import * as RateLimiter from "effect/persistence/RateLimiter"
import { TestClock } from "effect/testing"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/items"
const day = 24 * 60 * 60 * 1000

/** Runs `call` for `millis` of TestClock time; whether it ended, and the requests the server saw. */
const during = <A, E>(
  millis: number,
  scripted: ScriptedHttpClient.ScriptedHttpClient,
  call: Effect.Effect<A, E, Scope.Scope>
) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(Effect.exit(Effect.scoped(call)), { startImmediately: true })
    yield* TestClock.adjust(millis)
    const ended = fiber.pollUnsafe() !== undefined
    if (!ended) yield* Fiber.interrupt(fiber)
    return { ended, requests: scripted.exchanges.length, times: scripted.times() }
  })

const withLimiter = <E, R>(client: HttpClient.HttpClient.With<E, R>) =>
  Effect.map(Effect.service(RateLimiter.RateLimiter), (limiter) =>
    client.pipe(HttpClient.withRateLimiter({ limiter, window: "1 minute", limit: 1000, key: "api" }))
  )

describe("bounded by default?", () => {
  it.effect("ours: 3 attempts, then the failure; retryTransient(): still sending after an hour", () =>
    Effect.gen(function* () {
      const ours = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "0" } }])
      const oursRun = yield* during(60 * 60 * 1000, ours, ResilientHttpClient.withResilience(ours.client).get(url))
      expect(oursRun).toMatchObject({ ended: true, requests: 3 })
      const theirs = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "1" } }])
      const theirsRun = yield* during(
        60 * 60 * 1000,
        theirs,
        theirs.client.pipe(HttpClient.retryTransient({})).get(url)
      )
      expect(theirsRun.ended).toBe(false)
      expect(theirsRun.requests).toBeGreaterThan(3000)
    })
  )

  it.effect("withRateLimiter: a lasting 429 is sent again and again (times unset)", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "1" } }])
      const client = yield* withLimiter(scripted.client)
      const run = yield* during(60 * 1000, scripted, client.get(url))
      expect(run.ended).toBe(false)
      expect(run.requests).toBeGreaterThan(30)
    }).pipe(Effect.provide(RateLimiter.layer), Effect.provide(RateLimiter.layerStoreMemory))
  )
})

describe("Retry-After capped?", () => {
  it.effect("a Retry-After of a day: ours waits the 30 s cap; retryTransient and withRateLimiter wait the day", () =>
    Effect.gen(function* () {
      const dayLong = [{ status: 503, headers: { "retry-after": "86400" } }, { status: 200 }] as const
      const ours = ScriptedHttpClient.make(dayLong)
      const oursRun = yield* during(
        60 * 1000,
        ours,
        ResilientHttpClient.withResilience(ours.client, { totalTimeout: "infinity" }).get(url)
      )
      expect(oursRun.times).toEqual([0, 30_000])

      const theirs = ScriptedHttpClient.make(dayLong)
      const theirsRun = yield* during(
        day - 1,
        theirs,
        theirs.client.pipe(HttpClient.retryTransient({ times: 3 })).get(url)
      )
      expect(theirsRun).toMatchObject({ ended: false, requests: 1 })

      const limited = ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "86400" } }, { status: 200 }])
      const limiter = yield* withLimiter(limited.client)
      const limitedRun = yield* during(day - 1, limited, limiter.get(url))
      expect(limitedRun).toMatchObject({ ended: false, requests: 1 })
    }).pipe(Effect.provide(RateLimiter.layer), Effect.provide(RateLimiter.layerStoreMemory))
  )
})

describe("POST safe?", () => {
  it.effect("a POST without an Idempotency-Key meeting a 503: ours sends it once; retryTransient three times", () =>
    Effect.gen(function* () {
      const ours = ScriptedHttpClient.make([{ status: 503 }, { status: 201 }])
      const oursRun = yield* during(60 * 1000, ours, ResilientHttpClient.withResilience(ours.client).post(url))
      expect(oursRun).toMatchObject({ ended: true, requests: 1 })
      const theirs = ScriptedHttpClient.make([{ status: 503 }, { status: 503 }, { status: 201 }])
      const theirsRun = yield* during(
        60 * 1000,
        theirs,
        theirs.client.pipe(HttpClient.retryTransient({ times: 3 })).post(url)
      )
      expect(theirsRun).toMatchObject({ ended: true, requests: 3 })
    })
  )
})

describe("POST safe? (withRateLimiter)", () => {
  it.effect("withRateLimiter sends a POST that met a 429 again", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "1" } }, { status: 201 }])
      const client = yield* withLimiter(scripted.client)
      const run = yield* during(60 * 1000, scripted, client.post(url))
      expect(run).toMatchObject({ ended: true, requests: 2 })
      expect(scripted.exchanges.map((exchange) => exchange.request.method)).toEqual(["POST", "POST"])
    }).pipe(Effect.provide(RateLimiter.layer), Effect.provide(RateLimiter.layerStoreMemory))
  )
})

describe("responses released?", () => {
  it.effect("withRateLimiter leaves the discarded 429 unreleased too", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "1" } }, { status: 200 }])
      const client = yield* withLimiter(scripted.client)
      yield* during(60 * 1000, scripted, client.get(url))
      expect(scripted.exchanges[0]!.releasedBeforeNext).toBe(false)
    }).pipe(Effect.provide(RateLimiter.layer), Effect.provide(RateLimiter.layerStoreMemory))
  )

  it.effect(
    "each discarded 503: ours drained before the next attempt; retryTransient leaves it to garbage collection",
    () =>
      Effect.gen(function* () {
        const script = [
          { status: 503, headers: { "retry-after": "1" } },
          { status: 503, headers: { "retry-after": "1" } },
          { status: 200 }
        ] as const
        const ours = ScriptedHttpClient.make(script)
        yield* during(60 * 1000, ours, ResilientHttpClient.withResilience(ours.client).get(url))
        expect(ours.exchanges.slice(0, 2).map((exchange) => exchange.releasedBeforeNext)).toEqual([true, true])
        const theirs = ScriptedHttpClient.make(script)
        yield* during(60 * 1000, theirs, theirs.client.pipe(HttpClient.retryTransient({ times: 3 })).get(url))
        expect(theirs.exchanges.slice(0, 2).map((exchange) => exchange.releasedBeforeNext)).toEqual([false, false])
      })
  )
})

describe("retry budget?", () => {
  it.effect(
    "200 calls at once against a lasting outage: ours sends about 1.5x (floor plus a tenth), retryTransient 3x",
    () =>
      Effect.gen(function* () {
        const calls = 200
        const outage = [{ status: 503, headers: { "retry-after": "0" } }] as const
        const ours = ScriptedHttpClient.make(outage)
        const client = ResilientHttpClient.withResilience(ours.client)
        yield* during(
          60 * 1000,
          ours,
          Effect.all(
            Array.from({ length: calls }, () => Effect.exit(client.get(url))),
            { concurrency: "unbounded" }
          )
        )
        // Finagle's default: 10 retries a second over the 10 s ttl, plus 0.1 per call.
        expect(ours.exchanges.length).toBe(calls + 100 + 20)

        const theirs = ScriptedHttpClient.make(outage)
        const retrying = theirs.client.pipe(HttpClient.retryTransient({ times: 2 }))
        yield* during(
          60 * 1000,
          theirs,
          Effect.all(
            Array.from({ length: calls }, () => Effect.exit(retrying.get(url))),
            { concurrency: "unbounded" }
          )
        )
        expect(theirs.exchanges.length).toBe(calls * 3)
      })
  )

  it.effect(
    "Effect 4's withCircuitBreaker caps an outage only once it opens, and has no budget for the retries before",
    () =>
      Effect.gen(function* () {
        const scripted = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "0" } }])
        const breaker = yield* EffectBreaker.make({
          tripPolicy: EffectBreaker.consecutive(5),
          openDuration: "30 seconds"
        })
        const client = scripted.client.pipe(
          HttpClient.retryTransient({ times: 2 }),
          HttpClient.filterStatusOk,
          HttpClient.withCircuitBreaker({ breaker })
        )
        for (let i = 0; i < 10; i++) yield* during(1000, scripted, client.get(url))
        // Five calls of three requests each opened it; the other five were rejected unsent.
        expect(scripted.exchanges.length).toBe(15)
        const rejected = yield* Effect.exit(client.get(url))
        assert.isTrue(Exit.isFailure(rejected))
      }).pipe(Effect.provide(EffectBreaker.layerStoreMemory()), Effect.scoped)
  )
})

describe("a server turning slow?", () => {
  it.effect(
    "200s answered in 2 s: ours with slowCalls opens and stops sending; withCircuitBreaker counts failures only, and sends them all",
    () =>
      Effect.gen(function* () {
        const slowly = [
          { status: 200, delayMillis: 10 },
          { status: 200, delayMillis: 2_000 }
        ]
        const ours = ScriptedHttpClient.make(slowly)
        const client = ResilientHttpClient.withResilience(ours.client, {
          maxAttempts: 1,
          circuitBreaker: CircuitBreaker.perOrigin({
            tripPolicy: CircuitBreaker.consecutive(5),
            breakDuration: "1 minute",
            slowCalls: { duration: "1 second", ratio: 0.5, minimumThroughput: 4 }
          })
        })
        for (let i = 0; i < 10; i++) yield* during(3000, ours, client.get(url))
        // One fast answer, then three slow ones: 3 of 4 slow, open; the other six not sent.
        expect(ours.exchanges.length).toBe(4)
        const theirs = ScriptedHttpClient.make(slowly)
        const breaker = yield* EffectBreaker.make({
          tripPolicy: EffectBreaker.consecutive(5),
          openDuration: "1 minute"
        })
        const effects = theirs.client.pipe(HttpClient.filterStatusOk, HttpClient.withCircuitBreaker({ breaker }))
        for (let i = 0; i < 10; i++) yield* during(3000, theirs, effects.get(url))
        expect(theirs.exchanges.length).toBe(10)
      }).pipe(Effect.provide(EffectBreaker.layerStoreMemory()), Effect.scoped)
  )
})
