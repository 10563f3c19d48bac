/**
 * Effect 4's HttpClient over @effect/platform-node 4's undici transport, against the chaos server
 * on 127.0.0.1. The chaos server runs in this same process, started through its promise API, which
 * needs no Effect at all (its Effect 4 layer is tested in chaosServerLayer.test.ts).
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { HttpClient } from "effect/http"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"

let server: StartedChaosServer

beforeAll(async () => {
  server = await startChaosServer()
})

afterAll(async () => {
  await server?.close()
})

const retryAttempts = (key: string) =>
  Effect.map(
    Effect.promise(() => server.stats()),
    (stats) => stats.requests.byRetryKey[key]
  )

describe("Effect 4 HttpClient against the chaos server (undici)", () => {
  it.live("reads a JSON body over a real socket", () =>
    Effect.gen(function* () {
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.filterStatusOk)
      const response = yield* client.get(`${server.url}/api/Products/7`)
      const body = yield* response.json
      assert.strictEqual(response.status, 200)
      assert.deepInclude(body, { id: 7 })
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("retryTransient sends a POST again until the service recovers", () =>
    Effect.gen(function* () {
      const key = "effect4-post"
      const client = (yield* HttpClient.HttpClient).pipe(HttpClient.retryTransient({ times: 3 }))
      // Retry-After: 0, so the only wait is retryTransient's 1 ms floor.
      const response = yield* client.post(
        `${server.url}/api/chaos/retry/${key}?succeedAfter=2&failStatus=503&retryAfter=0`
      )
      assert.strictEqual(response.status, 200)
      assert.strictEqual(response.headers["x-attempt"], "3")
      assert.strictEqual(yield* retryAttempts(key), 3)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("a connection reset fails with a TransportError, the reason retryTransient retries", () =>
    Effect.gen(function* () {
      const client = yield* HttpClient.HttpClient
      const error = yield* Effect.flip(client.get(`${server.url}/api/chaos/reset`))
      assert.strictEqual(error._tag, "HttpClientError")
      assert.strictEqual(error.reason._tag, "TransportError")
      assert.isTrue(HttpClient.isTransientError(error))
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )
})
