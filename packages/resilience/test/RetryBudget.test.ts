import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Metric, TestClock } from "effect"
import * as metrics from "../src/internal/metrics.js"
import { OriginTable } from "@effect-http-resilience/core/Origin"
import * as RetryBudget from "../src/RetryBudget.js"
import { expectInvalidOption } from "./support/invalidOptions.js"

const origin = "https://api.test:443"

/** Asks for retries until one is refused; returns how many were allowed. */
const drain = (budget: RetryBudget.RetryBudget.Service, key = origin, kind: RetryBudget.FailureKind = "timeout") =>
  Effect.gen(function* () {
    let allowed = 0
    while (yield* budget.tryRetry(key, kind)) allowed++
    return allowed
  })

const requests = (budget: RetryBudget.RetryBudget.Service, n: number, key = origin) =>
  Effect.forEach(Array.from({ length: n }), () => budget.onRequest(key), { discard: true })

describe("RetryBudget.originOf", () => {
  const cases: ReadonlyArray<readonly [string | URL, string]> = [
    ["http://example.com/a?b=c", "http://example.com:80"],
    ["http://example.com:80/", "http://example.com:80"],
    ["HTTPS://API.Example.COM/v1", "https://api.example.com:443"],
    ["https://api.example.com:8443/x", "https://api.example.com:8443"],
    ["http://user:secret@example.com/", "http://example.com:80"],
    ["http://127.0.0.1:3000/health", "http://127.0.0.1:3000"],
    ["http://[::1]/", "http://[::1]:80"],
    [new URL("wss://socket.example.com/chat"), "wss://socket.example.com:443"],
    ["ftp://files.example.com/x", "ftp://files.example.com"],
    ["/relative/path", "/relative/path"]
  ]
  for (const [url, expected] of cases) {
    it(`${String(url)} -> ${expected}`, () => {
      expect(RetryBudget.originOf(url)).toBe(expected)
    })
  }
})

describe("RetryBudget (default: Finagle's budget)", () => {
  it.effect("starts with the floor of 10 per second over 10 s: exactly 100 retries, then refusals", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make()
      expect(yield* budget.balance(origin)).toBe(100)
      expect(yield* drain(budget)).toBe(100)
      expect(yield* budget.balance(origin)).toBe(0)
    })
  )

  it.effect("every 10 requests buy one more retry", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make()
      yield* requests(budget, 1000)
      expect(yield* budget.balance(origin)).toBe(200)
      expect(yield* drain(budget)).toBe(200)
    })
  )

  it.effect("TestClock drives expiry: the spent floor comes back after ttl, deposits go", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make({ ttl: "10 seconds" })
      yield* requests(budget, 1000)
      expect(yield* drain(budget)).toBe(200)
      yield* TestClock.adjust("9 seconds")
      expect(yield* budget.tryRetry(origin, "transient-status")).toBe(false)
      yield* TestClock.adjust("1 second")
      // The withdrawals and the 1000 deposits of t=0 have all expired: the floor alone is left.
      expect(yield* budget.balance(origin)).toBe(100)
    })
  )

  it.effect("options change the arithmetic: ratio 0.5, floor 2 per second over 5 s", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make({ ratio: 0.5, minPerSecond: 2, ttl: "5 seconds" })
      expect(budget.settings).toEqual({ _tag: "Finagle", ratio: 0.5, minPerSecond: 2, ttl: Duration.seconds(5) })
      yield* requests(budget, 20)
      expect(yield* drain(budget)).toBe(20)
    })
  )

  it.effect("keeps one budget per origin", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make()
      expect(yield* drain(budget, "http://a.test:80")).toBe(100)
      expect(yield* budget.balance("http://b.test:80")).toBe(100)
      expect(yield* drain(budget, "http://b.test:80")).toBe(100)
    })
  )

  it.effect("is shared by everything provided with one layer, and separate across make calls", () =>
    Effect.gen(function* () {
      const clientA = Effect.flatMap(RetryBudget.RetryBudget, (budget) => drain(budget))
      const clientB = Effect.flatMap(RetryBudget.RetryBudget, (budget) => budget.balance(origin))
      const shared = yield* Effect.all([clientA, clientB]).pipe(Effect.provide(RetryBudget.layer()))
      expect(shared).toEqual([100, 0])

      const first = yield* RetryBudget.make()
      const second = yield* RetryBudget.make()
      yield* drain(first)
      expect(yield* second.balance(origin)).toBe(100)
    })
  )

  it.effect("concurrent callers never overspend: 200 fibers racing for 100 retries get exactly 100", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make()
      const decisions = yield* Effect.all(
        Array.from({ length: 200 }, () => Effect.zipRight(Effect.yieldNow(), budget.tryRetry(origin, "timeout"))),
        { concurrency: "unbounded" }
      )
      expect(decisions.filter(Boolean)).toHaveLength(100)
    })
  )

  it.effect("counts each refusal in http.client.resilience.retry_budget.refusals, per origin", () =>
    Effect.gen(function* () {
      const key = "https://refusals.test:443"
      const counter = Metric.taggedWithLabels(metrics.retryBudgetRefusals, metrics.originAttributes(key))
      const before = (yield* Metric.value(counter)).count
      const budget = yield* RetryBudget.make({ minPerSecond: 1, ttl: "1 second" })
      expect(yield* drain(budget, key)).toBe(1)
      yield* budget.tryRetry(key, "timeout")
      expect((yield* Metric.value(counter)).count - before).toBe(2)
    })
  )
})

describe("RetryBudget presets", () => {
  it.effect("tokenBucket: gRPC A6 through the service", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.tokenBucket())
      expect(budget.settings).toEqual({ _tag: "TokenBucket", maxTokens: 10, tokenRatio: 0.1 })
      const decisions: Array<boolean> = []
      for (let i = 0; i < 5; i++) {
        yield* budget.onFailure(origin, "transient-status")
        decisions.push(yield* budget.tryRetry(origin, "transient-status"))
      }
      expect(decisions).toEqual([true, true, true, true, false])
      yield* budget.onSuccess(origin)
      expect(yield* budget.balance(origin)).toBe(5.1)
      expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
      expect(yield* budget.balance("http://other.test:80")).toBe(10)
    })
  )

  it.effect("awsQuota: 5 a retry, 10 after a timeout, refunds on success", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.awsQuota({ capacity: 20 }))
      expect(yield* budget.tryRetry(origin, "timeout")).toBe(true)
      expect(yield* budget.tryRetry(origin, "transient-status")).toBe(true)
      expect(yield* budget.tryRetry(origin, "timeout")).toBe(false)
      expect(yield* budget.balance(origin)).toBe(5)
      yield* budget.onSuccess(origin, "transient-status")
      yield* budget.onSuccess(origin)
      expect(yield* budget.balance(origin)).toBe(11)
      expect(yield* budget.tryRetry(origin, "timeout")).toBe(true)
    })
  )

  for (const input of [RetryBudget.none, "none" as const]) {
    it.effect(`${typeof input === "string" ? '"none"' : "none"}: every retry allowed, balance infinite`, () =>
      Effect.gen(function* () {
        const budget = yield* RetryBudget.make(input)
        expect(budget.settings).toEqual({ _tag: "None" })
        expect(yield* budget.tryRetry(origin, "timeout")).toBe(true)
        expect(yield* budget.balance(origin)).toBe(Number.POSITIVE_INFINITY)
      })
    )
  }

  it.effect("finagle() is the default with options", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make(RetryBudget.finagle({ minPerSecond: 3 }))
      expect(yield* budget.balance(origin)).toBe(30)
    })
  )
})

describe("RetryBudget invalid options", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, unknown]> = [
    ["a negative ratio", { ratio: -0.1 }, "retryBudget.ratio", -0.1],
    ["a ratio that is a string", { ratio: "10%" }, "retryBudget.ratio", "10%"],
    ["a fractional floor", { minPerSecond: 2.5 }, "retryBudget.minPerSecond", 2.5],
    ["a ttl under a second", { ttl: "500 millis" }, "retryBudget.ttl", "500 millis"],
    ["a ttl that is not a duration", { ttl: "soon" }, "retryBudget.ttl", "soon"],
    ["a negative ttl", { ttl: -5 }, "retryBudget.ttl", -5],
    ["a misspelt option", { ration: 0.1 }, "retryBudget.ration", 0.1],
    ["no token in the bucket", RetryBudget.tokenBucket({ maxTokens: 0 }), "retryBudget.maxTokens", 0],
    ["an AWS cost of 0", RetryBudget.awsQuota({ retryCost: 0 }), "retryBudget.retryCost", 0],
    ["an unknown AWS option", RetryBudget.awsQuota({ cost: 5 } as RetryBudget.AwsQuotaOptions), "retryBudget.cost", 5],
    ["an unknown strategy", { _tag: "Envoy", options: {} }, "retryBudget", { _tag: "Envoy", options: {} }]
  ]
  for (const [label, input, option, value] of cases) {
    // Inputs a caller could only build by going around the types.
    it.effect(`${label}: InvalidRetryPolicy naming "${option}"`, () =>
      expectInvalidOption(RetryBudget, input as RetryBudget.Input, option, value)
    )
  }

  it("explains the range in the message", () => {
    const result = RetryBudget.validate({ ttl: "2 minutes" })
    expect(Either.isLeft(result) && result.left.message).toBe(
      'Invalid retry policy option "retryBudget.ttl": must be from 1 second to 60 seconds (got "2 minutes")'
    )
  })
})

describe("per-origin state is dropped once it is back to fresh", () => {
  it("sweeps idle entries at most once a minute, when a new origin arrives", () => {
    const evicted: Array<string> = []
    const table = new OriginTable<{ readonly origin: string; idle: boolean }>(
      (origin) => ({ origin, idle: false }),
      (entry) => entry.idle,
      { onEvict: (entry) => evicted.push(entry.origin) }
    )
    const a = table.get("a", 0)
    table.get("b", 0)
    a.idle = true
    table.get("c", 30_000)
    expect(evicted).toEqual([])
    table.get("d", 60_000)
    expect(evicted).toEqual(["a"])
    expect(table.size).toBe(3)
    expect(table.peek("a")).toBeUndefined()
    expect(table.get("a", 60_001)).not.toBe(a)
  })

  it.effect("a budget whose records all expired starts over as a fresh one (nothing observable changes)", () =>
    Effect.gen(function* () {
      const budget = yield* RetryBudget.make()
      yield* drain(budget, "http://old.test:80")
      yield* TestClock.adjust("2 minutes")
      yield* budget.onRequest("http://new.test:80")
      expect(yield* budget.balance("http://old.test:80")).toBe(100)
    })
  )
})
