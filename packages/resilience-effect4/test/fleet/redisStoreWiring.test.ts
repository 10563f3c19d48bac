// @generated from templates/test/fleet/redisStoreWiring.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A store given to the client's layer with `Layer.provide` is the store its calls use (issue #42,
 * item 6), with real OS processes (test/support/rateLimitMember.ts), each its own store on one
 * real redis-server, under a shared rate limit: the chaos server counts what reached it.
 * Counted, never timed.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { fleet as fleetOn, sum, type Wiring } from "../support/rateLimitFleet.js"
import { type RedisInstance, startRedis } from "../support/redisServer.js"

let redis: RedisInstance
let chaos: StartedChaosServer
beforeAll(async () => {
  redis = await startRedis()
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
  await redis?.stop()
})

const fleet = (store: "redis" | "memory", wiring?: Wiring, calls?: number, limit?: number) =>
  fleetOn(redis.url, chaos, store, wiring, calls, limit)

describe.skipIf(skipWithout(redisServer))(
  "Effect 4 a store given to the client's layer is the store its calls use",
  () => {
    // 20 calls in each of three processes, a shared bucket of 20: on the fleet's store they send 20
    // together; a store ignored (each process's memory) sends 60.
    it.live(
      "Layer.provide(layerRedis) under ResilientHttpClient.layer, and under layerHttpClient: three processes send 20 together, not 60",
      () =>
        Effect.gen(function* () {
          const layer = yield* fleet("redis", "layer", 20, 20)
          expect([
            layer.sent,
            sum(layer.outcomes, "ok"),
            sum(layer.outcomes, "rateLimited"),
            sum(layer.outcomes, "other")
          ]).toEqual([20, 20, 40, 0])
          // Through the platform's types a refusal is an HttpClientError: counted as other.
          const platform = yield* fleet("redis", "layerHttpClient", 20, 20)
          expect([platform.sent, sum(platform.outcomes, "ok"), sum(platform.outcomes, "other")]).toEqual([20, 20, 40])
        }),
      { timeout: 180_000 }
    )

    it.live(
      "given both, the layer's store decides: Redis to the layer over memory around sends 20; memory to the layer over Redis around sends 60",
      () =>
        Effect.gen(function* () {
          const shared = yield* fleet("redis", "both", 20, 20)
          expect([shared.sent, sum(shared.outcomes, "ok"), sum(shared.outcomes, "rateLimited")]).toEqual([20, 20, 40])
          const apart = yield* fleet("memory", "both", 20, 20)
          expect([apart.sent, sum(apart.outcomes, "ok"), sum(apart.outcomes, "rateLimited")]).toEqual([60, 60, 0])
        }),
      { timeout: 180_000 }
    )
  }
)
