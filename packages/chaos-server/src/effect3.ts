/**
 * The chaos server as an Effect 3 service and layer (`effect` 3.x): a scoped wrapper over the Effect-free
 * server of the package's root.
 *
 * @example
 * ```ts
 * import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
 * import { Effect } from "effect"
 *
 * const program = Effect.gen(function* () {
 *   const server = yield* ChaosServer.ChaosServer
 *   yield* Effect.log(server.url)
 * }).pipe(Effect.provide(ChaosServer.layer()))
 * ```
 *
 * @since 0.2.0
 */

/**
 * The chaos server as an Effect 3 service and layer.
 *
 * @since 0.2.0
 * @category modules
 */
export * as ChaosServer from "./ChaosServer.js"
