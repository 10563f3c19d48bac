/**
 * The drop-in layer under `HttpApiClient`, over real loopback sockets: code that knows nothing of
 * this library calls an `HttpApi` description of the chaos server's recovering endpoint, and gets
 * the library's retries from one layer provided over the transport.
 */
import {
  FetchHttpClient,
  HttpApi,
  HttpApiClient,
  HttpApiEndpoint,
  HttpApiGroup,
  type HttpClient,
  HttpClientError
} from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

/** `GET /api/chaos/retry/:key`: fails `succeedAfter` times with `failStatus`, then answers 200. */
class Chaos extends HttpApiGroup.make("chaos").add(
  HttpApiEndpoint.get("retry", "/api/chaos/retry/:key")
    .setPath(Schema.Struct({ key: Schema.String }))
    .setUrlParams(Schema.Struct({ succeedAfter: Schema.NumberFromString, failStatus: Schema.NumberFromString }))
    .addSuccess(
      Schema.Struct({
        status: Schema.Literal(200),
        key: Schema.String,
        attempt: Schema.Number,
        succeedAfter: Schema.Number,
        message: Schema.String
      })
    )
) {}
class ChaosApi extends HttpApi.make("chaos").add(Chaos) {}

/** Code that knows only `HttpApiClient`: nothing here names this library. */
const retryEndpoint = (baseUrl: string, key: string, succeedAfter: number) =>
  Effect.gen(function* () {
    const client = yield* HttpApiClient.make(ChaosApi, { baseUrl })
    return yield* client.chaos.retry({
      path: { key },
      urlParams: { succeedAfter, failStatus: 503 },
      withResponse: true
    })
  })

const maxAttempts = 3
// The server's `Retry-After: 1` is capped at 20 ms, so a test takes milliseconds.
const policy = RetryPolicy.make({
  maxAttempts,
  backoff: RetryPolicy.constant("10 millis"),
  maxDelay: "20 millis",
  jitter: "none"
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

layer(ChaosServer.layer(), { excludeTestServices: true })("HttpApiClient over layerHttpClient", (it) => {
  for (const [name, transport] of transports) {
    // A validated policy: the layer cannot fail, and keeps the platform's HttpClient type.
    const resilient: Layer.Layer<HttpClient.HttpClient> = ResilientHttpClient.layerHttpClient(policy).pipe(
      Layer.provide(transport)
    )

    describe(`over ${name}`, () => {
      it.effect("a service that fails twice with 503 answers on the server's third attempt", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const key = `api-recovers-${name}`
          const [body, response] = yield* retryEndpoint(server.url, key, 2).pipe(Effect.provide(resilient))
          expect(body).toEqual({
            status: 200,
            key,
            attempt: 3,
            succeedAfter: 2,
            message: `Attempt 3 for key "${key}" succeeds`
          })
          expect(response.headers["x-attempt"]).toBe("3")
          expect((yield* server.stats).requests.byRetryKey[key]).toBe(3)
        })
      )

      it.effect("a service that keeps failing: the platform's own error after maxAttempts requests", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const key = `api-keeps-failing-${name}`
          const error = yield* Effect.flip(retryEndpoint(server.url, key, 1_000).pipe(Effect.provide(resilient)))
          // What HttpApiClient gives for a status the API does not declare, as without this library.
          assert.isTrue(HttpClientError.isHttpClientError(error))
          assert.strictEqual(error._tag, "ResponseError")
          if (error._tag !== "ResponseError") return
          expect(error.reason).toBe("Decode")
          expect(error.response.status).toBe(503)
          expect(error.response.headers["x-attempt"]).toBe(String(maxAttempts))
          expect((yield* server.stats).requests.byRetryKey[key]).toBe(maxAttempts)
        })
      )
    })
  }
})
