// @generated from templates/test/e2e/breakerSlowCalls.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The breaker's slow-call trigger (issue #44) over real loopback sockets, on undici and fetch:
 * the chaos server's latency endpoint answers a key's first requests at once and then turns slow;
 * the breaker opens on the slow answers, at the trigger's ratio and minimum, and the next call is
 * rejected unsent: the server never sees it. The trip waits on no clock: a fast answer slowed by
 * a busy machine is at most one more slow call, and the trigger decides only once it has its
 * minimum of four calls, two of which are slow whatever the load.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { FetchHttpClient, type HttpClient } from "@effect/platform"
import { afterAll, beforeAll } from "vitest"
import { type ChaosNamespace, type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as CircuitBreaker from "../../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

/** A key answered in 5 ms for its first two requests, in 400 ms from the third on. */
const turnsSlow = (namespace: ChaosNamespace, key: string) =>
  `${namespace.url}/api/chaos/latency/${key}?slowEvery=3,4,5,6,7,8&slow=400&fast=5`

/** A call's end: its status, or its failure's tag and reason. */
const outcomeOf = (client: ResilientHttpClient.ResilientHttpClient.Service, url: string) =>
  Effect.scoped(
    Effect.map(client.get(url), (response) => `${response.status}`).pipe(
      Effect.catchAll((failure) =>
        Effect.succeed("reason" in failure ? `${failure._tag} ${String(failure.reason)}` : failure._tag)
      )
    )
  )

for (const [name, transport] of transports) {
  describe(`Effect 3 breaker slowCalls over ${name}`, () => {
    it.live("a server that turns slow trips the breaker: the call after the second slow answer is not sent", () =>
      Effect.gen(function* () {
        const namespace = chaos.namespace()
        const breaker = yield* CircuitBreaker.make({
          tripPolicy: CircuitBreaker.consecutive(5),
          breakDuration: "1 minute",
          slowCalls: { duration: "200 millis", ratio: 0.5, minimumThroughput: 4, samplingDuration: "1 minute" }
        })
        const client = yield* ResilientHttpClient.make({
          maxAttempts: 1,
          attemptTimeout: "30 seconds",
          circuitBreaker: CircuitBreaker.perOrigin(breaker)
        })
        const url = turnsSlow(namespace, "turns-slow")
        const origin = CircuitBreaker.originOf(url)
        const outcomes: Array<string> = []
        for (let i = 0; i < 4; i++) outcomes.push(yield* outcomeOf(client, url))
        // Every answer was a 200: only their time opened the circuit.
        expect(outcomes).toEqual(["200", "200", "200", "200"])
        expect((yield* breaker.state(origin))._tag).toBe("Open")
        expect(yield* outcomeOf(client, url)).toBe("ConnectionError CircuitOpen")
        expect((yield* Effect.promise(() => namespace.stats())).requests.total).toBe(4)
      }).pipe(Effect.provide(transport))
    )
  })
}
