/**
 * Overload protection over real loopback sockets: a counted outage against the chaos server,
 * through undici, with and without the retry budget and the circuit breaker.
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

const calls = 300
const fast = { maxAttempts: 3, backoff: RetryPolicy.constant("1 millis"), jitter: "none" } as const

/** `calls` calls at concurrency 16 against a lasting 503: the requests the server saw, per call. */
const outage = (options: RetryPolicy.Options) =>
  Effect.gen(function* () {
    const server = yield* ChaosServer.ChaosServer
    yield* server.reset
    const client = ResilientHttpClient.withResilience(yield* HttpClient.HttpClient, options)
    const path = "/api/status/503"
    const failures = yield* Effect.forEach(
      Array.from({ length: calls }),
      () => Effect.flip(Effect.scoped(client.get(`${server.url}${path}?retryAfter=none`))),
      { concurrency: 16 }
    )
    const stats = yield* server.stats
    return { perCall: (stats.requests.byPath[path] ?? 0) / calls, failures }
  })

layer(ChaosServer.layer(), { excludeTestServices: true })("overload protection over undici", (it) => {
  it.effect(
    "an outage: 3 requests a call without a budget; with the default budget, the floor and a tenth of the calls",
    () =>
      Effect.gen(function* () {
        const unguarded = yield* outage({ ...fast, retryBudget: "none" })
        expect(unguarded.perCall).toBe(3)

        const budgeted = yield* outage(fast)
        // 300 calls deposit 30 retries; the floor adds 100 (10/s over the 10 s ttl).
        expect(budgeted.perCall).toBeGreaterThan(1.3)
        expect(budgeted.perCall).toBeLessThanOrEqual((calls + 130 + 2) / calls)
        const refused = budgeted.failures.filter((failure) => failure.giveUpReason === "retry-budget-exhausted")
        expect(refused.length).toBeGreaterThan(100)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.effect("an outage with the breaker: after it opens, calls end at once and nothing reaches the server", () =>
    Effect.gen(function* () {
      const guarded = yield* outage({
        ...fast,
        retryBudget: "none",
        circuitBreaker: CircuitBreaker.perOrigin({
          tripPolicy: CircuitBreaker.consecutive(5),
          breakDuration: "30 seconds"
        })
      })
      // Five failed attempts open the circuit (a few more were in flight at that moment).
      expect(guarded.perCall * calls).toBeLessThan(5 + 16 * 3)
      const rejected = guarded.failures.filter((failure) => failure.giveUpReason === "circuit-open")
      expect(rejected.length).toBeGreaterThan(calls - 30)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )
})
