import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Logger, LogLevel } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"

layer(ChaosServer.layer(), { excludeTestServices: true })("dbg", (it) => {
  it.effect(
    "one",
    () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const client = yield* ResilientHttpClient.make({ maxAttempts: 3, jitter: "none" })
        const f = yield* Effect.flip(Effect.scoped(client.get(`${server.url}/api/status/503?retryAfter=0`))).pipe(
          Logger.withMinimumLogLevel(LogLevel.Debug)
        )
        console.log("F", f._tag, f.attempt, JSON.stringify((yield* server.stats).requests))
        expect(1).toBe(1)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)),
    { timeout: 60000 }
  )
})
