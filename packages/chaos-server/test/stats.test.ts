import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import { awaitStats, get, json, request, withServer } from "./support/client.js"

/** A keep-alive agent with one socket, destroyed when the test ends. */
const keepAliveAgent = Effect.acquireRelease(
  Effect.sync(() => new Http.Agent({ keepAlive: true, maxSockets: 1 })),
  (agent) => Effect.sync(() => agent.destroy())
)

describe("GET /__stats", () => {
  it.effect("counts requests by path, not counting /__stats and /__reset", () =>
    withServer((server) =>
      Effect.gen(function* () {
        yield* get(server, "/api/status/503")
        yield* get(server, "/api/status/503?retryAfter=2")
        yield* get(server, "/api/Products/1")
        yield* get(server, "/nowhere")
        yield* get(server, "/__stats")
        const response = yield* get(server, "/__stats")
        expect(response.status).toBe(200)
        expect(response.headers["content-type"]).toBe("application/json")
        expect(json(response)).toEqual({
          requests: {
            total: 4,
            preflights: 0,
            inFlight: 0,
            abandoned: 0,
            byPath: { "/api/status/503": 2, "/api/Products/1": 1, "/nowhere": 1 },
            byRetryKey: {}
          },
          // Each request above used a fresh connection; the one answering this request is still open.
          connections: { opened: 6, open: expect.any(Number), rejected: 0, dropped: 0 },
          responses: { streaming: 0, bodyBytesStreamed: 0 },
          orders: { placed: 0, byIdempotencyKey: {} },
          rateLimit: { allowed: 0, limited: 0 },
          capacity: { limit: 64, inFlight: 0, peakInFlight: 0, requests: 0, served: 0, overloaded: 0 },
          namespaces: {}
        })
      })
    )
  )

  it.effect("counts retry keys by attempt", () =>
    withServer((server) =>
      Effect.gen(function* () {
        yield* get(server, "/api/chaos/retry/alpha")
        yield* get(server, "/api/chaos/retry/alpha")
        yield* get(server, "/api/chaos/retry/beta")
        const stats = json(yield* get(server, "/__stats"))
        expect(stats).toMatchObject({
          requests: {
            total: 3,
            byPath: { "/api/chaos/retry/alpha": 2, "/api/chaos/retry/beta": 1 },
            byRetryKey: { alpha: 2, beta: 1 }
          }
        })
        // The service's stats and the endpoint's agree.
        expect(yield* server.stats).toMatchObject({ requests: { byRetryKey: { alpha: 2, beta: 1 } } })
      })
    )
  )

  it.effect("answers 405 for other methods than GET", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const response = yield* request(`${server.url}/__stats`, { method: "POST" })
        expect(response.status).toBe(405)
        expect(response.headers.allow).toBe("GET, HEAD")
        expect(json(response)).toEqual({ error: expect.any(String) })
      })
    )
  )
})

describe("connections", () => {
  it.scoped("a keep-alive client reuses one connection for sequential requests", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const agent = yield* keepAliveAgent
        for (const path of ["/api/status/200", "/api/status/503", "/api/Products/1", "/api/chaos/retry/k"]) {
          const response = yield* get(server, path, { agent })
          expect(response.headers.connection).toBe("keep-alive")
        }
        const stats = yield* server.stats
        expect(stats.connections).toEqual({ opened: 1, open: 1, rejected: 0, dropped: 0 })
      })
    )
  )

  it.effect("a client without keep-alive opens a connection per request, and each closes", () =>
    withServer((server) =>
      Effect.gen(function* () {
        for (let index = 0; index < 3; index++) {
          yield* get(server, "/api/status/200")
        }
        const stats = yield* awaitStats(server, (stats) => stats.connections.open === 0, "every connection closed")
        expect(stats.connections).toEqual({ opened: 3, open: 0, rejected: 0, dropped: 0 })
      })
    )
  )
})

describe("POST /__reset", () => {
  it.scoped("clears counters and retry keys, keeps open connections counted, answers 204", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const agent = yield* keepAliveAgent
        yield* get(server, "/api/chaos/retry/key", { agent })
        yield* get(server, "/api/chaos/retry/key", { agent })
        yield* get(server, "/api/status/500", { agent })
        expect((yield* server.stats).requests.total).toBe(3)

        const reset = yield* request(`${server.url}/__reset`, { method: "POST", agent })
        expect(reset.status).toBe(204)
        expect(reset.body).toBe("")
        expect(yield* server.stats).toEqual({
          requests: { total: 0, preflights: 0, inFlight: 0, abandoned: 0, byPath: {}, byRetryKey: {} },
          connections: { opened: 0, open: 1, rejected: 0, dropped: 0 },
          responses: { streaming: 0, bodyBytesStreamed: 0 },
          orders: { placed: 0, byIdempotencyKey: {} },
          rateLimit: { allowed: 0, limited: 0 },
          capacity: { limit: 64, inFlight: 0, peakInFlight: 0, requests: 0, served: 0, overloaded: 0 },
          namespaces: {}
        })
        // The retry key starts over.
        const attempt = yield* get(server, "/api/chaos/retry/key", { agent })
        expect(attempt.headers["x-attempt"]).toBe("1")
      })
    )
  )

  it.effect("answers 405 for GET", () =>
    withServer((server) =>
      Effect.gen(function* () {
        yield* get(server, "/api/status/200")
        const response = yield* get(server, "/__reset")
        expect(response.status).toBe(405)
        expect(response.headers.allow).toBe("POST")
        expect((yield* server.stats).requests.total).toBe(1)
      })
    )
  )

  it.effect("the service's reset does the same", () =>
    withServer((server) =>
      Effect.gen(function* () {
        yield* get(server, "/api/chaos/retry/key")
        yield* server.reset
        const stats = yield* server.stats
        expect(stats.requests).toEqual({
          total: 0,
          preflights: 0,
          inFlight: 0,
          abandoned: 0,
          byPath: {},
          byRetryKey: {}
        })
        expect(stats.connections.opened).toBe(0)
      })
    )
  )
})

describe("request bodies", () => {
  it.scoped("are read and the connection reused when within the limit", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const agent = yield* keepAliveAgent
          const body = "x".repeat(1000)
          const first = yield* request(`${server.url}/api/status/201`, { method: "POST", body, agent })
          expect(first.status).toBe(201)
          const chunked = yield* request(`${server.url}/api/status/202`, {
            method: "POST",
            body,
            agent,
            headers: { "transfer-encoding": "chunked" }
          })
          expect(chunked.status).toBe(202)
          expect((yield* server.stats).connections.opened).toBe(1)
        }),
      { maxBodyBytes: 1024 }
    )
  )

  it.scoped("are refused with 413 beyond the limit, declared or chunked, and the connection stays usable", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const agent = yield* keepAliveAgent
          const body = "x".repeat(64 * 1024)
          const declared = yield* request(`${server.url}/api/status/200`, { method: "POST", body, agent })
          expect(declared.status).toBe(413)
          expect(json(declared)).toEqual({ error: "request body exceeds 1024 bytes" })
          const chunked = yield* request(`${server.url}/api/chaos/retry/upload`, {
            method: "POST",
            body,
            agent,
            headers: { "transfer-encoding": "chunked" }
          })
          expect(chunked.status).toBe(413)
          // A refused request is not an attempt.
          expect((yield* server.stats).requests.byRetryKey).toEqual({})
          const after = yield* get(server, "/api/status/200", { agent })
          expect(after.status).toBe(200)
          expect((yield* server.stats).connections.opened).toBe(1)
        }),
      { maxBodyBytes: 1024 }
    )
  )
})
