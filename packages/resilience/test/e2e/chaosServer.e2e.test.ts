/**
 * The library over real loopback sockets against the chaos server, through two transports.
 * Policies are scaled down to milliseconds except where the scenario itself needs the seconds.
 */
import { FetchHttpClient, type HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, type Layer, Option, Schema, type Scope } from "effect"
import * as Net from "node:net"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import type * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import { eventually } from "../support/eventually.js"

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

const fast = { maxAttempts: 3, backoff: RetryPolicy.constant("10 millis"), jitter: "none" } as const

/** The chaos server with its counters cleared, and a resilient client with `policy`. */
const prepare = (policy: RetryPolicy.Options) =>
  Effect.gen(function* () {
    const server = yield* ChaosServer.ChaosServer
    yield* server.reset
    const client = yield* ResilientHttpClient.make(policy)
    const requestsTo = (path: string) => Effect.map(server.stats, (stats) => stats.requests.byPath[path] ?? 0)
    return { server, client, requestsTo }
  })

/** How a call that must fail failed (undefined if it did not fail with a typed failure). */
const failureOf = <A, R>(call: Effect.Effect<A, HttpFailure.HttpFailure, R>) =>
  Effect.map(Effect.exit(Effect.scoped(call)), (exit): HttpFailure.HttpFailure | undefined =>
    exit._tag === "Failure" ? Option.getOrUndefined(Cause.failureOption(exit.cause)) : undefined
  )

/** A port on 127.0.0.1 that nothing listens on: bound, then released. */
const refusedPort = Effect.async<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const address = probe.address()
    const port = typeof address === "object" && address !== null ? address.port : 0
    probe.close(() => resume(Effect.succeed(port)))
  })
})

type Get = (
  client: ResilientHttpClient.ResilientHttpClient.Service,
  url: string
) => Effect.Effect<unknown, HttpFailure.HttpFailure, Scope.Scope>
const get: Get = (client, url) => client.get(url)

layer(ChaosServer.layer(), { excludeTestServices: true })("against the chaos server", (it) => {
  it.effect("a lasting 503 with Retry-After: 5 and maxDelay 2 s: 3 attempts in about 4 s, the 503 handed back", () =>
    Effect.gen(function* () {
      const { client, requestsTo, server } = yield* prepare({
        maxAttempts: 3,
        backoff: RetryPolicy.exponential("500 millis"),
        maxDelay: "2 seconds",
        jitter: "none"
      })
      const started = Date.now()
      const failure = yield* failureOf(get(client, `${server.url}/api/status/503`))
      const elapsed = Date.now() - started
      expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 3 })
      expect(elapsed).toBeGreaterThanOrEqual(3950)
      // Uncapped, the waits would be 5 s each (10 s); the rest is room for busy cores.
      expect(elapsed).toBeLessThan(9000)
      expect(yield* requestsTo("/api/status/503")).toBe(3)
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  for (const [name, transport] of transports) {
    describe(`over ${name}`, () => {
      it.effect("a service that fails twice with 503 then recovers answers 200 with X-Attempt: 3", () =>
        Effect.gen(function* () {
          const { client, server } = yield* prepare({ ...fast, maxDelay: "50 millis" })
          const key = `recover-${name}`
          const response = yield* Effect.scoped(
            client.get(`${server.url}/api/chaos/retry/${key}?succeedAfter=2&failStatus=503&retryAfter=0`)
          )
          expect(response.status).toBe(200)
          expect(response.headers["x-attempt"]).toBe("3")
          expect((yield* server.stats).requests.byRetryKey[key]).toBe(3)
        }).pipe(Effect.provide(transport))
      )

      const cases: ReadonlyArray<{
        readonly title: string
        readonly path: string
        readonly policy?: RetryPolicy.Options
        readonly call?: Get
        readonly expected: Partial<Record<string, unknown>>
        readonly requests: number
        readonly atLeastMillis?: number
      }> = [
        {
          title: "the capped Retry-After scenario, scaled down: waits the cap, gives up on attempt 3",
          path: "/api/status/503",
          policy: { ...fast, maxDelay: "20 millis" },
          expected: { _tag: "TransientStatus", status: 503, attempt: 3 },
          requests: 3
        },
        {
          title: "a 400 is not retried",
          path: "/api/status/400",
          expected: { _tag: "PermanentStatus", status: 400, attempt: 1 },
          requests: 1
        },
        {
          title: "a simulated 503 without Retry-After backs off and gives up",
          path: "/api/Products/1?error=503",
          expected: { _tag: "TransientStatus", status: 503, attempt: 3, retryAfter: Option.none() },
          requests: 3
        },
        {
          title: "a connection reset is a ConnectionError, retried for GET",
          path: "/api/chaos/reset",
          expected: { _tag: "ConnectionError", reason: "Transport", attempt: 3 },
          requests: 3
        },
        {
          title: "a connection reset of a POST is not retried",
          path: "/api/chaos/reset",
          call: (client, url) => client.execute(HttpClientRequest.post(url)),
          expected: { _tag: "ConnectionError", reason: "Transport", attempt: 1 },
          requests: 1
        },
        {
          title: "a hang ends with the attempt timeout and is retried",
          path: "/api/chaos/hang",
          policy: { ...fast, maxAttempts: 2, attemptTimeout: "200 millis" },
          expected: { _tag: "ConnectionError", reason: "Timeout", attempt: 2 },
          requests: 2,
          atLeastMillis: 400
        },
        {
          title: "a truncated body read by getJson is a ConnectionError, retried",
          path: "/api/chaos/truncate",
          call: (client, url) => client.getJson(url, Schema.Unknown),
          expected: { _tag: "ConnectionError", reason: "Transport", attempt: 3 },
          requests: 3
        },
        {
          title: "invalid JSON in a 200 is a DecodeError after one request",
          path: "/api/chaos/invalid-json",
          call: (client, url) => client.getJson(url, Schema.Unknown),
          expected: { _tag: "DecodeError", status: 200, attempt: 1 },
          requests: 1
        },
        {
          title: "a slow failing endpoint combines its latency with the retries",
          path: "/api/Todos/1?delay=0.1&error=503",
          policy: { ...fast, maxAttempts: 2 },
          expected: { _tag: "TransientStatus", status: 503, attempt: 2 },
          requests: 2,
          atLeastMillis: 200
        }
      ]
      for (const { atLeastMillis = 0, call = get, expected, path, policy = fast, requests, title } of cases) {
        it.effect(title, () =>
          Effect.gen(function* () {
            const { client, requestsTo, server } = yield* prepare(policy)
            const started = Date.now()
            const failure = yield* failureOf(call(client, `${server.url}${path}`))
            expect(Date.now() - started).toBeGreaterThanOrEqual(atLeastMillis)
            expect(failure).toMatchObject(expected)
            expect(yield* requestsTo(path.split("?")[0]!)).toBe(requests)
            // Nothing is left running at the server: aborted and drained requests are finished.
            yield* eventually(
              Effect.map(server.stats, (stats) => stats.requests.inFlight === 0),
              "no request in flight at the server"
            )
          }).pipe(Effect.provide(transport))
        )
      }

      it.effect("a refused port is a ConnectionError after every attempt", () =>
        Effect.gen(function* () {
          const port = yield* refusedPort
          const client = yield* ResilientHttpClient.make(fast)
          const failure = yield* failureOf(client.get(`http://127.0.0.1:${port}/`))
          expect(failure).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 3 })
        }).pipe(Effect.provide(transport))
      )

      it.effect("a 400's body is kept as a bounded snippet for diagnostics", () =>
        Effect.gen(function* () {
          const { client, server } = yield* prepare(fast)
          const failure = yield* failureOf(client.get(`${server.url}/api/status/400`))
          expect(failure?._tag === "PermanentStatus" && JSON.parse(failure.body)).toMatchObject({ status: 400 })
        }).pipe(Effect.provide(transport))
      )
    })
  }
})
