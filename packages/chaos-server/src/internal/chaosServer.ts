import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { ChaosServer, Options } from "../ChaosServer.js"
import { makeApp } from "./app.js"
import { ChaosState } from "./state.js"

/** @internal */
export const defaults = {
  port: 0,
  maxConnections: 1024,
  maxRetryKeys: 10_000,
  maxTrackedPaths: 10_000,
  maxBodyBytes: 1024 * 1024
} as const

/** @internal */
export const host = "127.0.0.1"

const checkInteger = (name: string, value: number, min: number, max: number): Effect.Effect<number> =>
  Number.isInteger(value) && value >= min && value <= max
    ? Effect.succeed(value)
    : Effect.die(
        new Cause.IllegalArgumentException(`${name} must be an integer between ${min} and ${max}, got ${value}`)
      )

/**
 * Closes the listener and destroys every open socket, then waits for node to confirm. Without the destroy,
 * `server.close()` would wait for hanging requests and idle keep-alive clients, possibly forever.
 */
const shutdown = (server: Http.Server, state: ChaosState): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    // The callback also fires, with an error, when the server is not listening: either way it has stopped.
    server.close(() => resume(Effect.void))
    state.destroyOpenSockets()
  })

/** @internal */
export const make = (options: Options = {}): Effect.Effect<ChaosServer["Type"], ServeError, Scope.Scope> =>
  Effect.gen(function* () {
    const port = yield* checkInteger("port", options.port ?? defaults.port, 0, 65_535)
    const maxConnections = yield* checkInteger(
      "maxConnections",
      options.maxConnections ?? defaults.maxConnections,
      1,
      1_000_000
    )
    const maxRetryKeys = yield* checkInteger(
      "maxRetryKeys",
      options.maxRetryKeys ?? defaults.maxRetryKeys,
      1,
      1_000_000
    )
    const maxBodyBytes = yield* checkInteger(
      "maxBodyBytes",
      options.maxBodyBytes ?? defaults.maxBodyBytes,
      0,
      Number.MAX_SAFE_INTEGER
    )

    const state = new ChaosState({ maxRetryKeys, maxTrackedPaths: defaults.maxTrackedPaths })
    // noDelay: slow-body chunks must leave when written, not when Nagle's algorithm decides.
    const nodeServer = Http.createServer({ noDelay: true })
    nodeServer.maxConnections = maxConnections
    nodeServer.on("connection", (socket) => state.connectionOpened(socket))

    const httpServer = yield* NodeHttpServer.make(() => nodeServer, { port, host })
    const app = yield* makeApp(state, { maxBodyBytes })
    // The server answers real sockets, so its delays run on the wall clock even when the layer is built under
    // TestClock (as @effect/vitest's `it.effect` does). `serve` captures the handlers' runtime, clock included.
    yield* Effect.withClock(httpServer.serve(app), Clock.make())
    // Added last so that it runs first on release, before the platform waits for `server.close()`.
    yield* Effect.addFinalizer(() => shutdown(nodeServer, state))

    const address = httpServer.address
    if (address._tag !== "TcpAddress") {
      return yield* Effect.dieMessage("the chaos server listens on TCP, yet node reported a Unix socket address")
    }
    return {
      url: `http://${host}:${address.port}`,
      port: address.port,
      stats: Effect.sync(() => state.snapshot()),
      reset: Effect.sync(() => state.reset())
    }
  })
