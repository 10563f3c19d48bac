/**
 * @since 0.1.0
 */

/**
 * The chaos server as an Effect service and layer.
 *
 * @since 0.1.0
 */
export * as ChaosServer from "./ChaosServer.js"

/**
 * The chaos server as a promise, for programs that do not use Effect.
 *
 * @since 0.1.0
 */
export { type StartedChaosServer, startChaosServer } from "./startChaosServer.js"
