/**
 * A fault-injecting HTTP server for testing HTTP clients over real loopback sockets, as an Effect
 * layer or a promise.
 *
 * @since 0.1.0
 */

/**
 * The chaos server as an Effect service and layer.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const program = Effect.gen(function* () {
 *   const server = yield* ChaosServer.ChaosServer
 *   yield* Effect.log(server.url)
 * }).pipe(Effect.provide(ChaosServer.layer()))
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as ChaosServer from "./ChaosServer.js"

/**
 * The chaos server as a promise, for programs that do not use Effect.
 *
 * @since 0.1.0
 */
export { type StartedChaosServer, startChaosServer } from "./startChaosServer.js"
