import { HttpBody, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Exit, Fiber, Metric, MetricState, type Scope, Stream, TestClock } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryBudget from "../src/RetryBudget.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

// Metrics live in Effect's global registry: every test calls its own host, and reads only the
// series of that host, so the values it expects are exact, not differences.

const fast = { jitter: "none", backoff: RetryPolicy.constant("100 millis") } as const

interface Reading {
  readonly attributes: Readonly<Record<string, string>>
  readonly value: number
}

/** Every series of the metric recorded for the host, attributes as a record (order-free). */
const readings = (name: string, host: string): Effect.Effect<ReadonlyArray<Reading>> =>
  Effect.map(Metric.snapshot, (pairs) =>
    pairs
      .filter(
        (pair) =>
          pair.metricKey.name === name &&
          pair.metricKey.tags.some((tag) => tag.key === "server.address" && tag.value === host)
      )
      .map((pair) => ({
        attributes: Object.fromEntries(pair.metricKey.tags.map((tag) => [tag.key, tag.value])),
        value: readingOf(pair.metricState)
      }))
      .sort(byAttributes)
  )

const byAttributes = (a: Reading, b: Reading): number =>
  JSON.stringify(Object.entries(a.attributes).sort()).localeCompare(JSON.stringify(Object.entries(b.attributes).sort()))

/** Asserts the metric's series for the host are exactly these, in any order. */
const expectSeries = (metric: string, host: string, expected: ReadonlyArray<Reading>): Effect.Effect<void> =>
  Effect.map(readings(metric, host), (actual) => {
    expect(actual, metric).toEqual([...expected].sort(byAttributes))
  })

const readingOf = (state: MetricState.MetricState.Untyped): number => {
  if (MetricState.isCounterState(state)) return Number(state.count)
  if (MetricState.isGaugeState(state)) return Number(state.value)
  throw new Error("only counters and gauges are expected")
}

const name = {
  attempts: "http.client.resilience.attempts",
  retries: "http.client.resilience.retries",
  giveUps: "http.client.resilience.give_ups",
  refusals: "http.client.resilience.retry_budget.refusals",
  state: "http.client.resilience.circuit_breaker.state",
  transitions: "http.client.resilience.circuit_breaker.transitions",
  rejections: "http.client.resilience.circuit_breaker.refusals"
} as const

const originOf = (host: string) => ({ "url.scheme": "http", "server.address": host, "server.port": "8080" })

/** The `count` series of one metric for the host, with these attributes beyond the origin. */
const series = (host: string, count: number, attributes: Readonly<Record<string, string>> = {}): Reading => ({
  attributes: { ...originOf(host), ...attributes },
  value: count
})

/** Runs one call to its end on the TestClock. */
const settle = <A, E>(call: Effect.Effect<A, E, Scope.Scope>, time: Duration.DurationInput = "1 minute") =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(Effect.exit(Effect.scoped(call)))
    yield* TestClock.adjust(time)
    return yield* Fiber.join(fiber)
  })

const clientOver = (script: ReadonlyArray<ScriptedHttpClient.Answer>, policy: RetryPolicy.Options) => {
  const scripted = ScriptedHttpClient.make(script)
  return { scripted, client: ResilientHttpClient.withResilience(scripted.client, policy) }
}

describe("metrics of a call", () => {
  it.effect("retried twice, then a success: 3 attempts, 2 retries, no give-up, no refusal", () =>
    Effect.gen(function* () {
      const host = "retried.test"
      const { client } = clientOver([{ status: 503 }, { status: 503 }, { status: 200 }], fast)
      const exit = yield* settle(client.get(`http://${host}:8080/r`))
      expect(Exit.isSuccess(exit)).toBe(true)

      const get = { "http.request.method": "GET" }
      yield* expectSeries(name.attempts, host, [series(host, 3, get)])
      yield* expectSeries(name.retries, host, [series(host, 2, get)])
      yield* expectSeries(name.giveUps, host, [])
      yield* expectSeries(name.refusals, host, [])
      // No breaker configured: no breaker series at all.
      yield* expectSeries(name.state, host, [])
    })
  )

  it.effect("every method is its own series", () =>
    Effect.gen(function* () {
      const host = "methods.test"
      const { client } = clientOver([{ status: 200 }], fast)
      yield* settle(client.get(`http://${host}:8080/r`))
      yield* settle(client.put(`http://${host}:8080/r`))
      yield* settle(client.put(`http://${host}:8080/r`))
      yield* expectSeries(name.attempts, host, [
        series(host, 1, { "http.request.method": "GET" }),
        series(host, 2, { "http.request.method": "PUT" })
      ])
    })
  )

  const giveUps: ReadonlyArray<
    readonly [
      reason: RetryPolicy.GiveUpReason,
      script: ReadonlyArray<ScriptedHttpClient.Answer>,
      policy: RetryPolicy.Options,
      request: (url: string) => HttpClientRequest.HttpClientRequest,
      attempts: number
    ]
  > = [
    ["not-retryable", [{ status: 404 }], fast, HttpClientRequest.get, 1],
    ["not-idempotent", [{ status: 503 }], fast, HttpClientRequest.post, 1],
    [
      "one-shot-body",
      [{ status: 503 }],
      fast,
      (url) =>
        HttpClientRequest.put(url).pipe(HttpClientRequest.setBody(HttpBody.stream(Stream.make(new Uint8Array([1]))))),
      1
    ],
    ["attempts-exhausted", [{ status: 503 }], { ...fast, maxAttempts: 3 }, HttpClientRequest.get, 3],
    [
      "retry-after-exceeds-max-delay",
      [{ status: 503, headers: { "retry-after": "60" } }],
      { ...fast, maxDelay: "5 seconds", whenRetryAfterExceedsMaxDelay: "give-up" },
      HttpClientRequest.get,
      1
    ],
    [
      "deadline-exceeded",
      [{ status: 503 }],
      { ...fast, backoff: RetryPolicy.constant("20 seconds"), totalTimeout: "30 seconds", maxAttempts: 5 },
      HttpClientRequest.get,
      2
    ],
    // The bucket holds 1 token; the first failure takes it, and no retry is allowed at or below half.
    [
      "retry-budget-exhausted",
      [{ status: 503 }],
      { ...fast, retryBudget: RetryBudget.tokenBucket({ maxTokens: 1 }) },
      HttpClientRequest.get,
      1
    ]
  ]
  for (const [reason, script, policy, request, attempts] of giveUps) {
    it.effect(`a give-up for "${reason}" is counted once, with the reason`, () =>
      Effect.gen(function* () {
        const host = `${reason}.test`
        const { client, scripted } = clientOver(script, policy)
        const exit = yield* settle(client.execute(request(`http://${host}:8080/r`)))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(scripted.exchanges.length).toBe(attempts)

        const method = { "http.request.method": request("http://x").method }
        yield* expectSeries(name.giveUps, host, [
          series(host, 1, { ...method, "http.client.resilience.give_up.reason": reason })
        ])
        yield* expectSeries(name.attempts, host, [series(host, attempts, method)])
        yield* expectSeries(name.retries, host, attempts > 1 ? [series(host, attempts - 1, method)] : [])
        yield* expectSeries(name.refusals, host, reason === "retry-budget-exhausted" ? [series(host, 1)] : [])
      })
    )
  }

  it.effect("a budget shared by calls: each refused retry is counted, per origin, apart from other origins", () =>
    Effect.gen(function* () {
      const host = "budget.test"
      const other = "budget-other.test"
      const budget = yield* RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 4 }))
      const { client } = clientOver([{ status: 503 }], { ...fast, maxAttempts: 2, retryBudget: budget })
      // 4 tokens: the first failure leaves 3 (a retry), its retry's failure 2 (at half: no
      // more); every later call's first failure is refused.
      for (let i = 0; i < 3; i++) yield* settle(client.get(`http://${host}:8080/r`))
      yield* settle(client.get(`http://${other}:8080/r`))

      const get = { "http.request.method": "GET" }
      yield* expectSeries(name.refusals, host, [series(host, 2)])
      yield* expectSeries(name.attempts, host, [series(host, 4, get)])
      yield* expectSeries(name.retries, host, [series(host, 1, get)])
      yield* expectSeries(name.giveUps, host, [
        series(host, 1, { ...get, "http.client.resilience.give_up.reason": "attempts-exhausted" }),
        series(host, 2, { ...get, "http.client.resilience.give_up.reason": "retry-budget-exhausted" })
      ])
      // The other origin has a full bucket of its own.
      yield* expectSeries(name.refusals, other, [])
      yield* expectSeries(name.retries, other, [series(other, 1, get)])
    })
  )
})

describe("metrics of the circuit breaker", () => {
  const stateAttribute = "http.client.resilience.circuit_breaker.state"
  /** The gauge: 1 for the current state, 0 for each state the circuit was in before. */
  const gauge = (host: string, current: string, previous: ReadonlyArray<string>) => [
    series(host, 1, { [stateAttribute]: current }),
    ...previous.map((state) => series(host, 0, { [stateAttribute]: state }))
  ]
  const transition = (host: string, from: string, to: string) =>
    series(host, 1, { "http.client.resilience.circuit_breaker.previous_state": from, [stateAttribute]: to })
  const rejected = (host: string, count: number, state: string) => series(host, count, { [stateAttribute]: state })
  const circuitOpen = (host: string, count: number) =>
    series(host, count, { "http.request.method": "GET", "http.client.resilience.give_up.reason": "circuit-open" })

  it.effect("an origin's circuit is reported closed from its first call, with nothing else recorded", () =>
    Effect.gen(function* () {
      const host = "closed.test"
      const { client } = clientOver([{ status: 503 }, { status: 200 }], {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin({})
      })
      expect(Exit.isSuccess(yield* settle(client.get(`http://${host}:8080/r`)))).toBe(true)
      yield* expectSeries(name.state, host, gauge(host, "closed", []))
      yield* expectSeries(name.transitions, host, [])
      yield* expectSeries(name.rejections, host, [])
    })
  )

  it.effect("opens, rejects, lets a probe through after the break, closes: the gauge follows, every step counted", () =>
    Effect.gen(function* () {
      const host = "breaker.test"
      const url = `http://${host}:8080/r`
      const get = { "http.request.method": "GET" }
      const { client, scripted } = clientOver([{ status: 503 }, { status: 200 }], {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin({
          tripPolicy: CircuitBreaker.consecutive(1),
          breakDuration: "5 seconds"
        })
      })

      // t = 0: the first attempt's 503 opens the circuit; its retry is rejected without being sent.
      expect(Exit.isFailure(yield* settle(client.get(url), "1 second"))).toBe(true)
      expect(scripted.exchanges.length).toBe(1)
      yield* expectSeries(name.state, host, gauge(host, "open", ["closed"]))
      yield* expectSeries(name.transitions, host, [transition(host, "closed", "open")])
      yield* expectSeries(name.rejections, host, [rejected(host, 1, "open")])
      yield* expectSeries(name.giveUps, host, [circuitOpen(host, 1)])
      // The retry the open circuit rejected was not sent: neither an attempt nor a retry.
      yield* expectSeries(name.retries, host, [])
      yield* expectSeries(name.attempts, host, [series(host, 1, get)])

      // t = 1 s: still open; a new call is rejected at its first attempt.
      expect(Exit.isFailure(yield* settle(client.get(url), "5 seconds"))).toBe(true)
      expect(scripted.exchanges.length).toBe(1)
      yield* expectSeries(name.rejections, host, [rejected(host, 2, "open")])
      yield* expectSeries(name.giveUps, host, [circuitOpen(host, 2)])

      // t = 6 s: the break is over; the next attempt is the probe, and its 200 closes the circuit.
      expect(Exit.isSuccess(yield* settle(client.get(url)))).toBe(true)
      expect(scripted.exchanges.length).toBe(2)
      yield* expectSeries(name.state, host, gauge(host, "closed", ["open", "half_open"]))
      yield* expectSeries(name.transitions, host, [
        transition(host, "closed", "open"),
        transition(host, "open", "half_open"),
        transition(host, "half_open", "closed")
      ])
      yield* expectSeries(name.rejections, host, [rejected(host, 2, "open")])
      yield* expectSeries(name.giveUps, host, [circuitOpen(host, 2)])
    })
  )

  it.effect("a second caller while the probe is in flight is rejected as half_open", () =>
    Effect.gen(function* () {
      const host = "half-open.test"
      const url = `http://${host}:8080/r`
      const { client, scripted } = clientOver([{ status: 503 }, { hang: true }], {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin({
          tripPolicy: CircuitBreaker.consecutive(1),
          breakDuration: "5 seconds"
        })
      })
      yield* settle(client.get(url), "6 seconds")
      const probe = yield* Effect.fork(Effect.scoped(client.get(url)))
      yield* TestClock.adjust("1 millis")
      expect(scripted.exchanges.length).toBe(2)

      expect(Exit.isFailure(yield* Effect.exit(Effect.scoped(client.get(url))))).toBe(true)
      yield* expectSeries(name.state, host, gauge(host, "half_open", ["closed", "open"]))
      yield* expectSeries(name.rejections, host, [rejected(host, 1, "open"), rejected(host, 1, "half_open")])
      yield* expectSeries(name.giveUps, host, [circuitOpen(host, 2)])
      yield* Fiber.interrupt(probe)
    })
  )

  it.effect("a circuit isolated by hand: the transition, and every attempt rejected as isolated", () =>
    Effect.gen(function* () {
      const host = "isolated.test"
      const url = `http://${host}:8080/r`
      const breaker = yield* CircuitBreaker.make()
      const { client, scripted } = clientOver([{ status: 200 }], {
        ...fast,
        circuitBreaker: CircuitBreaker.perOrigin(breaker)
      })
      yield* breaker.isolate(CircuitBreaker.originOf(url))
      yield* settle(client.get(url))
      yield* settle(client.get(url))
      expect(scripted.exchanges.length).toBe(0)
      yield* expectSeries(name.state, host, gauge(host, "isolated", ["closed"]))
      yield* expectSeries(name.transitions, host, [transition(host, "closed", "isolated")])
      yield* expectSeries(name.rejections, host, [rejected(host, 2, "isolated")])
      yield* expectSeries(name.giveUps, host, [circuitOpen(host, 2)])

      yield* breaker.close(CircuitBreaker.originOf(url))
      yield* settle(client.get(url))
      expect(scripted.exchanges.length).toBe(1)
      yield* expectSeries(name.state, host, gauge(host, "closed", ["isolated"]))
      yield* expectSeries(name.transitions, host, [
        transition(host, "closed", "isolated"),
        transition(host, "isolated", "closed")
      ])
    })
  )
})
