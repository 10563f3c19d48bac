/**
 * A fault-injecting HTTP server for testing HTTP clients over real sockets: chosen status codes, `Retry-After`
 * in both forms, latency, services that recover after N attempts, connection resets, hangs, truncated and
 * invalid bodies. It binds 127.0.0.1 only.
 *
 * Endpoints (any method unless noted; every JSON answer has `content-type: application/json`):
 *
 * - `/api/status/:code` (200-599): that status with `{ status, statusText, category, message }`; 429 and 503
 *   carry `Retry-After: 5`. `?retryAfter=N` sets the seconds, `?retryAfter=none` omits the header,
 *   `?retryAfterDate=N` sends an IMF-fixdate N seconds ahead (negative: in the past). 204 and 304 have no body.
 * - `/api/chaos/retry/:key?succeedAfter=2&failStatus=503`: the first `succeedAfter` requests for the key fail
 *   with `failStatus` and `Retry-After: 1` (same `retryAfter` options), later ones answer 200. Every answer
 *   carries `X-Attempt`, the 1-based count of requests for the key.
 * - `/api/chaos/reset` (connection reset before any byte), `/api/chaos/hang` (no answer, ever),
 *   `/api/chaos/truncate` (`Content-Length: 100`, 50 bytes, then the connection closes),
 *   `/api/chaos/invalid-json` (a 200 JSON body cut short), `/api/chaos/slow-body?chunks=10&interval=200`
 *   (a JSON array trickled one element per chunk, `interval` ms apart; `length=false`: chunked, no
 *   `Content-Length`).
 * - `/api/chaos/large-json?bytes=1048576&length=true` (a valid JSON array of exactly `bytes` bytes, 2 B to
 *   256 MiB, streamed as the client reads), `/api/chaos/redirect-loop` (a `302` to itself).
 * - Sample data: `/api/Products/:id`, `/api/Todos/:id`, `/v1/search?q=...&type=track` (Spotify-like).
 * - Any path: `?delay=S` (0 to 60 seconds, fractional allowed) answers late; `?error=CODE` (400-599) answers
 *   that status with `X-Simulated: true` and `{ status, error, message, simulated: true }`.
 * - `GET /__stats` ({@link Stats}) and `POST /__reset` (204).
 *
 * Malformed input is answered with 400 and `{ error }`, unknown paths with 404, bodies over the limit with 413.
 *
 * @since 0.1.0
 */
import type { ServeError } from "@effect/platform/HttpServerError"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as internal from "./internal/chaosServer.js"

/**
 * Options of a chaos server. Every limit bounds a resource a client could otherwise grow.
 *
 * @example
 * ```ts
 * import { ChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const options: ChaosServer.Options = { port: 0, maxConnections: 64, maxBodyBytes: 64 * 1024 }
 * const TestServer = ChaosServer.layer(options)
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number | undefined
  /** Most simultaneous connections; further ones are dropped by node. Default 1024. */
  readonly maxConnections?: number | undefined
  /** Most retry keys remembered; the least recently used is forgotten first. Default 10,000. */
  readonly maxRetryKeys?: number | undefined
  /** Largest request body accepted; a larger one is answered with 413. Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
}

/**
 * What a chaos server has seen since it started or was last reset. Requests to `/__stats` and `/__reset`
 * are not counted.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const attemptsFor = (key: string) =>
 *   Effect.gen(function* () {
 *     const server = yield* ChaosServer.ChaosServer
 *     const stats: ChaosServer.Stats = yield* server.stats
 *     return stats.requests.byRetryKey[key] ?? 0
 *   })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly requests: {
    /** Requests received. */
    readonly total: number
    /** Requests whose handler is still running (delayed, hanging, sabotaged); never reset. */
    readonly inFlight: number
    /** Requests per path, query excluded. Beyond 10,000 distinct paths the rest count under "(other)". */
    readonly byPath: Readonly<Record<string, number>>
    /** Requests per key of `/api/chaos/retry/:key`: the attempt number the key has reached. */
    readonly byRetryKey: Readonly<Record<string, number>>
  }
  readonly connections: {
    /** TCP connections accepted. */
    readonly opened: number
    /** TCP connections open now; never reset. */
    readonly open: number
  }
  readonly responses: {
    /**
     * Bodies `/api/chaos/slow-body` and `/api/chaos/large-json` are still streaming (their request is no longer
     * in `inFlight` once the headers are sent); it returns to 0 when bodies end or clients leave. Never reset.
     */
    readonly streaming: number
    /**
     * Body bytes `/api/chaos/slow-body` and `/api/chaos/large-json` have handed to their sockets. The socket
     * takes more only as the client reads, so a client that stops reading stops this count, give or take what
     * the socket buffers hold (a few MiB over loopback).
     */
    readonly bodyBytesStreamed: number
  }
}

/**
 * A running chaos server.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const program = Effect.gen(function* () {
 *   const server = yield* ChaosServer.ChaosServer
 *   const response = yield* Effect.promise(() => fetch(`${server.url}/api/status/503`))
 *   return response.status // 503
 * }).pipe(Effect.provide(ChaosServer.layer()))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class ChaosServer extends Context.Tag("@effect-http-resilience/chaos-server/ChaosServer")<
  ChaosServer,
  {
    /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
    readonly url: string
    readonly port: number
    readonly stats: Effect.Effect<Stats>
    /** Clears request counters, retry keys, the opened-connections count and the streamed-bytes count. */
    readonly reset: Effect.Effect<void>
  }
>() {}

/**
 * Starts a chaos server on 127.0.0.1, stopped when the scope closes. Stopping destroys open connections,
 * including hanging ones, so it never waits on a client. Invalid options are defects
 * (`IllegalArgumentException`); a port that cannot be bound is a `ServeError`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const program = Effect.scoped(
 *   Effect.gen(function* () {
 *     const server = yield* ChaosServer.make({ port: 0 })
 *     yield* Effect.log(`chaos server on ${server.url}`)
 *   })
 * )
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => Effect.Effect<ChaosServer["Type"], ServeError, Scope.Scope> = internal.make

/**
 * A chaos server as a layer, for tests: `Effect.provide(ChaosServer.layer())` then `yield* ChaosServer.ChaosServer`.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience"
 * import { ChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const TestLayer = Layer.merge(
 *   ChaosServer.layer(),
 *   ResilientHttpClient.layer({ maxAttempts: 3 }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * )
 *
 * const program = Effect.gen(function* () {
 *   const server = yield* ChaosServer.ChaosServer
 *   const http = yield* ResilientHttpClient.ResilientHttpClient
 *   const response = yield* http.get(`${server.url}/api/chaos/retry/demo?succeedAfter=2&retryAfter=0`)
 *   return response.headers["x-attempt"] // "3"
 * }).pipe(Effect.scoped, Effect.provide(TestLayer))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<ChaosServer, ServeError> =>
  Layer.scoped(ChaosServer, internal.make(options))
