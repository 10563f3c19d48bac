// @generated from templates/test/e2e/redisFleet.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A fleet shares what it learns (issue #18), as a user writes it: each "process" is a program of
 * its own, `program.pipe(Effect.provide(ResilientHttpClient.layer(policy)),
 * Effect.provide(ResilienceStore.layerRedis(...)))`, with its own store, memory and Redis
 * connections, against one chaos server and one real redis-server. A 429 with `Retry-After`
 * that one process receives holds back the next process's call to the origin.
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import { describe, expect, it } from "@effect/vitest"
import { NodeHttpClient } from "@effect/platform-node"
import { Effect } from "effect"
import { HttpClientRequest } from "@effect/platform"
import { afterAll, beforeAll } from "vitest"
import * as ResilienceStore from "../../src/ResilienceStore.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import type * as RetryPolicy from "../../src/RetryPolicy.js"
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

let runs = 0

// One process's whole program: its own client layer and store, closed when it ends.
const asProcess = <A, E>(
  program: Effect.Effect<A, E, ResilientHttpClient.ResilientHttpClient>,
  policy: RetryPolicy.Options,
  prefix: string
) =>
  program.pipe(
    Effect.provide(ResilientHttpClient.layer(policy)),
    Effect.provide(ResilienceStore.layerRedis({ url: redis.url, prefix })),
    Effect.provide(NodeHttpClient.layerUndici),
    Effect.exit
  )

describe.skipIf(skipWithout(redisServer))("Effect 3 a fleet on one Redis shares a Retry-After cool-down", () => {
  it.live("one process's 429 with Retry-After holds back the next process's call; another prefix is not held", () =>
    Effect.gen(function* () {
      const prefix = `fleet-${process.pid}-${++runs}`
      const namespace = chaos.namespace()
      const path = "/api/chaos/retry/fleet?succeedAfter=1&failStatus=429&retryAfter=30"
      // What the call ended with: its status, or how it failed.
      const call = Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) =>
        Effect.scoped(
          Effect.map(client.execute(HttpClientRequest.get(`${namespace.url}${path}`)), (r) => `${r.status}`)
        )
      ).pipe(
        Effect.catchAll((failure) =>
          Effect.succeed(failure._tag === "ConnectionError" ? failure.reason : `${failure._tag} ${failure.status}`)
        )
      )
      // The first process is not allowed to retry: it gets the 429, and the origin cools down.
      const first = yield* asProcess(call, { maxAttempts: 1 }, prefix)
      expect(first).toMatchObject({ _tag: "Success", value: "TransientStatus 429" })
      expect((yield* Effect.promise(() => namespace.stats())).requests.byRetryKey.fleet).toBe(1)
      // The second process would wait at most 1 s: 30 s is longer, so it gives up unsent.
      const second = yield* asProcess(call, { maxDelay: "1 second", whenRetryAfterExceedsMaxDelay: "give-up" }, prefix)
      expect(second).toMatchObject({ _tag: "Success", value: "CoolingDown" })
      expect((yield* Effect.promise(() => namespace.stats())).requests.byRetryKey.fleet).toBe(1)
      // A process of another fleet (another prefix) knows nothing of it and sends.
      const other = yield* asProcess(call, { maxAttempts: 1 }, `${prefix}-other`)
      expect(other).toMatchObject({ _tag: "Success", value: "200" })
      expect((yield* Effect.promise(() => namespace.stats())).requests.byRetryKey.fleet).toBe(2)
    })
  )
})
