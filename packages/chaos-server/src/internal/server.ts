import * as Http from "node:http"
import type { NamespaceStats, Options, Stats } from "../startChaosServer.js"
import { makeRequestListener } from "./app.js"
import { type ResolvedCors, resolveCors } from "./cors.js"
import { ChaosState } from "./state.js"

const defaults = {
  port: 0,
  maxConnections: 1024,
  maxRetryKeys: 10_000,
  maxTrackedPaths: 10_000,
  maxBodyBytes: 1024 * 1024
} as const

/** @internal */
export const host = "127.0.0.1"

/**
 * Connections open at once beyond which node closes new ones before the server sees them, as a multiple of
 * `maxConnections`: between the two, connections are answered 503.
 */
const overloadedConnectionsFactor = 2

/** @internal */
export interface ResolvedOptions {
  readonly port: number
  readonly maxConnections: number
  readonly maxRetryKeys: number
  readonly maxBodyBytes: number
  /** Undefined when CORS is off. */
  readonly cors: ResolvedCors | undefined
}

const checkInteger = (name: string, value: number, min: number, max: number): number => {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer between ${min} and ${max}, got ${value}`)
  }
  return value
}

/**
 * The options with their defaults; throws a `RangeError` naming the first invalid one.
 *
 * @internal
 */
export const resolveOptions = (options: Options = {}): ResolvedOptions => ({
  port: checkInteger("port", options.port ?? defaults.port, 0, 65_535),
  maxConnections: checkInteger("maxConnections", options.maxConnections ?? defaults.maxConnections, 1, 1_000_000),
  maxRetryKeys: checkInteger("maxRetryKeys", options.maxRetryKeys ?? defaults.maxRetryKeys, 1, 1_000_000),
  maxBodyBytes: checkInteger("maxBodyBytes", options.maxBodyBytes ?? defaults.maxBodyBytes, 0, Number.MAX_SAFE_INTEGER),
  cors: resolveCors(options.cors)
})

/**
 * Node's error code (`EADDRINUSE`, ...), if `error` carries one.
 *
 * @internal
 */
export const errorCode = (error: unknown): string | undefined =>
  error instanceof Error && "code" in error && typeof error.code === "string" ? error.code : undefined

/** What the codes `listen` commonly fails with mean, in words. */
const listenFailures: Readonly<Record<string, string>> = {
  EADDRINUSE: "address already in use",
  EACCES: "permission denied",
  EADDRNOTAVAIL: "address not available"
}

/**
 * Why `listen` failed, in words, e.g. `address already in use (EADDRINUSE)`. Node's own message repeats the
 * syscall and the address (`listen EADDRINUSE: address already in use 127.0.0.1:8080`); the words come first
 * here and the code last. Never empty, whatever node reported.
 *
 * @internal
 */
export const describeListenFailure = (cause: unknown): string => {
  const code = errorCode(cause)
  const words = code === undefined ? undefined : listenFailures[code]
  if (words !== undefined) return `${words} (${code})`
  const message = cause instanceof Error ? cause.message : String(cause)
  if (message.trim().length > 0) return message
  return code ?? "node reported no reason"
}

/** @internal */
export interface RunningServer {
  readonly port: number
  readonly stats: () => Stats
  readonly reset: () => void
  readonly namespaceStats: (namespace: string) => NamespaceStats
  readonly resetNamespace: (namespace: string) => void
  /** Closes the listener and destroys every open socket; the same promise on every call. */
  readonly close: () => Promise<void>
}

/**
 * Starts listening on 127.0.0.1. Rejects with what node reported when the port cannot be bound.
 *
 * @internal
 */
export const listen = (options: ResolvedOptions): Promise<RunningServer> =>
  new Promise((resolve, reject) => {
    const state = new ChaosState({
      maxRetryKeys: options.maxRetryKeys,
      maxTrackedPaths: defaults.maxTrackedPaths,
      maxConnections: options.maxConnections
    })
    // noDelay: slow-body chunks must leave when written, not when Nagle's algorithm decides.
    const server = Http.createServer({ noDelay: true }, makeRequestListener(state, options))
    // Connections beyond maxConnections are kept long enough to be answered 503 (see ChaosState.connectionOpened):
    // node's own limit, at twice ours, still bounds the sockets held. Beyond it node closes them unseen, which
    // "drop" reports.
    server.maxConnections = overloadedConnectionsFactor * options.maxConnections
    server.on("drop", () => state.connectionDropped())
    server.on("connection", (socket) => state.connectionOpened(socket))

    let closing: Promise<void> | undefined
    // Without the destroy, `server.close()` would wait for hanging requests and idle keep-alive clients,
    // possibly forever. Its callback also fires, with an error, when the server is not listening: either way
    // it has stopped.
    const close = () => {
      closing ??= new Promise<void>((closed) => {
        server.close(() => closed())
        state.destroyOpenSockets()
      })
      return closing
    }

    server.once("error", reject)
    server.listen(options.port, host, () => {
      server.off("error", reject)
      // A listening server reports errors of its own (accept failing under EMFILE, ...) here; without a
      // listener node would throw them and end the process.
      server.on("error", (error) => console.error("chaos server error", error))
      const address = server.address()
      if (address === null || typeof address === "string") {
        close().then(() => reject(new Error("the chaos server listens on TCP, yet node reported no TCP address")))
        return
      }
      resolve({
        port: address.port,
        stats: () => state.snapshot(),
        reset: () => state.reset(),
        namespaceStats: (namespace) => state.namespaceSnapshot(namespace),
        resetNamespace: (namespace) => state.resetNamespace(namespace),
        close
      })
    })
  })
