import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Http from "node:http"
import * as Net from "node:net"
import { ChaosState } from "../src/internal/state.js"
import { awaitStats, get, json, withServer } from "./support/client.js"

/** A keep-alive agent with one socket, destroyed when the test ends (or earlier, by `destroy`). */
const keepAliveAgent = Effect.acquireRelease(
  Effect.sync(() => new Http.Agent({ keepAlive: true, maxSockets: 1 })),
  (agent) => Effect.sync(() => agent.destroy())
)

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
          // A keep-alive connection holds the one place.
          const agent = yield* keepAliveAgent
          expect((yield* get(server, "/api/status/200", { agent })).status).toBe(200)

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
          agent.destroy()
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
          const agent = yield* keepAliveAgent
          expect((yield* get(server, "/api/status/200", { agent })).status).toBe(200)
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
