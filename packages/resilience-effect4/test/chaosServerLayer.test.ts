/**
 * The chaos server's Effect 4 layer (`@effect-http-resilience/chaos-server/effect4`) under Effect 4:
 * built, served and released as a layer, its errors in the right channel, and this library's
 * Effect 4 client placing an order on its `/api/orders` endpoint over undici.
 */
import { ServeError, startChaosServer } from "@effect-http-resilience/chaos-server"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect4"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Layer } from "effect"
import { HttpBody, HttpClient } from "effect/http"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"

// Retry-After: 0 from the server and a 10 ms backoff: the retries take milliseconds, not seconds.
const fast = { maxAttempts: 3, backoff: RetryPolicy.constant("10 millis"), jitter: "none" } as const

const ClientLive = ResilientHttpClient.layer(fast).pipe(Layer.provide(NodeHttpClient.layerUndici))

layer(Layer.merge(ChaosServer.layer(), ClientLive), { excludeTestServices: true })(
  "ChaosServer.layer (Effect 4) with the Effect 4 client",
  (it) => {
    it.effect("serves a service that recovers on attempt 3, and counts the attempts", () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        assert.strictEqual(server.url, `http://127.0.0.1:${server.port}`)
        const http = yield* ResilientHttpClient.ResilientHttpClient
        const response = yield* Effect.scoped(
          http.get(`${server.url}/api/chaos/retry/effect4-layer?succeedAfter=2&retryAfter=0`)
        )
        assert.strictEqual(response.status, 200)
        assert.strictEqual(response.headers["x-attempt"], "3")
        assert.strictEqual((yield* server.stats).requests.byRetryKey["effect4-layer"], 3)
      })
    )

    it.effect("places an order once: retried with an Idempotency-Key, sent once without", () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        yield* server.reset
        const http = yield* ResilientHttpClient.ResilientHttpClient
        const body = HttpBody.jsonUnsafe({ sku: "A-1", quantity: 2 })
        const placed = yield* Effect.scoped(
          Effect.flatMap(
            http.client.post(`${server.url}/api/orders?retryAfter=0`, {
              headers: { "idempotency-key": "effect4-order" },
              body
            }),
            (response) => Effect.map(response.json, (json) => ({ status: response.status, json }))
          )
        )
        assert.strictEqual(placed.status, 201)
        expect(placed.json).toMatchObject({ idempotencyKey: "effect4-order", attempt: 3, order: { sku: "A-1" } })

        const unkeyed = yield* Effect.flip(
          Effect.scoped(http.client.post(`${server.url}/api/orders?retryAfter=0`, { body }))
        )
        expect(unkeyed).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 1 })

        const stats = yield* server.stats
        expect(stats.orders).toEqual({ placed: 1, byIdempotencyKey: { "effect4-order": 3 } })
      })
    )
  }
)

describe("ChaosServer.layer (Effect 4) lifecycle", () => {
  it.live("stops the server when the layer is released", () =>
    Effect.gen(function* () {
      const url = yield* Effect.map(ChaosServer.ChaosServer, (server) => server.url).pipe(
        Effect.provide(ChaosServer.layer())
      )
      const refused = yield* Effect.flip(
        Effect.flatMap(HttpClient.HttpClient, (client) => client.get(`${url}/api/status/200`))
      ).pipe(Effect.provide(NodeHttpClient.layerUndici))
      assert.strictEqual(refused._tag, "HttpClientError")
    })
  )

  it.live("fails with a ServeError, in the error channel, when the port is taken", () =>
    Effect.gen(function* () {
      const taken = yield* Effect.acquireRelease(
        Effect.promise(() => startChaosServer()),
        (server) => Effect.promise(server.close)
      )
      const error = yield* Effect.flip(Layer.build(ChaosServer.layer({ port: taken.port })))
      assert.instanceOf(error, ServeError)
      assert.strictEqual(error._tag, "ServeError")
      assert.strictEqual(error.port, taken.port)
    }).pipe(Effect.scoped)
  )

  it.live("dies with a RangeError naming the option when an option is invalid", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(Effect.scoped(ChaosServer.make({ port: 70_000 })))
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(defect, RangeError)
      assert.include(String(defect), "port must be an integer between 0 and 65535")
    })
  )
})
