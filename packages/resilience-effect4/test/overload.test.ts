/**
 * Overload protection on Effect 4, on the TestClock: the retry budget (on by default, shared by
 * every call of one client, or by clients through one service) and the circuit breaker built on
 * Effect 4's own CircuitBreaker with this library's state machine as its store.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Metric, type Scope, Stream } from "effect"
import { HttpClient } from "effect/http"
import * as EffectBreaker from "effect/persistence/CircuitBreaker"
import { TestClock } from "effect/testing"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryBudget from "../src/RetryBudget.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const origin = "http://api.test:80"
const url = "http://api.test/r"
const fast = { jitter: "none", backoff: RetryPolicy.constant("10 millis") } as const

const callOnce = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkChild(Effect.exit(Effect.scoped(effect)), { startImmediately: true })
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason) : undefined
  if (reason === undefined) throw new Error("expected a typed failure")
  return reason.error
}

describe("the retry budget, Effect 4", () => {
  it.effect("on by default, per client: in a lasting outage retries stop at the floor plus a tenth of the calls", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      // No floor, so only the ratio counts: 20 calls deposit 20, a retry costs 10.
      const client = ResilientHttpClient.withResilience(scripted.client, { ...fast, retryBudget: { minPerSecond: 0 } })
      // Twenty calls at once, within one ttl.
      const exits = yield* callOnce(
        Effect.all(
          Array.from({ length: 20 }, () => Effect.exit(client.get(url))),
          { concurrency: "unbounded" }
        )
      )
      const failures = Exit.isSuccess(exits) ? exits.value.map(failureOf) : []
      expect(scripted.exchanges.length).toBe(20 + 2)
      // Every call ends refused by the budget: 18 after their first attempt, the 2 retried after their second.
      expect(failures.map((failure) => failure.giveUpReason)).toEqual(failures.map(() => "retry-budget-exhausted"))
      expect(failures.filter((failure) => failure.attempt === 2).length).toBe(2)
    })
  )

  it.effect("the default floor of 10 retries a second lets sparse failures retry", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
      const client = ResilientHttpClient.withResilience(scripted.client, fast)
      assert.isTrue(Exit.isSuccess(yield* callOnce(client.get(url))))
      expect(scripted.exchanges.length).toBe(2)
    })
  )

  it.effect('"none" turns it off; a shared service is one budget for several clients, with a readable balance', () =>
    Effect.gen(function* () {
      const unlimited = ScriptedHttpClient.make([{ status: 503 }])
      const free = ResilientHttpClient.withResilience(unlimited.client, { ...fast, retryBudget: "none" })
      for (let i = 0; i < 5; i++) yield* callOnce(free.get(url))
      expect(unlimited.exchanges.length).toBe(15)

      const budget = yield* RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 4 }))
      const a = ScriptedHttpClient.make([{ status: 503 }])
      const b = ScriptedHttpClient.make([{ status: 503 }])
      yield* callOnce(ResilientHttpClient.withResilience(a.client, { ...fast, retryBudget: budget }).get(url))
      // Token bucket: 4 tokens, a failure takes one, no retry at or below half: 2 failures then stop.
      expect(a.exchanges.length).toBe(2)
      expect(yield* budget.balance(origin)).toBe(2)
      yield* callOnce(ResilientHttpClient.withResilience(b.client, { ...fast, retryBudget: budget }).get(url))
      expect(b.exchanges.length).toBe(1)
    })
  )

  it("bad budget options are InvalidRetryPolicy naming the option in full", () => {
    expect(() => RetryPolicy.make({ retryBudget: { ratio: -1 } })).toThrow(/"retryBudget.ratio": must be 0 or a number/)
    expect(() => RetryPolicy.make({ retryBudget: { ttl: "-1 seconds" } })).toThrow(/"retryBudget.ttl"/)
  })
})

describe("the circuit breaker, Effect 4", () => {
  const breakerPolicy = (breaker: CircuitBreaker.CircuitBreaker.Service) =>
    ({ ...fast, maxAttempts: 1, retryBudget: "none", circuitBreaker: CircuitBreaker.perOrigin(breaker) }) as const

  it.effect("opens after consecutive failures; an open circuit ends the call unsent, saying so", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(3),
        breakDuration: "5 seconds"
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, breakerPolicy(breaker))
      for (let i = 0; i < 3; i++) yield* Effect.scoped(Effect.exit(client.get(url)))
      const state = yield* breaker.state(origin)
      expect(state).toMatchObject({ _tag: "Open", retryAfter: Duration.seconds(5) })
      const rejected = failureOf(yield* Effect.scoped(Effect.exit(client.get(url))))
      expect(scripted.exchanges.length).toBe(3)
      expect(rejected).toMatchObject({ _tag: "ConnectionError", reason: "CircuitOpen", giveUpReason: "circuit-open" })
      expect(rejected.message).toBe(`GET ${url}: not sent: the circuit breaker for this origin is open`)
    })
  )

  it.effect("half-opens after the break, lets one probe through, and closes on its success", () =>
    Effect.gen(function* () {
      const changes: Array<string> = []
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds",
        onStateChange: (change) => Effect.sync(() => changes.push(`${change.from}->${change.to}`))
      })
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
      const client = ResilientHttpClient.withResilience(scripted.client, breakerPolicy(breaker))
      yield* Effect.scoped(Effect.exit(client.get(url)))
      yield* TestClock.adjust("5 seconds")
      assert.isTrue(Exit.isSuccess(yield* Effect.scoped(Effect.exit(client.get(url)))))
      // The observer runs after the caller, in a fiber of its own: let it run.
      for (let i = 0; i < 100 && changes.length < 3; i++) yield* Effect.yieldNow
      expect(changes).toEqual(["Closed->Open", "Open->HalfOpen", "HalfOpen->Closed"])
      expect(yield* breaker.state(origin)).toEqual({ _tag: "Closed", origin })
    })
  )

  it.effect("a 429 is not a health sample; a Retry-After on the failure that opens lengthens the break, capped", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds",
        maxBreakDuration: "20 seconds"
      })
      const limited = ScriptedHttpClient.make([{ status: 429 }])
      yield* Effect.scoped(
        Effect.exit(ResilientHttpClient.withResilience(limited.client, breakerPolicy(breaker)).get(url))
      )
      expect((yield* breaker.state(origin))._tag).toBe("Closed")
      const overloaded = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "60" } }])
      yield* Effect.scoped(
        Effect.exit(ResilientHttpClient.withResilience(overloaded.client, breakerPolicy(breaker)).get(url))
      )
      expect(yield* breaker.state(origin)).toMatchObject({ _tag: "Open", retryAfter: Duration.seconds(20) })
    })
  )

  it.effect("isolate holds it open by hand until close; the changes stream has the manual changes too", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make()
      const subscription = yield* breaker.subscribe
      yield* breaker.isolate(origin)
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const rejected = failureOf(
        yield* Effect.scoped(
          Effect.exit(ResilientHttpClient.withResilience(scripted.client, breakerPolicy(breaker)).get(url))
        )
      )
      expect(rejected).toMatchObject({
        reason: "CircuitOpen",
        cause: { state: "Isolated", retryAfter: Duration.infinity }
      })
      expect(scripted.exchanges.length).toBe(0)
      yield* breaker.close(origin)
      const changes = yield* Stream.runCollect(Stream.take(subscription, 2))
      expect(changes.map((change) => [change.from, change.to, change.manual])).toEqual([
        ["Closed", "Isolated", true],
        ["Isolated", "Closed", true]
      ])
    }).pipe(Effect.scoped)
  )

  it.effect("the same breaker works as Effect 4's own, through HttpClient.withCircuitBreaker", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(2) })
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      // Keyed by origin as this library keys it (Effect's default key is `URL.origin`, without the port).
      const client = scripted.client.pipe(
        HttpClient.filterStatusOk,
        HttpClient.withCircuitBreaker({
          breaker: yield* CircuitBreaker.toEffectBreaker(breaker),
          key: (request) => CircuitBreaker.originOf(request.url)
        })
      )
      for (let i = 0; i < 2; i++) yield* Effect.exit(client.get(url))
      // Our state machine recorded Effect's outcomes: the circuit is open for both views.
      expect((yield* breaker.state(origin))._tag).toBe("Open")
      const rejected = failureOf(yield* Effect.exit(client.get(url)))
      assert.isTrue(rejected instanceof EffectBreaker.CircuitBreakerError)
      expect(scripted.exchanges.length).toBe(2)
    })
  )

  it.effect("toEffectBreaker: one Effect breaker per service; a service of another make goes through acquire", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(2) })
      expect(yield* CircuitBreaker.toEffectBreaker(breaker)).toBe(yield* CircuitBreaker.toEffectBreaker(breaker))
      // A copy is no longer the service `make` made: only its public operations are known.
      const copy = { ...breaker }
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = scripted.client.pipe(
        HttpClient.filterStatusOk,
        HttpClient.withCircuitBreaker({
          breaker: yield* CircuitBreaker.toEffectBreaker(copy),
          key: (request) => CircuitBreaker.originOf(request.url)
        })
      )
      for (let i = 0; i < 2; i++) yield* Effect.exit(client.get(url))
      expect((yield* breaker.state(origin))._tag).toBe("Open")
      const rejected = failureOf(yield* Effect.exit(client.get(url)))
      assert.isTrue(rejected instanceof EffectBreaker.CircuitBreakerError)
      expect(scripted.exchanges.length).toBe(2)
    })
  )

  it.effect("toEffectBreaker times each call for slowCalls and lets halfOpen.probes through, as our execute does", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(5),
        breakDuration: "1 second",
        slowCalls: { duration: "100 millis", ratio: 1, minimumThroughput: 2 },
        halfOpen: { probes: 2, successes: 2 }
      })
      const effect = yield* CircuitBreaker.toEffectBreaker(breaker)
      const call = (millis: number) =>
        Effect.gen(function* () {
          const fiber = yield* Effect.forkChild(Effect.exit(effect.execute(Effect.sleep(millis), { key: origin })), {
            startImmediately: true
          })
          yield* TestClock.adjust(millis)
          return Exit.isSuccess(yield* Fiber.join(fiber))
        })
      // Two calls of 200 ms: both slow, the ratio and minimum reached, so the circuit opens.
      expect([yield* call(200), yield* call(200)]).toEqual([true, true])
      expect((yield* breaker.state(origin))._tag).toBe("Open")
      expect(yield* call(0)).toBe(false)
      yield* TestClock.adjust("1 second")
      // Half-open: two probes at once, a third refused; both fast successes close it.
      const probes = yield* Effect.forkChild(Effect.all([call(10), call(10)], { concurrency: "unbounded" }), {
        startImmediately: true
      })
      expect(failureOf(yield* Effect.exit(effect.execute(Effect.void, { key: origin })))).toBeInstanceOf(
        EffectBreaker.CircuitBreakerError
      )
      expect(yield* Fiber.join(probes)).toEqual([true, true])
      expect((yield* breaker.state(origin))._tag).toBe("Closed")
    })
  )

  // Effect 4.1.5's breaker passes `{ probe }` to `classify`, and `onRejection: "allow"` runs a refused
  // call unrecorded: both through our circuits, for a service of `make` and for any other service.
  for (const kind of ["made by make", "of another make"] as const) {
    it.effect(
      `toEffectBreaker (${kind}): classify hears { probe }: a 429 ignored while closed reopens from the probe`,
      () =>
        Effect.gen(function* () {
          const made = yield* CircuitBreaker.make({
            tripPolicy: CircuitBreaker.consecutive(1),
            breakDuration: "1 second"
          })
          const breaker = kind === "made by make" ? made : { ...made }
          const effect = yield* CircuitBreaker.toEffectBreaker(breaker)
          const probes: Array<boolean> = []
          const answer = (status: number) =>
            effect.execute(Effect.succeed(status), {
              key: origin,
              classify: (exit, { probe }) => {
                probes.push(probe)
                const status = Exit.isSuccess(exit) ? exit.value : 0
                return status === 429
                  ? probe
                    ? EffectBreaker.failure()
                    : EffectBreaker.ignored
                  : EffectBreaker.success
              }
            })
          yield* answer(429)
          expect((yield* made.state(origin))._tag).toBe("Closed")
          yield* Effect.exit(effect.execute(Effect.fail("boom"), { key: origin }))
          expect((yield* made.state(origin))._tag).toBe("Open")
          yield* TestClock.adjust("1 second")
          yield* answer(429)
          expect(probes).toEqual([false, true])
          expect((yield* made.state(origin))._tag).toBe("Open")
          yield* TestClock.adjust("2 seconds")
          yield* answer(200)
          expect(probes).toEqual([false, true, true])
          expect((yield* made.state(origin))._tag).toBe("Closed")
        })
    )

    it.effect(`toEffectBreaker (${kind}): onRejection "allow" runs a call the open circuit refuses, unrecorded`, () =>
      Effect.gen(function* () {
        const made = yield* CircuitBreaker.make({
          tripPolicy: CircuitBreaker.consecutive(1),
          breakDuration: "1 second"
        })
        const breaker = kind === "made by make" ? made : { ...made }
        const effect = yield* CircuitBreaker.toEffectBreaker(breaker)
        yield* Effect.exit(effect.execute(Effect.fail("boom"), { key: origin }))
        let ran = 0
        const call = Effect.sync(() => ++ran)
        const refused = failureOf(yield* Effect.exit(effect.execute(call, { key: origin })))
        assert.isTrue(refused instanceof EffectBreaker.CircuitBreakerError)
        expect(yield* effect.execute(call, { key: origin, onRejection: "allow" })).toBe(1)
        // Unrecorded: a success while open neither closes the circuit nor takes its probe.
        expect((yield* made.state(origin))._tag).toBe("Open")
        yield* TestClock.adjust("1 second")
        expect(yield* effect.execute(call, { key: origin })).toBe(2)
        expect((yield* made.state(origin))._tag).toBe("Closed")
      })
    )
  }

  it("bad breaker options are InvalidRetryPolicy naming the option in full", () => {
    expect(() => RetryPolicy.make({ circuitBreaker: CircuitBreaker.perOrigin({ breakDuration: "1 millis" }) })).toThrow(
      /"circuitBreaker.breakDuration": must be from 500 millis to 1 day/
    )
    expect(() =>
      RetryPolicy.make({ circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.consecutive(0) }) })
    ).toThrow(/"circuitBreaker.tripPolicy.failures"/)
  })
})

describe("metrics, Effect 4", () => {
  it.effect("attempts, retries and give-ups by reason, per origin and method", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      yield* callOnce(ResilientHttpClient.withResilience(scripted.client, fast).get(url))
      const snapshots = yield* Metric.snapshot
      const countOf = (id: string, attributes: Record<string, string>) =>
        snapshots.find(
          (snapshot) =>
            snapshot.id === id &&
            Object.entries(attributes).every(([key, value]) => snapshot.attributes?.[key] === value)
        )?.state
      const attributes = { "server.address": "api.test", "server.port": "80", "http.request.method": "GET" }
      expect(countOf("http.client.resilience.attempts", attributes)).toMatchObject({ count: 3 })
      expect(countOf("http.client.resilience.retries", attributes)).toMatchObject({ count: 2 })
      expect(
        countOf("http.client.resilience.give_ups", {
          ...attributes,
          "http.client.resilience.give_up.reason": "attempts-exhausted"
        })
      ).toMatchObject({ count: 1 })
    }).pipe(Effect.provideService(Metric.MetricRegistry, new Map()))
  )
})
