import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { startChaosServer } from "../src/index.js"
import { ChaosState } from "../src/internal/state.js"
import { get, json, request, withServer } from "./support/client.js"

const attemptOf = (response: { readonly headers: Readonly<Record<string, unknown>> }) => response.headers["x-attempt"]

const postOrder = (baseUrl: string, key: string) =>
  request(`${baseUrl}/api/orders?succeedAfter=0`, {
    method: "POST",
    headers: { "content-type": "application/json", "idempotency-key": key },
    body: JSON.stringify({ sku: "A-1" })
  })

describe("namespaces", () => {
  it.effect("count the same retry key apart, and a namespace's reset leaves the others' counts", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const a = yield* server.namespace()
        const b = yield* server.namespace()
        expect(a.name).not.toBe(b.name)
        expect(a.url).toBe(`${server.url}/__ns/${a.name}`)

        const path = "/api/chaos/retry/shared?succeedAfter=5"
        expect(attemptOf(yield* get(a, path))).toBe("1")
        expect(attemptOf(yield* get(a, path))).toBe("2")
        expect(attemptOf(yield* get(b, path))).toBe("1")
        expect(attemptOf(yield* get(server, path))).toBe("1")

        expect(yield* a.stats).toEqual({
          requests: { total: 2, preflights: 0, abandoned: 0, byRetryKey: { shared: 2 } },
          orders: { placed: 0, byIdempotencyKey: {} }
        })
        const stats = yield* server.stats
        expect(stats.requests.byRetryKey).toEqual({ shared: 1 })
        expect(stats.requests.total).toBe(4)
        expect(stats.requests.byPath[`/__ns/${a.name}/api/chaos/retry/shared`]).toBe(2)
        expect(stats.namespaces).toEqual({
          [a.name]: {
            requests: { total: 2, preflights: 0, abandoned: 0, byRetryKey: { shared: 2 } },
            orders: { placed: 0, byIdempotencyKey: {} }
          },
          [b.name]: {
            requests: { total: 1, preflights: 0, abandoned: 0, byRetryKey: { shared: 1 } },
            orders: { placed: 0, byIdempotencyKey: {} }
          }
        })

        // Resetting a clears a alone: b and the requests outside any namespace keep their counts.
        yield* a.reset
        expect(yield* a.stats).toEqual({
          requests: { total: 0, preflights: 0, abandoned: 0, byRetryKey: {} },
          orders: { placed: 0, byIdempotencyKey: {} }
        })
        expect((yield* b.stats).requests.byRetryKey).toEqual({ shared: 1 })
        expect((yield* server.stats).requests.byRetryKey).toEqual({ shared: 1 })
        expect(attemptOf(yield* get(a, path))).toBe("1")
        expect(attemptOf(yield* get(b, path))).toBe("2")
        expect(attemptOf(yield* get(server, path))).toBe("2")

        // The server's reset clears every namespace.
        yield* server.reset
        expect((yield* server.stats).namespaces).toEqual({})
        expect(attemptOf(yield* get(b, path))).toBe("1")
      })
    )
  )

  it.effect("are reset and observed over HTTP: /__ns/NAME/__reset, /__reset?namespace=NAME, /__ns/NAME/__stats", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const a = yield* server.namespace("a")
        const b = yield* server.namespace("b")
        for (const namespace of [a, b, server]) yield* get(namespace, "/api/chaos/retry/k")

        const observed = yield* get(a, "/__stats")
        expect(observed.status).toBe(200)
        expect(json(observed)).toEqual(yield* a.stats)
        expect(json(observed)).toMatchObject({ requests: { total: 1, byRetryKey: { k: 1 } } })

        expect((yield* request(`${a.url}/__reset`, { method: "POST" })).status).toBe(204)
        expect((yield* a.stats).requests.byRetryKey).toEqual({})
        expect((yield* b.stats).requests.byRetryKey).toEqual({ k: 1 })

        expect((yield* request(`${server.url}/__reset?namespace=b`, { method: "POST" })).status).toBe(204)
        expect((yield* b.stats).requests.byRetryKey).toEqual({})
        expect((yield* server.stats).requests.byRetryKey).toEqual({ k: 1 })

        // Plain /__reset still resets everything.
        yield* get(a, "/api/chaos/retry/k")
        expect((yield* request(`${server.url}/__reset`, { method: "POST" })).status).toBe(204)
        const stats = yield* server.stats
        expect(stats.requests.byRetryKey).toEqual({})
        expect(stats.namespaces).toEqual({})
      })
    )
  )

  it.effect("keep orders and idempotency keys apart: an order is found only in its namespace", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const a = yield* server.namespace()
        const b = yield* server.namespace()
        const placed = yield* postOrder(a.url, "order-1")
        expect(placed.status).toBe(201)
        const location = placed.headers.location ?? ""
        expect(location).toMatch(new RegExp(`^/__ns/${a.name}/api/orders/order-\\d+$`))
        expect((yield* get(server, location)).status).toBe(200)
        const orderPath = location.slice(`/__ns/${a.name}`.length)
        expect((yield* get(b, orderPath)).status).toBe(404)
        expect((yield* get(server, orderPath)).status).toBe(404)

        // The same idempotency key in b is a first attempt there, and places an order of its own.
        const inB = yield* postOrder(b.url, "order-1")
        expect(inB.status).toBe(201)
        expect(attemptOf(inB)).toBe("1")
        expect((yield* postOrder(a.url, "order-1")).headers["idempotent-replayed"]).toBe("true")
        expect((yield* a.stats).orders).toEqual({ placed: 1, byIdempotencyKey: { "order-1": 2 } })
        expect((yield* server.stats).orders).toEqual({ placed: 0, byIdempotencyKey: {} })

        yield* b.reset
        expect((yield* get(server, inB.headers.location ?? "")).status).toBe(404)
        expect((yield* get(server, location)).status).toBe(200)
      })
    )
  )

  it.effect("serve every endpoint and query fault, and a redirect stays in its namespace", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const namespace = yield* server.namespace("faults")
        expect((yield* get(namespace, "/api/status/503?retryAfter=0")).status).toBe(503)
        const simulated = yield* get(namespace, "/api/Products/1?error=500")
        expect(simulated.status).toBe(500)
        expect(json(simulated)).toMatchObject({
          message: "Simulated 500 Internal Server Error for /__ns/faults/api/Products/1"
        })
        const redirect = yield* get(namespace, "/api/chaos/redirect-loop?n=1")
        expect(redirect.headers.location).toBe("/__ns/faults/api/chaos/redirect-loop?n=1")
        const missing = yield* get(namespace, "/nowhere")
        expect(missing.status).toBe(404)
        expect(json(missing)).toEqual({ error: "no route for GET /__ns/faults/nowhere" })
        expect((yield* get(server, "/__ns/faults")).status).toBe(404)
      })
    )
  )

  it.effect("refuse an invalid name with 400, over HTTP, without counting an attempt", () =>
    withServer((server) =>
      Effect.gen(function* () {
        // ("." and "..", refused too, never reach a server: clients resolve them as path steps.)
        const long = "x".repeat(65)
        for (const path of [
          "/__ns//api/chaos/retry/k",
          "/__ns/a%20b/api/chaos/retry/k",
          `/__ns/${long}/api/chaos/retry/k`
        ]) {
          const response = yield* get(server, path)
          expect(response.status, path).toBe(400)
          expect(json(response)).toEqual({ error: expect.stringContaining("namespace name") })
        }
        const badReset = yield* request(`${server.url}/__reset?namespace=`, { method: "POST" })
        expect(badReset.status).toBe(400)
        const twice = yield* request(`${server.url}/__ns/a/__reset?namespace=b`, { method: "POST" })
        expect(twice.status).toBe(400)
        const stats = yield* server.stats
        expect(stats.requests.byRetryKey).toEqual({})
        expect(stats.namespaces).toEqual({})
      })
    )
  )

  it.effect("named the same, are the same namespace; an invalid name is a defect", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const first = yield* server.namespace("checkout")
        const second = yield* server.namespace("checkout")
        expect(second.url).toBe(first.url)
        yield* get(first, "/api/chaos/retry/k")
        expect(attemptOf(yield* get(second, "/api/chaos/retry/k"))).toBe("2")
        const exit = yield* Effect.exit(server.namespace("a/b"))
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toContain("RangeError")
      })
    )
  )
})

describe("namespaces of the promise API", () => {
  it.live("are made by namespace(), reset alone, and refuse an invalid name with a RangeError", () =>
    Effect.gen(function* () {
      const server = yield* Effect.acquireRelease(
        Effect.promise(() => startChaosServer()),
        (server) => Effect.promise(server.close)
      )
      const a = server.namespace()
      const b = server.namespace()
      expect(a.name).toMatch(/^[0-9a-f-]{36}$/)
      for (const namespace of [a, a, b]) yield* get(namespace, "/api/chaos/retry/k")
      expect((yield* Effect.promise(a.stats)).requests.byRetryKey).toEqual({ k: 2 })
      yield* Effect.promise(b.reset)
      expect((yield* Effect.promise(a.stats)).requests.byRetryKey).toEqual({ k: 2 })
      expect((yield* Effect.promise(b.stats)).requests.byRetryKey).toEqual({})
      for (const name of ["", ".", "..", "a/b", "x".repeat(65), "caf\u00e9"]) {
        expect(() => server.namespace(name), name).toThrow(RangeError)
      }
    }).pipe(Effect.scoped)
  )
})

describe("ChaosState namespaces", () => {
  it("bound retry keys by maxRetryKeys across namespaces, not per namespace", () => {
    const state = new ChaosState({ maxRetryKeys: 2, maxTrackedPaths: 10, maxConnections: 10 })
    state.nextAttempt("a", "k")
    state.nextAttempt("b", "k")
    state.nextAttempt("", "k")
    // Three keys, two kept: a's, the least recently used, is forgotten.
    expect(state.nextAttempt("a", "k")).toBe(1)
    // Now b's is the least recently used one, forgotten for a's.
    const stats = state.snapshot()
    expect(stats.requests.byRetryKey).toEqual({ k: 1 })
    expect(Object.keys(stats.namespaces)).toEqual(["a"])
  })

  it("bound the namespaces remembered by maxRetryKeys", () => {
    const state = new ChaosState({ maxRetryKeys: 2, maxTrackedPaths: 10, maxConnections: 10 })
    for (const namespace of ["a", "b", "c"]) state.requestStarted(`/__ns/${namespace}/x`, namespace)
    expect(Object.keys(state.snapshot().namespaces)).toEqual(["b", "c"])
    expect(state.namespaceSnapshot("a").requests.total).toBe(0)
    expect(state.namespaceSnapshot("c").requests.total).toBe(1)
  })

  it("keeps a namespace's key literally named __proto__ as data", () => {
    const state = new ChaosState({ maxRetryKeys: 10, maxTrackedPaths: 10, maxConnections: 10 })
    state.nextAttempt("ns", "__proto__")
    expect(Object.keys(state.namespaceSnapshot("ns").requests.byRetryKey)).toEqual(["__proto__"])
  })
})
