/**
 * The check that discarded responses are really released: many retried calls against a lasting
 * 503 must reuse a few keep-alive connections and leave nothing open behind them.
 */
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { Agent } from "undici"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"

const concurrency = 32

// undici with a pool of `concurrency` connections per origin: the bound the server must observe.
const pooledUndici = NodeHttpClient.layerUndiciWithoutDispatcher.pipe(
  Layer.provide(
    Layer.scoped(
      NodeHttpClient.Dispatcher,
      Effect.acquireRelease(
        Effect.sync(() => new Agent({ connections: concurrency })),
        (agent) => Effect.promise(() => agent.destroy())
      )
    )
  )
)

interface Case {
  readonly transport: string
  readonly layer: Layer.Layer<HttpClient.HttpClient>
  readonly calls: number
}

const cases: ReadonlyArray<Case> = [
  { transport: "undici (pool of 32)", layer: pooledUndici, calls: 200 },
  { transport: "fetch", layer: FetchHttpClient.layer, calls: 300 }
]

// A pool replaces a connection that is still closing, so a few more than `concurrency` may
// appear; a response left unreleased would instead pin its connection and cost one per request.
const maxConnections = 2 * concurrency

const openSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === "TCPSocketWrap").length

layer(ChaosServer.layer(), { excludeTestServices: true })("connection hygiene", (it) => {
  for (const { calls, layer: transport, transport: name } of cases) {
    it.effect(`${calls} calls x 3 attempts against a lasting 503 over ${name} reuse connections and leak none`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        yield* server.reset
        const socketsBefore = openSockets()
        // No retry budget: every call makes its 3 attempts, the load this test is about.
        const client = yield* ResilientHttpClient.make({ maxAttempts: 3, jitter: "none", retryBudget: "none" })
        const failures = yield* Effect.forEach(
          Array.from({ length: calls }, (_, i) => i),
          () => Effect.flip(Effect.scoped(client.get(`${server.url}/api/status/503?retryAfter=0`))),
          { concurrency }
        )
        expect(failures.every((failure) => failure._tag === "TransientStatus" && failure.attempt === 3)).toBe(true)
        const stats = yield* server.stats
        const requests = calls * 3
        expect(stats.requests.byPath["/api/status/503"]).toBe(requests)
        // Drained bodies let keep-alive reuse connections: never more open than the pool, and
        // far fewer opened than requests (one per request if responses were left to the GC).
        expect(stats.connections.open, "connections open at the server").toBeLessThanOrEqual(maxConnections)
        expect(stats.connections.opened, "connections opened").toBeLessThan(requests / 10)
        expect(stats.requests.inFlight, "requests still in flight").toBe(0)
        // Idle keep-alive sockets may stay pooled in the client, but none beyond the pool.
        expect(openSockets() - socketsBefore, "sockets the client still holds").toBeLessThanOrEqual(maxConnections)
      }).pipe(Effect.provide(transport))
    )
  }
})
