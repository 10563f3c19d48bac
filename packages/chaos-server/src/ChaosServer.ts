/**
 * The chaos server as an Effect 3 service and layer: a fault-injecting HTTP server on 127.0.0.1, started when
 * the layer is built and stopped when it is released. A thin scoped wrapper over the Effect-free
 * `startChaosServer` of the package's root, which lists the endpoints.
 *
 * Import it as `import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"` (or from
 * `@effect-http-resilience/chaos-server/ChaosServer`); the Effect 4 layer is at `.../effect4`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
 *
 * const program = Effect.gen(function* () {
 *   const server = yield* ChaosServer.ChaosServer
 *   const response = yield* Effect.promise(() => fetch(`${server.url}/api/status/503`))
 *   return response.status // 503
 * }).pipe(Effect.provide(ChaosServer.layer()))
 * ```
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Core from "./startChaosServer.js"

/**
 * Options of a chaos server. Every limit bounds a resource a client could otherwise grow.
 *
 * @since 0.1.0
 * @category models
 */
export type Options = Core.Options

/**
 * How the server answers pages of other origins when its `cors` option is on: whether they may read its headers
 * (`exposeHeaders`, default true) and which request headers a preflight allows (`allowHeaders`, default `"any"`).
 * The root's `CorsOptions`.
 *
 * @since 0.2.0
 * @category models
 */
export type CorsOptions = Core.CorsOptions

/**
 * What a chaos server has seen since it started or was last reset. Requests to `/__stats` and `/__reset`
 * are not counted.
 *
 * @since 0.1.0
 * @category models
 */
export type Stats = Core.Stats

/**
 * What one namespace has counted: its requests, retry keys and orders (see {@link Namespace}).
 *
 * @since 0.2.0
 * @category models
 */
export type NamespaceStats = Core.NamespaceStats

/**
 * A namespace of a chaos server, for one test: its `url` is a base URL under which every endpoint answers as
 * under the server's, with retry keys, idempotency keys and orders of its own, and its `reset` clears it alone.
 * Made by the service's `namespace`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Namespace {
  /** Its name: the one given, or a fresh UUID. */
  readonly name: string
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234/__ns/checkout`. */
  readonly url: string
  readonly stats: Effect.Effect<NamespaceStats>
  /** Clears the namespace's request count, retry keys, idempotency keys and orders, and nothing else. */
  readonly reset: Effect.Effect<void>
}

/**
 * The port could not be bound. The same class as the root's `ServeError`, tagged `"ServeError"`.
 *
 * @since 0.2.0
 * @category errors
 */
export type ServeError = Core.ServeError

/**
 * A running chaos server.
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
    /**
     * Clears request counters, retry keys, orders, every namespace, the connection counts (but `open`) and the
     * streamed-bytes count.
     */
    readonly reset: Effect.Effect<void>
    /**
     * A namespace of its own, for one test (see {@link Namespace}). Without a name, a fresh one (a UUID); with a
     * name (1 to 64 of `A-Z a-z 0-9 . _ ~ -`, not `.` or `..`), that namespace, shared with whoever else names it.
     * An invalid name is a defect, a `RangeError`.
     */
    readonly namespace: (name?: string) => Effect.Effect<Namespace>
  }
>() {}

/**
 * Starts a chaos server on 127.0.0.1, stopped when the scope closes. Stopping destroys open connections,
 * including hanging ones, so it never waits on a client. A port that cannot be bound is a `ServeError`;
 * invalid options are defects (a `RangeError` naming the option).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options?: Options): Effect.Effect<ChaosServer["Type"], ServeError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({ try: () => Core.startChaosServer(options), catch: (error) => error }).pipe(
      Effect.catchAll((error) => (error instanceof Core.ServeError ? Effect.fail(error) : Effect.die(error)))
    ),
    (server) => Effect.promise(server.close)
  ).pipe(
    Effect.map((server) => ({
      url: server.url,
      port: server.port,
      stats: Effect.promise(server.stats),
      reset: Effect.promise(server.reset),
      namespace: (name?: string) =>
        Effect.sync(() => server.namespace(name)).pipe(
          Effect.map(
            (namespace): Namespace => ({
              name: namespace.name,
              url: namespace.url,
              stats: Effect.promise(namespace.stats),
              reset: Effect.promise(namespace.reset)
            })
          )
        )
    }))
  )

/**
 * A chaos server as a layer, for tests: `Effect.provide(ChaosServer.layer())` then `yield* ChaosServer.ChaosServer`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<ChaosServer, ServeError> =>
  Layer.scoped(ChaosServer, make(options))
