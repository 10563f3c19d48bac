import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { ServeError, startChaosServer } from "../src/index.js"
import { get, json, request } from "./support/client.js"
import { addressInUse, occupiedPort } from "./support/ports.js"

describe("startChaosServer", () => {
  it.live("starts on 127.0.0.1 at a free port, serves, reports stats, and closes", () =>
    Effect.gen(function* () {
      const server = yield* Effect.promise(() => startChaosServer())
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
      expect(server.port).toBeGreaterThan(0)

      const response = yield* get(server, "/api/status/503")
      expect(response.status).toBe(503)
      expect(json(response)).toMatchObject({ status: 503 })
      const stats = yield* Effect.promise(() => server.stats())
      expect(stats.requests.byPath).toEqual({ "/api/status/503": 1 })
      yield* Effect.promise(() => server.reset())
      expect((yield* Effect.promise(() => server.stats())).requests.total).toBe(0)

      // A hanging request must not keep close() waiting.
      const hanging = yield* Effect.fork(get(server, "/api/chaos/hang"))
      yield* Effect.sleep("50 millis")
      yield* Effect.promise(() => server.close())
      yield* Effect.promise(() => server.close())
      const cut = yield* hanging.await
      expect(cut._tag).toBe("Failure")
      const refused = yield* request(`${server.url}/api/status/200`).pipe(Effect.flip)
      expect(refused.code).toBe("ECONNREFUSED")
    })
  )

  it.live("rejects with a ServeError saying why when the port is in use", () =>
    Effect.gen(function* () {
      const port = yield* occupiedPort
      const error = yield* Effect.promise(() =>
        startChaosServer({ port }).then(
          () => "started",
          (cause: unknown) => cause
        )
      )
      expect(error).toBeInstanceOf(ServeError)
      expect(error).toMatchObject({ _tag: "ServeError", name: "ServeError", port, code: "EADDRINUSE" })
      expect(error).toHaveProperty("message", addressInUse(port))
      expect(error).toHaveProperty("cause.code", "EADDRINUSE")
    }).pipe(Effect.scoped)
  )

  it.live("rejects invalid options", () =>
    Effect.gen(function* () {
      const error = yield* Effect.promise(() =>
        startChaosServer({ port: 70_000 }).then(
          () => "started",
          (cause: unknown) => cause
        )
      )
      expect(error).toBeInstanceOf(Error)
      expect(String(error)).toContain("port must be an integer between 0 and 65535")
    })
  )
})
