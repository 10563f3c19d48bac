import { HttpClientRequest } from "@effect/platform"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Duration, Effect, Exit, Fiber, Option, type Scope, TestClock } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryBudget from "../src/RetryBudget.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/r"
const fast = { jitter: "none", backoff: RetryPolicy.constant("10 millis"), maxAttempts: 3 } as const

/** Runs `use` on the TestClock until it ends; its exit and when it ended, from its start. */
const run = <A, E>(use: Effect.Effect<A, E, Scope.Scope>, advance: Duration.DurationInput = "1 minute") =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.fork(
      Effect.flatMap(Effect.exit(Effect.scoped(use)), (exit) =>
        Effect.map(Clock.currentTimeMillis, (end) => ({ exit, endedAt: end - start }))
      )
    )
    yield* TestClock.adjust(advance)
    return yield* Fiber.join(fiber)
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}

/** `calls` calls one after another against a lasting 503; the requests the server saw. */
const outage = (calls: number, options: RetryPolicy.Options, spacing: Duration.DurationInput = 0) =>
  Effect.gen(function* () {
    const scripted = ScriptedHttpClient.make([{ status: 503 }])
    const client = ResilientHttpClient.withResilience(scripted.client, options)
    const { exit } = yield* run(
      Effect.forEach(Array.from({ length: calls }), () =>
        Effect.zipLeft(Effect.flip(Effect.scoped(client.get(url))), Effect.sleep(spacing))
      ),
      Duration.sum(Duration.times(Duration.decode(spacing), calls), Duration.minutes(1))
    )
    if (Exit.isFailure(exit)) throw new Error(Cause.pretty(exit.cause))
    const reasons = new Map<string, number>()
    for (const failure of exit.value) {
      const reason = failure.giveUpReason ?? "none"
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    }
    return { requests: scripted.exchanges.length, reasons, failures: exit.value }
  })

describe("retry budget", () => {
  it.effect("without one, a lasting outage costs maxAttempts requests per call", () =>
    Effect.gen(function* () {
      // No backoff: the attempts, not the waits, are what this counts.
      const { reasons, requests } = yield* outage(30, {
        ...fast,
        backoff: RetryPolicy.constant(0),
        retryBudget: "none"
      })
      expect(requests).toBe(90)
      expect(reasons.get("attempts-exhausted")).toBe(30)
    })
  )

  it.effect("on by default: retries spend the floor (10/s over 10 s) plus a tenth of the calls, then stop", () =>
    Effect.gen(function* () {
      // Each call a minute after the last: every deposit and withdrawal has expired, the floor
      // is whole again, and every call retries twice.
      const spaced = yield* outage(5, fast, "1 minute")
      expect(spaced.requests).toBe(15)

      // Back to back, within the ttl: the floor of 100 retries and 0.1 per call are spent.
      // No backoff: the budget, not the waits, is what this measures.
      const { failures, requests } = yield* outage(200, { ...fast, backoff: RetryPolicy.constant(0) })
      const retries = requests - 200
      // 100 from the floor and 20 from 200 calls' deposits, give or take the last call's.
      expect(retries).toBeGreaterThanOrEqual(118)
      expect(retries).toBeLessThanOrEqual(121)
      const refused = failures.filter((failure) => failure.giveUpReason === "retry-budget-exhausted")
      expect(refused.length).toBeGreaterThan(100)
      expect(refused[0]!.message).toBe(
        `GET ${url}: status 503 on attempt ${refused[0]!.attempt}; gave up: the retry budget for this origin is spent (too many retries to it lately)`
      )
    })
  )

  it.effect("a refused retry ends the call at once: no wait", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 3, tokenRatio: 0.1 }))
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        backoff: RetryPolicy.constant("5 seconds"),
        retryBudget: budget
      })
      // The bucket starts full (3 tokens); a failure costs 1; retries only above half (1.5):
      // the first failure (2 left) retries after 5 s, the second (1 left) is refused at once.
      const { endedAt, exit } = yield* run(client.get(url))
      expect(failureOf(exit)).toMatchObject({ attempt: 2, giveUpReason: "retry-budget-exhausted" })
      expect(endedAt).toBe(5000)
      expect(yield* budget.balance("http://api.test:80")).toBe(1)
    })
  )

  it.effect("sparse failures still retry: 5% of calls failing once all succeed", () =>
    Effect.gen(function* () {
      const failing = new Set(Array.from({ length: 5 }, (_, i) => i * 20 + 7))
      const answers: Array<ScriptedHttpClient.Answer> = []
      for (let call = 0; call < 100; call++) {
        if (failing.has(call)) answers.push({ status: 503 })
        answers.push({ status: 200 })
      }
      const scripted = ScriptedHttpClient.make(answers)
      const client = ResilientHttpClient.withResilience(scripted.client, { ...fast, backoff: RetryPolicy.constant(0) })
      const { exit } = yield* run(Effect.forEach(Array.from({ length: 100 }), () => client.get(url)))
      assert.isTrue(Exit.isSuccess(exit))
      expect(scripted.exchanges).toHaveLength(105)
    })
  )

  it.effect("one budget shared by two clients: what one spends, the other cannot", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 4, tokenRatio: 0.1 }))
      const first = ScriptedHttpClient.make([{ status: 503 }])
      const second = ScriptedHttpClient.make([{ status: 503 }])
      const a = ResilientHttpClient.withResilience(first.client, { ...fast, retryBudget: budget })
      const b = ResilientHttpClient.withResilience(second.client, { ...fast, retryBudget: budget })
      // 4 tokens: retries while above 2. a's first failure (3 left) retries, its second (2) does not.
      expect(failureOf((yield* run(a.get(url))).exit)).toMatchObject({
        attempt: 2,
        giveUpReason: "retry-budget-exhausted"
      })
      expect(failureOf((yield* run(b.get(url))).exit)).toMatchObject({
        attempt: 1,
        giveUpReason: "retry-budget-exhausted"
      })
      expect([first.exchanges.length, second.exchanges.length]).toEqual([2, 1])
    })
  )

  it.effect("an origin's budget is its own: another origin still retries", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 2, tokenRatio: 0.1 }))
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...fast, retryBudget: budget })
      yield* run(client.get("http://one.test/r"))
      yield* run(client.get("http://two.test/r"))
      expect(scripted.exchanges.map((exchange) => new URL(exchange.request.url).host)).toEqual(["one.test", "two.test"])
      // Each origin's first failure took its bucket from 2 to 1, not above half: no retry.
      expect(yield* budget.balance("http://one.test:80")).toBe(1)
      expect(yield* budget.balance("http://two.test:80")).toBe(1)
      expect(yield* budget.balance("http://three.test:80")).toBe(2)
    })
  )

  it.effect("a bad budget option is an InvalidRetryPolicy naming it", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(RetryPolicy.validate({ retryBudget: { ratio: -1 } }))
      expect(error).toBeInstanceOf(RetryPolicy.InvalidRetryPolicy)
      expect(error.option).toBe("retryBudget.ratio")
      expect(() =>
        ResilientHttpClient.withResilience(ScriptedHttpClient.make([]).client, {
          circuitBreaker: CircuitBreaker.perOrigin({ breakDuration: "-1 seconds" })
        })
      ).toThrow(RetryPolicy.InvalidRetryPolicy)
    })
  )
})

describe("circuit breaker", () => {
  const breaker = {
    tripPolicy: CircuitBreaker.consecutive(3),
    breakDuration: "5 seconds"
  } as const

  it.effect("opens after the trip policy's failures; an open circuit ends a call at once, sending nothing", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin(breaker)
      })
      // Three attempts fail: the third opens the circuit.
      const first = yield* run(client.get(url), "1 second")
      expect(failureOf(first.exit)).toMatchObject({ attempt: 3, giveUpReason: "attempts-exhausted" })
      expect(scripted.exchanges).toHaveLength(3)

      const rejected = yield* run(client.get(url), "1 second")
      const failure = failureOf(rejected.exit)
      expect(rejected.endedAt).toBe(0)
      expect(scripted.exchanges).toHaveLength(3)
      expect(failure).toMatchObject({ _tag: "ConnectionError", reason: "CircuitOpen", giveUpReason: "circuit-open" })
      if (failure._tag !== "ConnectionError") return
      assert.isTrue(failure.cause instanceof CircuitBreaker.CircuitOpen)
      expect(failure.message).toBe(`GET ${url}: not sent: the circuit breaker for this origin is open`)
    })
  )

  it.effect("within a call: a retry the open circuit rejects ends the call with the last real failure, no wait", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        backoff: RetryPolicy.constant("1 second"),
        circuitBreaker: CircuitBreaker.perOrigin({
          tripPolicy: CircuitBreaker.consecutive(1),
          breakDuration: "5 seconds"
        })
      })
      const { endedAt, exit } = yield* run(client.get(url), "2 seconds")
      expect(failureOf(exit)).toMatchObject({
        _tag: "TransientStatus",
        status: 503,
        attempt: 1,
        giveUpReason: "circuit-open"
      })
      // The retry's wait passed, then the circuit (open for 5 s) rejected it without a request.
      expect(endedAt).toBe(1000)
      expect(scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("half-opens after the break: one probe goes through, and a success closes the circuit", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 503 }, { status: 503 }, { status: 200 }])
      const breakerService = yield* CircuitBreaker.make(breaker)
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin(breakerService)
      })
      yield* run(client.get(url), "1 second")
      expect(yield* breakerService.state("http://api.test:80")).toMatchObject({ _tag: "Open" })
      yield* TestClock.adjust("5 seconds")
      const probe = yield* run(client.get(url), "1 second")
      assert.isTrue(Exit.isSuccess(probe.exit))
      expect(scripted.exchanges).toHaveLength(4)
      expect(yield* breakerService.state("http://api.test:80")).toMatchObject({ _tag: "Closed" })
    })
  )

  it.effect("a 429 is not a health sample; a permanent status is a success", () =>
    Effect.gen(function* () {
      const breakerService = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(2) })
      const scripted = ScriptedHttpClient.make([{ status: 429 }, { status: 429 }, { status: 429 }, { status: 404 }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        retryBudget: "none",
        circuitBreaker: CircuitBreaker.perOrigin(breakerService)
      })
      yield* run(client.get(url))
      yield* run(client.get(url))
      expect(yield* breakerService.state("http://api.test:80")).toMatchObject({ _tag: "Closed" })
      expect(scripted.exchanges).toHaveLength(4)
    })
  )

  it.effect("a Retry-After on the failure that opens the circuit lengthens the break", () =>
    Effect.gen(function* () {
      const breakerService = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "5 seconds",
        maxBreakDuration: "20 seconds"
      })
      const scripted = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "12" } }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        maxAttempts: 1,
        circuitBreaker: CircuitBreaker.perOrigin(breakerService)
      })
      yield* run(client.get(url), "1 second")
      const rejected = failureOf((yield* run(client.get(url), "1 second")).exit)
      if (rejected._tag !== "ConnectionError") throw new Error("expected a rejection")
      assert.isTrue(rejected.cause instanceof CircuitBreaker.CircuitOpen)
      if (rejected.cause instanceof CircuitBreaker.CircuitOpen) {
        // 12 s from the failure; the rejection came 1 s later.
        expect(Duration.toMillis(rejected.cause.retryAfter)).toBe(11_000)
      }
    })
  )

  it.effect("isolate holds the circuit open by hand: nothing is sent", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const breakerService = yield* CircuitBreaker.make({ tripPolicy: CircuitBreaker.consecutive(1) })
      yield* breakerService.isolate("http://api.test:80")
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin(breakerService)
      })
      const { exit } = yield* run(client.execute(HttpClientRequest.get(url)), "1 second")
      expect(failureOf(exit)).toMatchObject({ reason: "CircuitOpen", giveUpReason: "circuit-open" })
      expect(scripted.exchanges).toHaveLength(0)
    })
  )
})
