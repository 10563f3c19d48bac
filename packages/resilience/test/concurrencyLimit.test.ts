// @generated from templates/test/concurrencyLimit.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The per-origin concurrency limit (issue #34) on Effect 3, on the TestClock over a scripted
 * transport: the exact time each request goes, the call the full queue refuses unsent, a queued
 * call interrupted or past its deadline, retries and hedged copies each taking a permit, every
 * permit back after a burst, and an adaptive (AIMD) limit cut once per round trip of 503s that grows back.
 */
import { describe, expect, it } from "@effect/vitest"
import type { HttpClient } from "@effect/platform"
import { HttpClientRequest } from "@effect/platform"
import { Effect, Either, Fiber, type Scope, TestClock } from "effect"
import * as ConcurrencyLimit from "../src/ConcurrencyLimit.js"
import * as Hedging from "../src/Hedging.js"
import type * as HttpFailure from "../src/HttpFailure.js"
import * as ResilienceStore from "../src/ResilienceStore.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { latencyWindows } from "../src/internal/latencyWindows.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"
import { counterValue, gaugeValue } from "./support/metrics.js"

const ok = (delayMillis: number): ScriptedHttpClient.Answer => ({ status: 200, body: "ok", delayMillis })

/** What a call ended with, and when (TestClock milliseconds from the test's start). */
interface Ended {
  readonly at: number
  readonly outcome: string
  readonly failure: HttpFailure.HttpFailure | undefined
}

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** One GET through `client`, forked after `afterMillis`: its status, or its failure. */
const start = (
  client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>,
  url: string,
  afterMillis = 0
) =>
  Effect.fork(
    Effect.gen(function* () {
      if (afterMillis > 0) yield* Effect.sleep(afterMillis)
      const outcome = yield* Effect.scoped(
        Effect.map(client.execute(HttpClientRequest.get(url)), (r) => `${r.status}`)
      ).pipe(Effect.either)
      const at = yield* now
      return Either.match(outcome, {
        onLeft: (failure): Ended => ({ at, outcome: `failed: ${failure._tag}`, failure }),
        onRight: (status): Ended => ({ at, outcome: status, failure: undefined })
      })
    })
  )

/** The origin's bulkhead in `store`, for `options`' concurrency setting. */
const bulkheadOf = (store: ResilienceStore.ResilienceStore.Service, options: RetryPolicy.Options, origin: string) => {
  const concurrency = RetryPolicy.make(options).concurrencyLimit
  if (concurrency === undefined) throw new Error("no concurrencyLimit option")
  return ConcurrencyLimit.fromStore(store, concurrency).forOrigin(origin, 0).bulkhead
}

const base = { jitter: "none", retryBudget: "none" } as const

describe("concurrency limit", () => {
  it.effect("limit 2, queue 1: the third call waits for a permit, the fourth fails at once, unsent", () =>
    Effect.gen(function* () {
      const host = "four.concurrency.test"
      const scripted = ScriptedHttpClient.make([ok(1000)])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...base,
        concurrencyLimit: ConcurrencyLimit.fixed(2, { queue: 1 })
      })
      const url = `http://${host}/items`
      const calls = yield* Effect.forEach([0, 1, 2, 3], (i) => start(client, url, i))
      yield* TestClock.adjust("10 seconds")
      const ended = yield* Effect.forEach(calls, Fiber.join)
      expect(ended.map((call) => [call.at, call.outcome])).toEqual([
        [1000, "200"],
        [1001, "200"],
        [2000, "200"],
        [3, "failed: ConnectionError"]
      ])
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 1, 1000])
      const refused = ended[3]?.failure
      expect(refused).toMatchObject({ reason: "ConcurrencyLimited", giveUpReason: "concurrency-limit", attempt: 1 })
      expect(refused?.message).toBe(
        `GET http://${host}/items: not sent: the concurrency limit for this origin (2 in flight) and its queue (1 waiting) are full`
      )
      expect(yield* counterValue("http.client.resilience.concurrency_limit.refusals", host)).toBe(1)
      expect(yield* counterValue("http.client.resilience.concurrency_limit.waits", host)).toBe(1)
      expect(yield* counterValue("http.client.resilience.attempts", host)).toBe(3)
    })
  )

  it.effect("a queued call interrupted frees its place in the queue", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([ok(1000)])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...base,
        concurrencyLimit: ConcurrencyLimit.fixed(1, { queue: 1 })
      })
      const url = "http://interrupted.concurrency.test/items"
      const held = yield* start(client, url)
      const queued = yield* start(client, url, 1)
      yield* TestClock.adjust(10)
      yield* Fiber.interrupt(queued)
      // Its place is free: this one queues rather than being refused, and goes when the permit does.
      const next = yield* start(client, url)
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(held)).outcome).toBe("200")
      expect(yield* Fiber.join(next)).toMatchObject({ at: 2000, outcome: "200" })
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 1000])
    })
  )

  it.effect("a queued call whose deadline passes fails as the deadline does, unsent", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([ok(1000)])
      const concurrencyLimit = ConcurrencyLimit.fixed(1, { queue: 1 })
      const client = ResilientHttpClient.withResilience(scripted.client, { ...base, concurrencyLimit })
      const hurried = ResilientHttpClient.withResilience(scripted.client, {
        ...base,
        concurrencyLimit,
        totalTimeout: 300
      })
      const url = "http://deadline.concurrency.test/items"
      const held = yield* start(client, url)
      const late = yield* start(hurried, url, 1)
      yield* TestClock.adjust("10 seconds")
      const ended = yield* Fiber.join(late)
      expect(ended).toMatchObject({ at: 301, outcome: "failed: ConnectionError" })
      expect(ended.failure).toMatchObject({ reason: "Timeout", giveUpReason: "deadline-exceeded", attempt: 1 })
      expect((yield* Fiber.join(held)).outcome).toBe("200")
      expect(scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("each retry takes a permit of its own, and gives it back while it waits", () =>
    Effect.gen(function* () {
      // The first attempt's 503 (100 ms) frees the permit for the other call (1000 ms): the retry,
      // due at 600 ms, waits for it until 1110 ms.
      const scripted = ScriptedHttpClient.make([{ status: 503, delayMillis: 100 }, ok(1000), ok(0)])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...base,
        backoff: RetryPolicy.constant(500),
        concurrencyLimit: ConcurrencyLimit.fixed(1, { queue: 5 })
      })
      const url = "http://retries.concurrency.test/items"
      const retried = yield* start(client, url)
      const other = yield* start(client, url, 10)
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(retried)).toMatchObject({ at: 1100, outcome: "200" })
      expect(yield* Fiber.join(other)).toMatchObject({ at: 1100, outcome: "200" })
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 100, 1100])
    })
  )

  it.effect("a hedged copy takes a permit of its own: with none free it is not sent", () =>
    Effect.gen(function* () {
      const host = "hedged.concurrency.test"
      const hedged = (limit: number) => ({
        ...base,
        hedging: Hedging.after(100),
        concurrencyLimit: ConcurrencyLimit.fixed(limit, { queue: 0 })
      })
      const alone = ScriptedHttpClient.make([ok(1000)])
      const one = yield* start(ResilientHttpClient.withResilience(alone.client, hedged(1)), `http://${host}/items`)
      yield* TestClock.adjust("10 seconds")
      expect(yield* Fiber.join(one)).toMatchObject({ at: 1000, outcome: "200" })
      expect(alone.exchanges.map((exchange) => exchange.at)).toEqual([0])
      expect(yield* counterValue("http.client.resilience.concurrency_limit.refusals", host)).toBe(1)
      // With two permits, the hedge goes.
      const two = ScriptedHttpClient.make([ok(1000), ok(0)])
      const both = yield* start(ResilientHttpClient.withResilience(two.client, hedged(2)), `http://two.${host}/items`)
      yield* TestClock.adjust("10 seconds")
      expect((yield* Fiber.join(both)).outcome).toBe("200")
      expect(two.exchanges.map((exchange) => exchange.at)).toEqual([10_000, 10_100])
    })
  )

  it.effect("every permit is back after a burst of successes, 503s, timeouts and interruptions", () =>
    Effect.gen(function* () {
      const store = ResilienceStore.makeMemory()
      const options: RetryPolicy.Options = {
        ...base,
        attemptTimeout: 700,
        backoff: RetryPolicy.constant(50),
        concurrencyLimit: ConcurrencyLimit.fixed(3, { queue: 20 })
      }
      const script: Array<ScriptedHttpClient.Answer> = [
        ok(100),
        { status: 503, delayMillis: 50 },
        { hang: true },
        ok(300),
        { transportError: "reset", delayMillis: 20 }
      ]
      const scripted = ScriptedHttpClient.make(Array.from({ length: 60 }, (_, i) => script[i % script.length] ?? ok(1)))
      const client = ResilientHttpClient.withResilience(scripted.client, options)
      const url = "http://burst.concurrency.test/items"
      const calls = yield* Effect.forEach(
        Array.from({ length: 20 }, (_, i) => i),
        (i) => Effect.provideService(start(client, url, i * 5), ResilienceStore.ResilienceStore, store)
      )
      const bulkhead = bulkheadOf(store, options, "http://burst.concurrency.test:80")
      const inFlight: Array<number> = []
      for (let step = 0; step < 60; step++) {
        yield* TestClock.adjust(50)
        // Interrupted while queued (two of them) or holding a permit (one).
        const interrupted = step === 1 || step === 8 ? [calls[7], calls[8], calls[19]] : []
        for (const fiber of interrupted) if (fiber !== undefined) yield* Fiber.interrupt(fiber)
        inFlight.push(bulkhead.inFlight())
      }
      yield* TestClock.adjust("1 minute")
      yield* Effect.forEach(calls, Fiber.await)
      expect(Math.max(...inFlight)).toBe(3)
      expect([bulkhead.inFlight(), bulkhead.queued()]).toEqual([0, 0])
      expect(scripted.exchanges.length).toBeGreaterThan(20)
    })
  )

  it.effect(
    "adaptive (AIMD): each round trip of 503s halves the limit, and windows of answers grow it back past it",
    () =>
      Effect.gen(function* () {
        const store = ResilienceStore.makeMemory()
        const options: RetryPolicy.Options = {
          ...base,
          maxAttempts: 1,
          concurrencyLimit: ConcurrencyLimit.adaptive({ algorithm: "aimd", initial: 4, queue: 0 })
        }
        const url = "http://aimd.concurrency.test/items"
        const bulkhead = bulkheadOf(store, options, "http://aimd.concurrency.test:80")
        const limits: Array<number> = []
        // Rounds 100 ms apart, each of as many calls at once as the limit allows, answered in 10 ms.
        for (const answer of [503, 503, ...Array.from({ length: 26 }, () => 200)]) {
          const scripted = ScriptedHttpClient.make([answer === 503 ? { status: 503, delayMillis: 10 } : ok(10)])
          const client = ResilientHttpClient.withResilience(scripted.client, options)
          const calls = yield* Effect.forEach(
            Array.from({ length: bulkhead.limit() }, () => url),
            (target) => Effect.provideService(start(client, target), ResilienceStore.ResilienceStore, store)
          )
          yield* TestClock.adjust(100)
          yield* Effect.forEach(calls, Fiber.join)
          limits.push(bulkhead.limit())
        }
        // Each round's first 503 cuts once, by half (nothing was answered to tell what the server took); the
        // others were sent before the cut. Then each window of ten samples (rounds of one answer, then of two)
        // grows it, having used it: by half a permit while within one of the 2 in flight at the last drop
        // (two windows), then by one past it.
        expect(limits).toEqual([2, ...Array.from({ length: 19 }, () => 1), 2, 2, 2, 2, 2, 3, 3, 3])
        expect([bulkhead.inFlight(), bulkhead.queued()]).toEqual([0, 0])
        expect(yield* gaugeValue("http.client.resilience.concurrency_limit.limit", "aimd.concurrency.test")).toBe(3)
      })
  )

  it.effect("adaptive at limit 1: a second call at once is refused, the limit its learnt one", () =>
    Effect.gen(function* () {
      const store = ResilienceStore.makeMemory()
      const options: RetryPolicy.Options = {
        ...base,
        maxAttempts: 1,
        concurrencyLimit: ConcurrencyLimit.adaptive({ algorithm: "aimd", initial: 2, queue: 0 })
      }
      const unavailable: ScriptedHttpClient.Answer = { status: 503, delayMillis: 10 }
      const scripted = ScriptedHttpClient.make([unavailable, unavailable, ok(100), ok(100)])
      const client = ResilientHttpClient.withResilience(scripted.client, options)
      const url = "http://learnt.concurrency.test/items"
      const provided = (afterMillis: number) =>
        Effect.provideService(start(client, url, afterMillis), ResilienceStore.ResilienceStore, store)
      // Two 503s, 50 ms apart: a window of drops two round trips long cuts 2 to 1.
      for (let i = 0; i < 2; i++) {
        const unanswered = yield* provided(0)
        yield* TestClock.adjust(50)
        expect((yield* Fiber.join(unanswered)).outcome).toBe("failed: TransientStatus")
      }
      const calls = yield* Effect.forEach([0, 1], provided)
      yield* TestClock.adjust("1 second")
      const ended = yield* Effect.forEach(calls, Fiber.join)
      expect(ended.map((call) => call.outcome)).toEqual(["200", "failed: ConnectionError"])
      expect(ended[1]?.failure?.message).toContain("(1 in flight) and its queue (0 waiting) are full")
    })
  )

  it.effect("adaptive (Gradient2): the limit comes down as latency grows tenfold, and goes up once it is back", () =>
    Effect.gen(function* () {
      const store = ResilienceStore.makeMemory()
      const options: RetryPolicy.Options = {
        ...base,
        maxAttempts: 1,
        concurrencyLimit: ConcurrencyLimit.adaptive({ queue: 100 })
      }
      const url = "http://gradient.concurrency.test/items"
      const bulkhead = bulkheadOf(store, options, "http://gradient.concurrency.test:80")
      // Rounds of 60 calls at once, each answered in `delayMillis`; the limit after them. (60, not 20: slow
      // start doubles a limit the caller fills, to 80 here, and a limit over twice what the caller uses stays.)
      const rounds = (count: number, delayMillis: number) =>
        Effect.gen(function* () {
          const client = ResilientHttpClient.withResilience(ScriptedHttpClient.make([ok(delayMillis)]).client, options)
          for (let round = 0; round < count; round++) {
            const calls = yield* Effect.forEach(
              Array.from({ length: 60 }, () => url),
              (target) => Effect.provideService(start(client, target), ResilienceStore.ResilienceStore, store)
            )
            yield* TestClock.adjust(delayMillis * 3)
            yield* Effect.forEach(calls, Fiber.join)
          }
          return bulkhead.limit()
        })
      // A round's answers close a window, its last ones with the next round's (two round trips long).
      const fast = yield* rounds(5, 10)
      const slow = yield* rounds(5, 100)
      const recovered = yield* rounds(5, 10)
      expect(fast).toBeGreaterThan(20)
      expect(slow).toBeLessThan(fast)
      expect(recovered).toBeGreaterThan(slow)
      expect([bulkhead.inFlight(), bulkhead.queued()]).toEqual([0, 0])
    })
  )

  it.effect(
    "adaptive: a storm of fast 502s is kept out of the baseline; after it the limit still takes the demand",
    () =>
      Effect.gen(function* () {
        const store = ResilienceStore.makeMemory()
        const options: RetryPolicy.Options = { ...base, maxAttempts: 1, concurrencyLimit: ConcurrencyLimit.adaptive() }
        const host = "storm.concurrency.test"
        const bulkhead = bulkheadOf(store, options, `http://${host}:80`)
        // Rounds of 16 calls at once (the demand), 100 ms apart; the outcomes of the last round.
        const rounds = (count: number, answer: ScriptedHttpClient.Answer) =>
          Effect.gen(function* () {
            const client = ResilientHttpClient.withResilience(ScriptedHttpClient.make([answer]).client, options)
            let outcomes: Array<string> = []
            for (let round = 0; round < count; round++) {
              const calls = yield* Effect.forEach(
                Array.from({ length: 16 }, () => `http://${host}/items`),
                (target) => Effect.provideService(start(client, target), ResilienceStore.ResilienceStore, store)
              )
              yield* TestClock.adjust(100)
              outcomes = (yield* Effect.forEach(calls, Fiber.join)).map((call) => call.outcome)
            }
            return outcomes
          })
        const median = Effect.clockWith((clock) =>
          Effect.sync(() => {
            const now = clock.unsafeCurrentTimeMillis()
            return latencyWindows(clock).peek(`http://${host}:80`)?.percentile(50, now)
          })
        )
        yield* rounds(10, ok(40))
        // 5 s of 502s answered in 1 ms: no drop, and no round trip of the server's either.
        const storm = yield* rounds(50, { status: 502, delayMillis: 1 })
        expect(storm).toEqual(Array.from({ length: 16 }, () => "failed: TransientStatus"))
        expect(yield* median).toBeGreaterThanOrEqual(40)
        // The server's 40 ms afterwards is no queue: every caller is let through, round after round.
        for (let second = 0; second < 8; second++) {
          expect(yield* rounds(10, ok(40))).toEqual(Array.from({ length: 16 }, () => "200"))
        }
        expect(bulkhead.limit()).toBeGreaterThanOrEqual(16)
        expect([bulkhead.inFlight(), bulkhead.queued()]).toEqual([0, 0])
      })
  )

  it.effect(
    "an adaptive limit records each answered attempt once in its origin's latency window, hedged or not; a 503 not",
    () =>
      Effect.gen(function* () {
        const adaptive: RetryPolicy.Options = { ...base, maxAttempts: 1, concurrencyLimit: ConcurrencyLimit.adaptive() }
        // A percentile delay whose fallback no call reaches: hedging records each attempt too.
        const hedged: RetryPolicy.Options = { ...adaptive, hedging: Hedging.percentile(95, { fallback: "1 second" }) }
        const samples = (host: string) =>
          Effect.clockWith((clock) =>
            Effect.sync(() => latencyWindows(clock).peek(`http://${host}:80`)?.count(clock.unsafeCurrentTimeMillis()))
          )
        const calls = (options: RetryPolicy.Options, host: string, answers: ReadonlyArray<ScriptedHttpClient.Answer>) =>
          Effect.gen(function* () {
            const client = ResilientHttpClient.withResilience(ScriptedHttpClient.make(answers).client, options)
            for (let i = 0; i < answers.length; i++) {
              const call = yield* start(client, `http://${host}/items`)
              yield* TestClock.adjust(100)
              yield* Fiber.join(call)
            }
          })
        const five = Array.from({ length: 5 }, () => ok(40))
        yield* calls(adaptive, "alone.concurrency.test", [...five, { status: 503, delayMillis: 1 }])
        yield* calls(hedged, "hedged.windows.concurrency.test", five)
        expect(yield* samples("alone.concurrency.test")).toBe(5)
        expect(yield* samples("hedged.windows.concurrency.test")).toBe(5)
      })
  )

  it("an invalid concurrencyLimit is an InvalidRetryPolicy naming it", () => {
    const invalid = (build: () => unknown): unknown => {
      try {
        build()
        return undefined
      } catch (error) {
        return error
      }
    }
    const named = (option: string) => ({ _tag: "InvalidRetryPolicy", option })
    expect(invalid(() => ConcurrencyLimit.fixed(0))).toMatchObject(named("concurrencyLimit.limit"))
    expect(invalid(() => ConcurrencyLimit.fixed(2, { queue: -1 }))).toMatchObject(named("concurrencyLimit.queue"))
    expect(invalid(() => ConcurrencyLimit.adaptive({ min: 10, initial: 5 }))).toMatchObject(
      named("concurrencyLimit.initial")
    )
    expect(invalid(() => ConcurrencyLimit.adaptive({ initial: 5, ...{ limit: 5 } }))).toMatchObject(
      named("concurrencyLimit.limit")
    )
    expect(
      Either.getLeft(RetryPolicy.validate({ concurrencyLimit: { limit: 2 } } as unknown as RetryPolicy.Options))
    ).toMatchObject({ _tag: "Some", value: named("concurrencyLimit") })
    expect(RetryPolicy.make().concurrencyLimit).toBeUndefined()
    expect(RetryPolicy.make({ concurrencyLimit: ConcurrencyLimit.adaptive() }).concurrencyLimit?.settings).toEqual({
      _tag: "Adaptive",
      algorithm: "gradient2",
      queue: 0,
      min: 1,
      max: 200,
      initial: 20
    })
  })
})
