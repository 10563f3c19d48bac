/**
 * This library on Effect 4 over real loopback sockets, against the chaos server, through two
 * transports: undici (@effect/platform-node 4's NodeHttpClient) and fetch (effect/http's
 * FetchHttpClient). Waits are scaled down to milliseconds except where a scenario needs seconds.
 * The chaos server runs in this same process, through its promise API, which needs no Effect.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, type Layer, Schema, type Scope } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import type * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import { eventually } from "../support/eventually.js"

let server: StartedChaosServer
beforeAll(async () => {
  server = await startChaosServer()
})
afterAll(async () => {
  await server?.close()
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]
const fast = {
  maxAttempts: 3,
  backoff: RetryPolicy.constant("10 millis"),
  jitter: "none",
  maxDelay: "50 millis"
} as const

const requestsTo = (path: string) =>
  Effect.map(
    Effect.promise(() => server.stats()),
    (stats) => stats.requests.byPath[path] ?? 0
  )
const reset = Effect.promise(() => server.reset())

const failureOf = <A>(call: Effect.Effect<A, HttpFailure.HttpFailure, Scope.Scope>) =>
  Effect.map(Effect.exit(Effect.scoped(call)), (exit) => {
    const reason = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason) : undefined
    return reason?.error
  })

const Product = Schema.Struct({ id: Schema.Number, name: Schema.String, price: Schema.Number })

for (const [name, transport] of transports) {
  describe(`Effect 4 over ${name}, against the chaos server`, () => {
    it.live("a service that fails twice with 503 then recovers answers 200 with X-Attempt: 3", () =>
      Effect.gen(function* () {
        yield* reset
        const client = yield* ResilientHttpClient.make(fast)
        const key = `e4-recover-${name}`
        const response = yield* Effect.scoped(
          Effect.map(client.get(`${server.url}/api/chaos/retry/${key}?succeedAfter=2&retryAfter=0`), (r) => r)
        )
        expect(response.status).toBe(200)
        expect(response.headers["x-attempt"]).toBe("3")
        expect((yield* Effect.promise(() => server.stats())).requests.byRetryKey[key]).toBe(3)
      }).pipe(Effect.provide(transport))
    )

    it.live("a 400 is one attempt; a POST without a key one attempt; with a key it is retried", () =>
      Effect.gen(function* () {
        yield* reset
        const service = yield* ResilientHttpClient.make(fast)
        expect(yield* failureOf(service.get(`${server.url}/api/status/400`))).toMatchObject({
          _tag: "PermanentStatus",
          status: 400,
          attempt: 1
        })
        expect(yield* requestsTo("/api/status/400")).toBe(1)
        const unkeyed = `e4-post-${name}`
        expect(
          yield* failureOf(service.client.post(`${server.url}/api/chaos/retry/${unkeyed}?retryAfter=0`))
        ).toMatchObject({
          giveUpReason: "not-idempotent"
        })
        const keyed = `e4-post-keyed-${name}`
        const created = yield* Effect.scoped(
          service.client.post(`${server.url}/api/chaos/retry/${keyed}?retryAfter=0`, {
            headers: { "idempotency-key": keyed }
          })
        )
        expect(created.status).toBe(200)
        const stats = yield* Effect.promise(() => server.stats())
        expect([stats.requests.byRetryKey[unkeyed], stats.requests.byRetryKey[keyed]]).toEqual([1, 3])
      }).pipe(Effect.provide(transport))
    )

    it.live("a connection reset is a transport failure, retried up to maxAttempts", () =>
      Effect.gen(function* () {
        yield* reset
        const client = yield* ResilientHttpClient.make(fast)
        expect(yield* failureOf(client.get(`${server.url}/api/chaos/reset`))).toMatchObject({
          _tag: "ConnectionError",
          reason: "Transport",
          attempt: 3,
          giveUpReason: "attempts-exhausted"
        })
        expect(yield* requestsTo("/api/chaos/reset")).toBe(3)
      }).pipe(Effect.provide(transport))
    )

    it.live("attemptTimeout aborts a hanging request, and the server sees it leave", () =>
      Effect.gen(function* () {
        yield* reset
        const client = yield* ResilientHttpClient.make({ ...fast, maxAttempts: 2, attemptTimeout: "100 millis" })
        expect(yield* failureOf(client.get(`${server.url}/api/chaos/hang`))).toMatchObject({
          _tag: "ConnectionError",
          reason: "Timeout",
          attempt: 2
        })
        // Both aborted requests left the server: nothing of them is in flight.
        yield* eventually(
          Effect.promise(() => server.stats().then((stats) => stats.requests.inFlight === 0)),
          "no request in flight at the server"
        )
      }).pipe(Effect.provide(transport))
    )

    it.live("getJson decodes a product; invalid JSON in a 200 is a DecodeError after one attempt", () =>
      Effect.gen(function* () {
        yield* reset
        const client = yield* ResilientHttpClient.make(fast)
        expect(yield* client.getJson(`${server.url}/api/Products/7`, Product)).toMatchObject({
          id: 7,
          name: "Product 7"
        })
        expect(yield* failureOf(client.getJson(`${server.url}/api/chaos/invalid-json`, Product))).toMatchObject({
          _tag: "DecodeError",
          attempt: 1
        })
        expect(yield* requestsTo("/api/chaos/invalid-json")).toBe(1)
      }).pipe(Effect.provide(transport))
    )

    it.live("a large discarded body is not read on: the server stops streaming it", () =>
      Effect.gen(function* () {
        yield* reset
        const client = yield* ResilientHttpClient.make({ ...fast, maxAttempts: 1, maxBodyBytes: 1024 })
        const failure = yield* failureOf(
          client.getJson(`${server.url}/api/chaos/large-json?bytes=67108864&length=false`, Product)
        )
        expect(failure).toMatchObject({ _tag: "DecodeError", cause: { _tag: "BodyTooLarge" } })
        yield* eventually(
          Effect.promise(() => server.stats().then((stats) => stats.responses.streaming === 0)),
          "the server stopped streaming"
        )
        const stats = yield* Effect.promise(() => server.stats())
        // 64 MiB offered; the socket buffers hold a few MiB at most.
        expect(stats.responses.bodyBytesStreamed).toBeLessThan(16 * 1024 * 1024)
      }).pipe(Effect.provide(transport))
    )

    it.live("the drop-in layer: unchanged code is retried, a final 503 is a response", () =>
      Effect.gen(function* () {
        yield* reset
        const key = `e4-layer-${name}`
        const program = Effect.gen(function* () {
          const client = yield* HttpClient.HttpClient
          const recovered = yield* client.get(`${server.url}/api/chaos/retry/${key}?succeedAfter=2&retryAfter=0`)
          const lasting = yield* client.get(`${server.url}/api/status/503?retryAfter=0`)
          return [recovered.status, lasting.status] as const
        })
        const statuses = yield* program.pipe(Effect.provide(ResilientHttpClient.layerHttpClient(fast)))
        expect(statuses).toEqual([200, 503])
        expect(yield* requestsTo("/api/status/503")).toBe(3)
      }).pipe(Effect.provide(transport))
    )
  })
}

describe("the seed's lasting 503, in real time (undici)", () => {
  it.live("Retry-After: 5 with maxDelay 2 s: 3 attempts in about 4 s, the 503 handed back", () =>
    Effect.gen(function* () {
      yield* reset
      const client = yield* ResilientHttpClient.make({ maxDelay: "2 seconds", jitter: "none" })
      const started = Date.now()
      const failure = yield* failureOf(client.get(`${server.url}/api/status/503`))
      const elapsed = Date.now() - started
      expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 3 })
      // Two waits of the 2 s cap, not of the 5 s asked.
      assert.isTrue(elapsed >= 3950, `took ${elapsed} ms`)
      expect(yield* requestsTo("/api/status/503")).toBe(3)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )
})
