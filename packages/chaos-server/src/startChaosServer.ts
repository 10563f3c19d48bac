/**
 * The chaos server for programs that do not use Effect.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as ChaosServer from "./ChaosServer.js"

/**
 * A chaos server started by {@link startChaosServer}.
 *
 * @example
 * ```ts
 * import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const server: StartedChaosServer = await startChaosServer()
 * await fetch(`${server.url}/api/chaos/retry/k?succeedAfter=1`)
 * console.log((await server.stats()).requests.byRetryKey) // { k: 1 }
 * await server.close()
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface StartedChaosServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string
  readonly port: number
  readonly stats: () => Promise<ChaosServer.Stats>
  readonly reset: () => Promise<void>
  /** Stops the server, destroying open connections. Calling it again returns the same promise. */
  readonly close: () => Promise<void>
}

/**
 * Starts a chaos server on 127.0.0.1 (port 0, a free one, by default). The promise rejects if the port cannot be
 * bound or an option is invalid.
 *
 * @example
 * ```ts
 * import { startChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const server = await startChaosServer()
 * const response = await fetch(`${server.url}/api/status/503`)
 * await server.close()
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const startChaosServer = async (options?: ChaosServer.Options): Promise<StartedChaosServer> => {
  const runtime = ManagedRuntime.make(ChaosServer.layer(options))
  const started = await runtime.runPromiseExit(ChaosServer.ChaosServer)
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    throw Cause.squash(started.cause)
  }
  const server = started.value
  let closing: Promise<void> | undefined
  return {
    url: server.url,
    port: server.port,
    stats: () => Effect.runPromise(server.stats),
    reset: () => Effect.runPromise(server.reset),
    close: () => {
      closing ??= runtime.dispose()
      return closing
    }
  }
}
