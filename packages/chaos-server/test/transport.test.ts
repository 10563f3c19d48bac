import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as ChaosServer from "../src/ChaosServer.js"
import { awaitStats, get, json, withServer } from "./support/client.js"

describe("GET /api/chaos/reset", () => {
  it.live("resets the connection before any response byte", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const failure = yield* get(server, "/api/chaos/reset").pipe(Effect.flip)
        expect(failure.stage).toBe("request")
        expect(failure.code).toBe("ECONNRESET")
        expect(failure.status).toBeUndefined()
        const stats = yield* awaitStats(server, (stats) => stats.requests.inFlight === 0, "the reset handler ending")
        expect(stats.requests.byPath["/api/chaos/reset"]).toBe(1)
      })
    )
  )
})

describe("GET /api/chaos/hang", () => {
  it.live("never answers; the client timeout fires and the abandoned handler ends", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const failure = yield* get(server, "/api/chaos/hang", { timeoutMillis: 200 }).pipe(Effect.flip)
        expect(failure.stage).toBe("timeout")
        expect(failure.received).toBe("")
        expect(failure.elapsedMillis).toBeGreaterThanOrEqual(190)
        yield* awaitStats(
          server,
          (stats) => stats.requests.inFlight === 0 && stats.connections.open === 0,
          "the hang handler ending"
        )
      })
    )
  )

  it.live("does not keep the server from shutting down", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const server = yield* ChaosServer.make().pipe(Scope.extend(scope))
      // A client that would wait forever.
      const patientClient = yield* Effect.fork(get(server, "/api/chaos/hang"))
      yield* awaitStats(server, (stats) => stats.requests.inFlight === 1, "the hanging request")

      const closingStarted = performance.now()
      yield* Scope.close(scope, Exit.void).pipe(
        // Closing is uninterruptible: disconnect it so that the timeout can report a stuck shutdown.
        Effect.disconnect,
        Effect.timeoutFail({ duration: "30 seconds", onTimeout: () => "shutdown waited on the hanging request" })
      )
      // The hanging request would hold it for ever; busy cores may take a few seconds.
      expect(performance.now() - closingStarted).toBeLessThan(10_000)

      const failure = yield* Fiber.join(patientClient).pipe(Effect.flip)
      expect(failure.stage).toBe("request")
      // The listener is closed too: a new connection is refused.
      const refused = yield* get(server, "/api/status/200").pipe(Effect.flip)
      expect(refused.code).toBe("ECONNREFUSED")
    })
  )
})

layer(ChaosServer.layer())("body faults", (it) => {
  it.effect("/api/chaos/truncate declares 100 bytes, sends 50, and cuts the connection", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const failure = yield* get(server, "/api/chaos/truncate").pipe(Effect.flip)
      expect(failure.stage).toBe("body")
      expect(failure.status).toBe(200)
      expect(failure.headers?.["content-length"]).toBe("100")
      expect(failure.headers?.["content-type"]).toBe("application/json")
      expect(failure.received).toHaveLength(50)
    })
  )

  it.effect("/api/chaos/invalid-json is a 200 JSON response that does not parse", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/invalid-json")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(response.body.startsWith('{"tracks": ')).toBe(true)
      expect(() => JSON.parse(response.body)).toThrow(SyntaxError)
    })
  )

  it.effect("/api/chaos/slow-body sends headers at once and then one chunk per interval", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/slow-body?chunks=4&interval=60")
      expect(response.status).toBe(200)
      expect(response.headers["content-type"]).toBe("application/json")
      expect(Number(response.headers["content-length"])).toBe(Buffer.byteLength(response.body))
      expect(json(response)).toEqual([
        { chunk: 1, of: 4 },
        { chunk: 2, of: 4 },
        { chunk: 3, of: 4 },
        { chunk: 4, of: 4 }
      ])
      // The first element leaves with the headers, alone; the last one three intervals later. (Counting data
      // events exactly would be flaky: a busy event loop can read two chunks at once.)
      const [first] = response.chunks
      expect(first?.text).toBe('[{"chunk":1,"of":4}')
      expect(response.finishedAt - first!.arrivedAt).toBeGreaterThanOrEqual(3 * 60 - 15)
    })
  )

  it.effect("/api/chaos/slow-body defaults to 10 chunks", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* get(server, "/api/chaos/slow-body?interval=0")
      expect(json(response)).toHaveLength(10)
    })
  )

  const badSlowBodies = [
    "chunks=0",
    "chunks=1001",
    "chunks=ten",
    "chunks=2.5",
    "interval=-1",
    "interval=10001",
    "interval=fast",
    "chunks=1000&interval=100"
  ]
  for (const query of badSlowBodies) {
    it.effect(`/api/chaos/slow-body?${query} is refused with 400`, () =>
      Effect.gen(function* () {
        const server = yield* ChaosServer.ChaosServer
        const response = yield* get(server, `/api/chaos/slow-body?${query}`)
        expect(response.status).toBe(400)
        expect(json(response)).toEqual({ error: expect.any(String) })
      })
    )
  }
})
