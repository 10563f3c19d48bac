/**
 * The library over real loopback sockets against the chaos server, through two transports.
 * Policies are scaled down to milliseconds except where the scenario itself needs the seconds.
 */
import { FetchHttpClient, type HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Exit, type Layer, Schema } from "effect"
import * as Net from "node:net"
import { ChaosServer } from "@effect-http-resilience/chaos-server"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

const fast = { maxAttempts: 3, backoff: RetryPolicy.constant("10 millis"), jitter: "none" } as const

/** A port on 127.0.0.1 that nothing listens on: bound, then released. */
const refusedPort = Effect.async<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

const requestsTo = (path: string) =>
  Effect.map(ChaosServer.ChaosServer, (server) => server).pipe(
    Effect.flatMap((server) => server.stats),
    Effect.map((stats) => stats.requests.byPath[path] ?? 0)
  )

const failureOf = <A>(exit: Exit.Exit<A, unknown>): unknown =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined

layer(ChaosServer.layer(), { excludeTestServices: true })("against the chaos server", (it) => {
  it.effect(
    "a lasting 503 with Retry-After: 5 and maxDelay 2 s: 3 attempts in about 4 s, the 503 handed back",
    () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        yield* server.reset
        const client = yield* ResilientHttpClient.make({
          maxAttempts: 3,
          backoff: RetryPolicy.exponential("500 millis"),
          maxDelay: "2 seconds",
          jitter: "none"
        })
        const started = Date.now()
        const exit = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/status/503`)))
        const elapsed = Date.now() - started
        expect(failureOf(exit)).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 3 })
        expect(elapsed).toBeGreaterThanOrEqual(3950)
        expect(elapsed).toBeLessThan(6000)
        expect(yield* requestsTo("/api/status/503")).toBe(3)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)),
    { timeout: 15_000 }
  )

  for (const [name, transport] of transports) {
    describe(`over ${name}`, () => {
      it.effect("a service that fails twice with 503 then recovers answers 200 with X-Attempt: 3", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          const key = `recover-${name}-${Date.now()}`
          const client = yield* ResilientHttpClient.make({ ...fast, maxDelay: "50 millis" })
          const response = yield* Effect.scoped(
            client.get(`${server.url}/api/chaos/retry/${key}?succeedAfter=2&failStatus=503&retryAfter=0`)
          )
          expect(response.status).toBe(200)
          expect(response.headers["x-attempt"]).toBe("3")
          expect((yield* server.stats).requests.byRetryKey[key]).toBe(3)
        }).pipe(Effect.provide(transport))
      )

      it.effect("the capped Retry-After scenario, scaled down: waits the cap, gives up on attempt 3", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make({ ...fast, maxDelay: "20 millis" })
          const exit = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/status/503`)))
          const failure = failureOf(exit)
          expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 3 })
          expect(yield* requestsTo("/api/status/503")).toBe(3)
        }).pipe(Effect.provide(transport))
      )

      it.effect("a 400 is not retried: the server sees one request, the body is kept as a snippet", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make(fast)
          const exit = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/status/400`)))
          const failure = failureOf(exit)
          expect(failure).toMatchObject({ _tag: "PermanentStatus", status: 400, attempt: 1 })
          expect(JSON.parse((failure as { body: string }).body)).toMatchObject({ status: 400 })
          expect(yield* requestsTo("/api/status/400")).toBe(1)
        }).pipe(Effect.provide(transport))
      )

      it.effect("a simulated 503 without Retry-After backs off and gives up", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make(fast)
          const exit = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/Products/1?error=503`)))
          const failure = failureOf(exit)
          expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 3 })
          expect((failure as { headers: Record<string, string> }).headers["x-simulated"]).toBe("true")
          expect(yield* requestsTo("/api/Products/1")).toBe(3)
        }).pipe(Effect.provide(transport))
      )

      it.effect("a connection reset is a ConnectionError, retried for GET and not for POST", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make(fast)
          const get = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/chaos/reset`)))
          expect(failureOf(get)).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 3 })
          expect(yield* requestsTo("/api/chaos/reset")).toBe(3)
          const post = yield* Effect.exit(
            Effect.scoped(client.execute(HttpClientRequest.post(`${server.url}/api/chaos/reset`)))
          )
          expect(failureOf(post)).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 1 })
          expect(yield* requestsTo("/api/chaos/reset")).toBe(4)
        }).pipe(Effect.provide(transport))
      )

      it.effect("a refused port is a ConnectionError after every attempt", () =>
        Effect.gen(function* () {
          const port = yield* refusedPort
          const client = yield* ResilientHttpClient.make(fast)
          const exit = yield* Effect.exit(Effect.scoped(client.get(`http://127.0.0.1:${port}/`)))
          expect(failureOf(exit)).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 3 })
        }).pipe(Effect.provide(transport))
      )

      it.effect("a hang ends with the attempt timeout, is retried, and leaves no connection open", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make({ ...fast, maxAttempts: 2, attemptTimeout: "200 millis" })
          const started = Date.now()
          const exit = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/chaos/hang`)))
          expect(Date.now() - started).toBeGreaterThanOrEqual(400)
          expect(failureOf(exit)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout", attempt: 2 })
          expect(yield* requestsTo("/api/chaos/hang")).toBe(2)
          // The aborted requests' connections are closed, so the server stops waiting on them.
          yield* Effect.sleep("100 millis")
          expect((yield* server.stats).requests.inFlight).toBe(0)
        }).pipe(Effect.provide(transport))
      )

      it.effect("a truncated body read by getJson is a ConnectionError, retried", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make(fast)
          const exit = yield* Effect.exit(client.getJson(`${server.url}/api/chaos/truncate`, Schema.Unknown))
          expect(failureOf(exit)).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 3 })
          expect(yield* requestsTo("/api/chaos/truncate")).toBe(3)
        }).pipe(Effect.provide(transport))
      )

      it.effect("invalid JSON in a 200 is a DecodeError after one request", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make(fast)
          const exit = yield* Effect.exit(client.getJson(`${server.url}/api/chaos/invalid-json`, Schema.Unknown))
          expect(failureOf(exit)).toMatchObject({ _tag: "DecodeError", status: 200, attempt: 1 })
          expect(yield* requestsTo("/api/chaos/invalid-json")).toBe(1)
        }).pipe(Effect.provide(transport))
      )

      it.effect("a slow failing endpoint combines its latency with the retries", () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          yield* server.reset
          const client = yield* ResilientHttpClient.make({ ...fast, maxAttempts: 2 })
          const started = Date.now()
          const exit = yield* Effect.exit(Effect.scoped(client.get(`${server.url}/api/Todos/1?delay=0.1&error=503`)))
          expect(Date.now() - started).toBeGreaterThanOrEqual(200)
          expect(failureOf(exit)).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 2 })
        }).pipe(Effect.provide(transport))
      )
    })
  }
})
