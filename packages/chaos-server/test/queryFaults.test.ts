import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChaosServer from "../src/ChaosServer.js"
import { awaitStats, get, json, withServer } from "./support/client.js"

layer(ChaosServer.layer())("?error=CODE", (it) => {
  it.effect("replaces a resource with a simulated error marked X-Simulated, without Retry-After", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/Products/1?error=503")
      expect(response.status).toBe(503)
      expect(response.headers["x-simulated"]).toBe("true")
      expect(response.headers["retry-after"]).toBeUndefined()
      expect(response.headers["content-type"]).toBe("application/json")
      expect(json(response)).toEqual({
        status: 503,
        error: "Service Unavailable",
        message: expect.stringContaining("/api/Products/1"),
        simulated: true
      })
    })
  )

  it.effect("works on any resource path and any 4xx/5xx", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const todo = yield* get(server, "/api/Todos/1?error=400")
      expect(todo.status).toBe(400)
      expect(json(todo)).toMatchObject({ status: 400, error: "Bad Request", simulated: true })
      const tooMany = yield* get(server, "/api/Products/7?error=429")
      expect(tooMany.status).toBe(429)
      expect(tooMany.headers["retry-after"]).toBeUndefined()
      const unknownPath = yield* get(server, "/api/Orders/1?error=500")
      expect(unknownPath.status).toBe(500)
      expect(json(unknownPath)).toMatchObject({ simulated: true })
    })
  )

  for (const bad of ["abc", "200", "302", "600", "", "5033"]) {
    it.effect(`refuses ?error=${bad} with 400`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const response = yield* get(server, `/api/Products/1?error=${bad}`)
        expect(response.status).toBe(400)
        expect(json(response)).toEqual({ error: expect.stringContaining("error") })
      })
    )
  }
})

layer(ChaosServer.layer())("?delay=S", (it) => {
  it.effect("answers after the delay", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/Products/1?delay=0.08")
      expect(response.status).toBe(200)
      expect(json(response)).toEqual({ id: 1, name: "Product 1", price: expect.any(Number) })
      expect(response.finishedAt - response.startedAt).toBeGreaterThanOrEqual(75)
    })
  )

  it.effect("combined with ?error, fails late", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/Products/1?delay=0.08&error=503")
      expect(response.status).toBe(503)
      expect(response.headers["x-simulated"]).toBe("true")
      expect(response.finishedAt - response.startedAt).toBeGreaterThanOrEqual(75)
    })
  )

  it.effect("delays the fault endpoints too", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/status/503?delay=0.05")
      expect(response.status).toBe(503)
      expect(response.finishedAt - response.startedAt).toBeGreaterThanOrEqual(45)
    })
  )

  it.effect("accepts 0 and answers at once", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/Products/1?delay=0")
      expect(response.status).toBe(200)
    })
  )

  for (const bad of ["abc", "-1", "61", "60.5", "1e3", "", "0x10", "Infinity", "NaN", ".5"]) {
    it.effect(`refuses ?delay=${bad} with 400 without waiting`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const response = yield* get(server, `/api/Products/1?delay=${bad}`)
        expect(response.status).toBe(400)
        expect(json(response)).toEqual({ error: expect.stringContaining("delay") })
        // Far below the smallest delay refused (60.5 s), with room for busy cores.
        expect(response.finishedAt - response.startedAt).toBeLessThan(10_000)
      })
    )
  }
})

describe("?delay=S when the client leaves", () => {
  it.live("stops waiting: the handler ends instead of sleeping on", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const outcome = yield* get(server, "/api/Products/1?delay=30", { timeoutMillis: 100 }).pipe(Effect.flip)
        expect(outcome.stage).toBe("timeout")
        // The sleeping handler must be interrupted once the socket closes: inFlight falls back to 0.
        const stats = yield* awaitStats(
          server,
          (stats) => stats.requests.inFlight === 0 && stats.connections.open === 0,
          "the delayed handler ending"
        )
        expect(stats.requests.inFlight).toBe(0)
        expect(stats.requests.byPath["/api/Products/1"]).toBe(1)
      })
    )
  )
})
