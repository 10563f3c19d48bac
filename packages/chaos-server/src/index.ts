/**
 * A fault-injecting HTTP server for testing HTTP clients over real loopback sockets, started with a promise.
 * This entry point needs no Effect; the Effect layers live at `@effect-http-resilience/chaos-server/effect3`
 * and `@effect-http-resilience/chaos-server/effect4`.
 *
 * @example
 * ```ts
 * import { startChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const server = await startChaosServer({ port: 0 })
 * const response = await fetch(`${server.url}/api/status/503`)
 * await server.close()
 * ```
 *
 * @since 0.1.0
 */

/**
 * The chaos server as a promise, for programs with or without Effect: its options (CORS included), its stats, the error of a
 * port that cannot be bound, the handle of a running server and its namespaces.
 *
 * @since 0.1.0
 */
export {
  type ChaosNamespace,
  type CorsOptions,
  type NamespaceStats,
  type Options,
  ServeError,
  type StartedChaosServer,
  type Stats,
  startChaosServer
} from "./startChaosServer.js"
