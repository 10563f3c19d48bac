import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Net from "node:net"
import type * as ChaosServer from "../src/ChaosServer.js"
import { ChaosState } from "../src/internal/state.js"
import { awaitStats, get, json, withServer } from "./support/client.js"

/**
 * Takes one connection with a request to `/api/chaos/hang`, which holds it with no timer of the server's to close
 * it (an idle keep-alive connection would be closed after 5 s), until the returned fiber is interrupted.
 */
const holdConnection = (server: ChaosServer.ChaosServer["Type"]) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.forkScoped(get(server, "/api/chaos/hang"))
    yield* awaitStats(server, (stats) => stats.requests.inFlight === 1, "the hanging request")
    return fiber
  })

/** A TCP connection to the server that sends nothing, destroyed when the test ends. */
const idleConnection = (port: number) =>
  Effect.acquireRelease(
    Effect.async<Net.Socket>((resume) => {
      const socket = Net.connect(port, "127.0.0.1", () => resume(Effect.succeed(socket)))
    }),
    (socket) => Effect.sync(() => socket.destroy())
  )

describe("connections beyond maxConnections", () => {
  // Live: awaitStats polls on the real clock.
  it.live("are answered 503 with X-Chaos-Overload, reach no endpoint, and are counted as rejected", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          // A hanging request holds the one place.
          const held = yield* holdConnection(server)

          const overloaded = yield* get(server, "/api/chaos/retry/k?succeedAfter=0")
          expect(overloaded.status).toBe(503)
          expect(overloaded.headers["x-chaos-overload"]).toBe("max-connections")
          expect(overloaded.headers.connection).toBe("close")
          expect(overloaded.headers["x-attempt"]).toBeUndefined()
          expect(json(overloaded)).toEqual({ error: expect.stringContaining("maxConnections (1)") })

          // /__stats still answers on a rejected connection (itself rejected: the place is still taken).
          const observed = yield* get(server, "/__stats")
          expect(observed.status).toBe(200)
          const stats = yield* server.stats
          expect(stats.connections).toMatchObject({ opened: 1, rejected: 2, dropped: 0 })
          // The endpoint never ran: no attempt, no request counted.
          expect(stats.requests.byRetryKey).toEqual({})
          expect(stats.requests.total).toBe(1)

          // Once the served connection closes, a new one is served again.
          yield* Fiber.interrupt(held)
          yield* awaitStats(server, (stats) => stats.connections.open === 0, "every connection closed")
          const served = yield* get(server, "/api/chaos/retry/k?succeedAfter=0")
          expect(served.status).toBe(200)
          expect(served.headers["x-chaos-overload"]).toBeUndefined()
          expect((yield* server.stats).connections).toMatchObject({ opened: 2, rejected: 2 })
        }),
      { maxConnections: 1 }
    ).pipe(Effect.scoped)
  )

  it.live("beyond twice maxConnections open at once, are closed by node unanswered and counted as dropped", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          yield* holdConnection(server)
          // A second connection, rejected, kept open without a request: two open, twice the limit.
          yield* idleConnection(server.port)
          yield* awaitStats(server, (stats) => stats.connections.rejected === 1, "the idle connection rejected")

          const dropped = yield* Effect.flip(get(server, "/api/status/200"))
          expect(dropped.stage).toBe("request")
          const stats = yield* awaitStats(server, (stats) => stats.connections.dropped === 1, "a dropped connection")
          expect(stats.connections).toMatchObject({ opened: 1, rejected: 1, dropped: 1 })
          expect(stats.requests.total).toBe(1)

          // /__reset clears the counts.
          yield* server.reset
          expect((yield* server.stats).connections).toMatchObject({ opened: 0, rejected: 0, dropped: 0 })
        }),
      { maxConnections: 1 }
    ).pipe(Effect.scoped)
  )
})

describe("ChaosState connections", () => {
  it("serves maxConnections at once, rejects the rest, and serves again once a served one closes", () => {
    const state = new ChaosState({ maxRetryKeys: 10, maxTrackedPaths: 10, maxConnections: 2 })
    const sockets = [new Net.Socket(), new Net.Socket(), new Net.Socket()]
    for (const socket of sockets) state.connectionOpened(socket)
    expect(sockets.map((socket) => state.isRejected(socket))).toEqual([false, false, true])
    expect(state.snapshot().connections).toEqual({ opened: 2, open: 3, rejected: 1, dropped: 0 })
    sockets[0]?.emit("close")
    const next = new Net.Socket()
    state.connectionOpened(next)
    expect(state.isRejected(next)).toBe(false)
    // A rejected connection stays rejected.
    expect(state.isRejected(sockets[2] ?? next)).toBe(true)
    expect(state.snapshot().connections).toEqual({ opened: 3, open: 3, rejected: 1, dropped: 0 })
  })
})
