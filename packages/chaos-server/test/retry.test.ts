import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChaosServer from "../src/ChaosServer.js"
import { get, json, request, withServer } from "./support/client.js"

layer(ChaosServer.layer())("GET /api/chaos/retry/:key", (it) => {
  it.effect("fails succeedAfter times with 503 and Retry-After: 1, then answers 200, counting in X-Attempt", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const path = "/api/chaos/retry/fails-twice?succeedAfter=2"
      const first = yield* get(server, path)
      const second = yield* get(server, path)
      const third = yield* get(server, path)
      const fourth = yield* get(server, path)
      expect([first.status, second.status, third.status, fourth.status]).toEqual([503, 503, 200, 200])
      expect([first, second, third, fourth].map((response) => response.headers["x-attempt"])).toEqual([
        "1",
        "2",
        "3",
        "4"
      ])
      expect(first.headers["retry-after"]).toBe("1")
      expect(second.headers["retry-after"]).toBe("1")
      expect(third.headers["retry-after"]).toBeUndefined()
      expect(first.headers["content-type"]).toBe("application/json")
      expect(json(first)).toMatchObject({ status: 503, error: "Service Unavailable", attempt: 1, succeedAfter: 2 })
      expect(json(third)).toMatchObject({ status: 200, key: "fails-twice", attempt: 3, succeedAfter: 2 })
    })
  )

  it.effect("fails twice by default", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const statuses: Array<number> = []
      for (let attempt = 0; attempt < 3; attempt++) {
        statuses.push((yield* get(server, "/api/chaos/retry/default-key")).status)
      }
      expect(statuses).toEqual([503, 503, 200])
    })
  )

  it.effect("keeps a separate count per key", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      yield* get(server, "/api/chaos/retry/key-a")
      yield* get(server, "/api/chaos/retry/key-a")
      const b = yield* get(server, "/api/chaos/retry/key-b")
      expect(b.headers["x-attempt"]).toBe("1")
      expect(b.status).toBe(503)
    })
  )

  it.effect("succeeds at once with succeedAfter=0", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/retry/no-failures?succeedAfter=0")
      expect(response.status).toBe(200)
      expect(response.headers["x-attempt"]).toBe("1")
    })
  )

  it.effect("fails with failStatus, and honours retryAfter=N and retryAfter=none", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const limited = yield* get(server, "/api/chaos/retry/limited?succeedAfter=1&failStatus=429&retryAfter=3")
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toBe("3")
      expect(limited.headers["x-attempt"]).toBe("1")
      const bare = yield* get(server, "/api/chaos/retry/bare?failStatus=500&retryAfter=none")
      expect(bare.status).toBe(500)
      expect(bare.headers["retry-after"]).toBeUndefined()
      expect(bare.headers["x-attempt"]).toBe("1")
      const dated = yield* get(server, "/api/chaos/retry/dated?retryAfterDate=2")
      expect(dated.headers["retry-after"]).toMatch(/ GMT$/)
    })
  )

  it.effect("counts POST requests like any other attempt", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const url = `${server.url}/api/chaos/retry/writes?succeedAfter=1`
      const first = yield* request(url, { method: "POST", body: '{"amount":10}' })
      const second = yield* request(url, { method: "POST", body: '{"amount":10}' })
      expect([first.status, second.status]).toEqual([503, 200])
      expect(second.headers["x-attempt"]).toBe("2")
    })
  )

  describe("bad input", () => {
    const long = "k".repeat(129)
    const badRequests = [
      "/api/chaos/retry/bad?succeedAfter=1.5",
      "/api/chaos/retry/bad?succeedAfter=-1",
      "/api/chaos/retry/bad?succeedAfter=many",
      "/api/chaos/retry/bad?succeedAfter=",
      "/api/chaos/retry/bad?succeedAfter=10000000",
      "/api/chaos/retry/bad?failStatus=200",
      "/api/chaos/retry/bad?failStatus=abc",
      "/api/chaos/retry/bad?failStatus=600",
      "/api/chaos/retry/bad?retryAfter=-3",
      "/api/chaos/retry/bad?retryAfter=later",
      `/api/chaos/retry/${long}`
    ]
    for (const path of badRequests) {
      it.effect(`answers 400 for ${path.slice(0, 60)} and does not count an attempt`, () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          const response = yield* get(server, path)
          expect(response.status).toBe(400)
          expect(json(response)).toEqual({ error: expect.any(String) })
          expect(response.headers["x-attempt"]).toBeUndefined()
          const stats = yield* server.stats
          expect(stats.requests.byRetryKey.bad).toBeUndefined()
          expect(stats.requests.byRetryKey[long]).toBeUndefined()
        })
      )
    }
  })
})

describe("retry keys that are not valid percent-encoding", () => {
  it.effect("are taken as their raw text: a%b counts like any key, and a%25b is the same key", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const first = yield* get(server, "/api/chaos/retry/a%b?succeedAfter=2")
        expect(first.status).toBe(503)
        expect(first.headers["x-attempt"]).toBe("1")
        const second = yield* get(server, "/api/chaos/retry/a%b?succeedAfter=2")
        expect(second.headers["x-attempt"]).toBe("2")
        // The same key, percent-encoded: its third attempt succeeds.
        const encoded = yield* get(server, `/api/chaos/retry/${encodeURIComponent("a%b")}?succeedAfter=2`)
        expect(encoded.status).toBe(200)
        expect(json(encoded)).toMatchObject({ key: "a%b", attempt: 3 })
        // Escapes that are not UTF-8 are kept as sent too.
        const broken = yield* get(server, "/api/chaos/retry/%E0%A4%A?succeedAfter=0")
        expect(broken.status).toBe(200)
        const stats = yield* server.stats
        expect(stats.requests.byRetryKey).toEqual({ "a%b": 3, "%E0%A4%A": 1 })
        // The client sent the key raw, not re-encoded.
        expect(stats.requests.byPath["/api/chaos/retry/a%b"]).toBe(2)
      })
    )
  )
})

describe("retry keys are bounded", () => {
  it.effect("forgets the least recently used key beyond maxRetryKeys", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          yield* get(server, "/api/chaos/retry/a")
          yield* get(server, "/api/chaos/retry/b")
          // Using "a" again makes "b" the least recently used key.
          yield* get(server, "/api/chaos/retry/a")
          yield* get(server, "/api/chaos/retry/c")
          const stats = yield* server.stats
          expect(stats.requests.byRetryKey).toEqual({ a: 2, c: 1 })
          const b = yield* get(server, "/api/chaos/retry/b")
          expect(b.headers["x-attempt"]).toBe("1")
        }),
      { maxRetryKeys: 2 }
    )
  )
})
