/**
 * The chaos server without Effect: a fault-injecting HTTP server on 127.0.0.1, started and stopped with
 * promises. The Effect layers (`@effect-http-resilience/chaos-server/effect3` and `/effect4`) wrap it.
 *
 * Endpoints (any method unless noted; every JSON answer has `content-type: application/json`):
 *
 * - `/api/status/:code` (200-599): that status with `{ status, statusText, category, message }`; 429 and 503
 *   carry `Retry-After: 5`. `?retryAfter=N` sets the seconds, `?retryAfter=none` omits the header,
 *   `?retryAfterDate=N` sends an IMF-fixdate N seconds ahead (negative: in the past). 204 and 304 have no body.
 * - `/api/chaos/retry/:key?succeedAfter=2&failStatus=503`: the first `succeedAfter` requests for the key fail
 *   with `failStatus` and `Retry-After: 1` (same `retryAfter` options), later ones answer 200. Every answer
 *   carries `X-Attempt`, the 1-based count of requests for the key.
 * - `POST /api/orders?succeedAfter=2&failStatus=503` with a JSON object: attempts are counted per
 *   `Idempotency-Key`; the first `succeedAfter` fail like `/api/chaos/retry/:key`, the next places the order
 *   (201 `{ orderId, idempotencyKey, attempt, order }`), later ones answer it again (200,
 *   `Idempotent-Replayed: true`) without placing it twice. Without a key every POST is a first attempt.
 *   `GET /api/orders/:orderId` answers a placed order.
 * - `/api/chaos/reset` (connection reset before any byte), `/api/chaos/hang` (no answer, ever),
 *   `/api/chaos/truncate` (`Content-Length: 100`, 50 bytes, then the connection closes),
 *   `/api/chaos/invalid-json` (a 200 JSON body cut short), `/api/chaos/slow-body?chunks=10&interval=200`
 *   (a JSON array trickled one element per chunk, `interval` ms apart; `length=false`: chunked, no
 *   `Content-Length`).
 * - `/api/chaos/large-json?bytes=1048576&length=true` (a valid JSON array of exactly `bytes` bytes, 2 B to
 *   256 MiB, streamed as the client reads), `/api/chaos/redirect-loop` (a `302` to itself).
 * - `GET|HEAD /api/chaos/latency/:key?fast=5&slow=500&slowShare=0.05&seed=1`: the n-th request for the key waits
 *   `slow` ms if slow, else `fast` ms, slow when the n-th number of mulberry32 seeded with `seed` is below
 *   `slowShare` (the same on every run), or when n is listed in `slowEvery=1,3`; then 200
 *   `{ key, n, delayMillis, slow }` with `X-Attempt: n` and `X-Chaos-Delay: ms`.
 * - `/api/chaos/rate-limit/:key?limit=10&window=1&headers=both&xReset=unix&algorithm=fixed`: at most `limit`
 *   requests per `window` seconds for the key (fixed windows, or a sliding log with `algorithm=sliding`),
 *   announced on every answer in the IETF `RateLimit` and `RateLimit-Policy` fields, the `X-RateLimit-Limit`, `-Remaining` and `-Reset` headers (`headers=ietf|x|both|none`; `X-RateLimit-Reset` a Unix
 *   time or, with `xReset=seconds`, seconds); beyond, `429` with `Retry-After` ({@link Stats}`.rateLimit`).
 * - `/api/chaos/capacity?base=20&shedAt=2`: serves `N` requests at once in `base` ms (`N` 64, or what
 *   `POST /__capacity?limit=N` set), `c` beyond `N` in `base × c / N` ms, and sheds with `503` beyond `shedAt × N`
 *   ({@link Stats}`.capacity`, also `GET /__capacity`).
 * - `/api/basic-auth/:user/:password`: httpbin's `/basic-auth`: 200 `{ authenticated: true, user }` when
 *   `Authorization: Basic` names the user and password of the path (percent-decoded), else 401 with
 *   `WWW-Authenticate: Basic`.
 * - Sample data: `/api/Products/:id`, `/api/Todos/:id`, `/v1/search?q=...&type=track` (Spotify-like).
 * - Any path: `?delay=S` (0 to 60 seconds, fractional allowed) answers late; `?error=CODE` (400-599) answers
 *   that status with `X-Simulated: true` and `{ status, error, message, simulated: true }`.
 * - `GET /__stats` ({@link Stats}) and `POST /__reset` (204); `POST /__reset?namespace=NAME` resets one namespace.
 *   `GET /__capacity` and `POST /__capacity?limit=N` read and set the capacity route's.
 * - Namespaces: every path above also answers under `/__ns/NAME` (see {@link StartedChaosServer.namespace}), with
 *   retry keys, idempotency keys and orders of its own; `/__ns/NAME/__stats` ({@link NamespaceStats}) and
 *   `POST /__ns/NAME/__reset` observe and reset that namespace alone.
 *
 * Malformed input is answered with 400 and `{ error }`, unknown paths with 404, bodies over the limit with 413.
 * With the `cors` option on, every answer carries CORS headers and preflights are answered `204` before any
 * endpoint (see {@link CorsOptions}).
 *
 * @example
 * ```ts
 * import { type Options, startChaosServer } from "@effect-http-resilience/chaos-server"
 *
 * const options: Options = { port: 0, maxConnections: 64, maxBodyBytes: 64 * 1024 }
 * const server = await startChaosServer(options)
 * ```
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as Namespaces from "./internal/namespaces.js"
import * as Server from "./internal/server.js"

/**
 * Options of a chaos server. Every limit bounds a resource a client could otherwise grow.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** TCP port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number | undefined
  /**
   * Most connections served at once. A request on a further connection is answered 503 with
   * `X-Chaos-Overload: max-connections` and `Connection: close`, without reaching its endpoint (counted in
   * `Stats.connections.rejected`); beyond twice as many open at once, node closes new connections unanswered
   * (`Stats.connections.dropped`). Default 1024.
   */
  readonly maxConnections?: number | undefined
  /**
   * Most retry keys remembered, and likewise most latency keys of `/api/chaos/latency/:key`, idempotency keys and
   * placed orders of `/api/orders`; the least recently used is forgotten first. Default 10,000.
   */
  readonly maxRetryKeys?: number | undefined
  /** Largest request body accepted; a larger one is answered with 413. Default 1 MiB. */
  readonly maxBodyBytes?: number | undefined
  /**
   * Lets pages of other origins call the server (see {@link CorsOptions}). Off by default (`false`): no CORS
   * header at all, and `OPTIONS` is an ordinary request. `true` is `{}`: every answer carries
   * `Access-Control-Allow-Origin` (the request's `Origin`, or `*`), `Vary: Origin` and
   * `Access-Control-Expose-Headers`, and a preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered
   * `204` before any endpoint, counted only in `Stats.requests.preflights`.
   */
  readonly cors?: boolean | CorsOptions | undefined
}

/**
 * How the chaos server answers pages of other origins, when its `cors` option is on: what they may read of its
 * answers, and which request headers its preflights allow. A page's origin is always allowed.
 *
 * A preflight (`OPTIONS` with `Access-Control-Request-Method`) is answered `204` by the CORS layer itself, with
 * `Access-Control-Allow-Methods: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS` and `Access-Control-Max-Age: 600`.
 * It reaches no endpoint: it advances no retry key, places no order, and counts only in
 * `Stats.requests.preflights` (and its namespace's), not in `total` or `byPath`.
 *
 * @since 0.2.0
 * @category models
 */
export interface CorsOptions {
  /**
   * Whether a page may read the server's own headers (`Access-Control-Expose-Headers`): `Retry-After`,
   * `X-Attempt`, `X-Simulated`, `X-Chaos-Overload`, `X-Chaos-Delay`, `Idempotent-Replayed`, `Location`, `Allow`,
   * `Content-Encoding`, `Content-Length` and the rate-limit headers (`RateLimit`, `RateLimit-Policy`,
   * `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`, `X-RateLimit-Limit`, `X-RateLimit-Remaining`,
   * `X-RateLimit-Reset`).
   * Default true. `false` is the case of a server that forgets to expose them: the page gets the status and body,
   * but `Retry-After` and the rest read as absent.
   */
  readonly exposeHeaders?: boolean | undefined
  /**
   * The request headers a preflight allows: `"any"` (the default) echoes `Access-Control-Request-Headers`; a list
   * of header names (case-insensitive) is answered as it is, whatever was asked for, as a strict server does. With
   * `["content-type", "idempotency-key"]` a browser refuses a request carrying the `traceparent` or `b3` headers
   * that Effect's HTTP client adds when tracing.
   */
  readonly allowHeaders?: "any" | ReadonlyArray<string> | undefined
}

/**
 * What a chaos server has seen since it started or was last reset. Requests to `/__stats` and `/__reset`
 * are not counted.
 *
 * @since 0.2.0
 * @category models
 */
export interface Stats {
  readonly requests: {
    /** Requests received, in every namespace; CORS preflights are not among them. */
    readonly total: number
    /**
     * CORS preflights answered (with the `cors` option on), in every namespace: they reach no endpoint and count
     * nowhere else. Those to `/__stats` and `/__reset` are not counted.
     */
    readonly preflights: number
    /** Requests whose handler is still running (delayed, hanging, sabotaged); never reset. */
    readonly inFlight: number
    /**
     * Requests, in every namespace, whose client left (closed its connection, aborted) before their answer
     * started: waiting on `?delay`, `/api/chaos/hang` or `/api/chaos/latency/:key`, or still sending their body.
     * Not the requests of `/api/chaos/reset` and `/api/chaos/truncate` (the server cuts those itself), nor a
     * streamed body left halfway (its answer had started), nor those the server cuts off when it stops. The wait
     * of an abandoned request ends at once: its timer is cleared and nothing is written.
     */
    readonly abandoned: number
    /**
     * Requests per path, query excluded, a namespace's under their whole path (`/__ns/NAME/...`). Beyond 10,000
     * distinct paths the rest count under "(other)".
     */
    readonly byPath: Readonly<Record<string, number>>
    /**
     * Requests per key of `/api/chaos/retry/:key` outside any namespace: the attempt number the key has reached.
     * A namespace's keys are in {@link Stats.namespaces}.
     */
    readonly byRetryKey: Readonly<Record<string, number>>
  }
  readonly connections: {
    /** TCP connections accepted and served (within `maxConnections`). */
    readonly opened: number
    /** TCP connections open now, rejected ones included; never reset. */
    readonly open: number
    /**
     * Connections accepted beyond `maxConnections` served at once: each request on one was answered 503 with
     * `X-Chaos-Overload: max-connections` and the connection closed. Their requests count nowhere else.
     */
    readonly rejected: number
    /**
     * Connections node closed at once, unanswered, because twice `maxConnections` were open: the client sees
     * them reset or closed, as with `/api/chaos/reset`, but no endpoint ran.
     */
    readonly dropped: number
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
  /** The orders outside any namespace; a namespace's are in {@link Stats.namespaces}. */
  readonly orders: {
    /** Orders `POST /api/orders` placed; a replay of an idempotency key places none. */
    readonly placed: number
    /** Valid `POST /api/orders` requests per `Idempotency-Key`, replays included: the attempt the key reached. */
    readonly byIdempotencyKey: Readonly<Record<string, number>>
  }
  /** `/api/chaos/rate-limit/:key`'s answers, in every namespace. */
  readonly rateLimit: {
    /** Requests within their key's limit, answered 200. */
    readonly allowed: number
    /** Requests beyond it, answered 429 with `Retry-After`. */
    readonly limited: number
  }
  /** `/api/chaos/capacity`, the server's whatever the namespace. */
  readonly capacity: {
    /** Requests served at once at the base latency: 64 unless set by `POST /__capacity?limit=N`; a reset restores it. */
    readonly limit: number
    /** Requests the route holds now; never reset. */
    readonly inFlight: number
    /** The most it held at once (since a reset: at least what it held then). */
    readonly peakInFlight: number
    /** Requests that reached it. */
    readonly requests: number
    /** Requests answered 200. */
    readonly served: number
    /** Requests shed with 503 and `X-Chaos-Overload: capacity`. */
    readonly overloaded: number
  }
  /**
   * What each namespace that has seen a request since start or reset counted, by name (see
   * {@link StartedChaosServer.namespace}). At most `maxRetryKeys` namespaces are remembered, the least recently
   * used forgotten first.
   */
  readonly namespaces: Readonly<Record<string, NamespaceStats>>
}

/**
 * What one namespace has counted since start, or since it or the server was last reset: its requests, retry
 * keys and orders, apart from those of other namespaces and of requests outside any. Its requests to `__stats`
 * and `__reset` are not counted.
 *
 * @since 0.2.0
 * @category models
 */
export interface NamespaceStats {
  readonly requests: {
    /** Requests under the namespace's prefix; CORS preflights are not among them. */
    readonly total: number
    /** CORS preflights answered under the namespace's prefix (see `Stats.requests.preflights`). */
    readonly preflights: number
    /**
     * Requests under the namespace's prefix whose client left before their answer started (see
     * `Stats.requests.abandoned`).
     */
    readonly abandoned: number
    /** Requests per key of `/api/chaos/retry/:key` in the namespace: the attempt number the key has reached. */
    readonly byRetryKey: Readonly<Record<string, number>>
  }
  readonly orders: {
    /** Orders `POST /api/orders` placed in the namespace. */
    readonly placed: number
    /** Valid `POST /api/orders` requests per `Idempotency-Key` in the namespace, replays included. */
    readonly byIdempotencyKey: Readonly<Record<string, number>>
  }
}

/**
 * A namespace of a chaos server, made by {@link StartedChaosServer.namespace}: its `url` is a base URL under
 * which every endpoint answers as under the server's, but with retry keys, idempotency keys and orders of its
 * own. Two tests, each with its namespace, can use the same key on one server without seeing each other's
 * attempts, and reset their own without touching the other's.
 *
 * @since 0.2.0
 * @category models
 */
export interface ChaosNamespace {
  /** Its name: the one given, or a fresh UUID. */
  readonly name: string
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234/__ns/checkout`. */
  readonly url: string
  readonly stats: () => Promise<NamespaceStats>
  /**
   * Clears the namespace's request count, retry keys, idempotency keys and orders, and nothing else: other
   * namespaces and the server's totals keep theirs. The same as `POST {url}/__reset`.
   */
  readonly reset: () => Promise<void>
}

/**
 * The port could not be bound (taken, or not allowed). The message says where and why, e.g.
 * `chaos server could not listen on 127.0.0.1:8080: address already in use (EADDRINUSE)`; `code` is node's
 * error code and `cause` node's error.
 *
 * @since 0.2.0
 * @category errors
 */
export class ServeError extends Error {
  /** The tag Effect's `catchTag` matches, the same in both Effect lines. */
  readonly _tag = "ServeError"
  /** Node's error code (`"EADDRINUSE"`, `"EACCES"`, ...), when it gave one. */
  readonly code: string | undefined
  constructor(
    readonly port: number,
    override readonly cause: unknown
  ) {
    super(`chaos server could not listen on ${Server.host}:${port}: ${Server.describeListenFailure(cause)}`)
    this.name = "ServeError"
    this.code = Server.errorCode(cause)
  }
}

/**
 * A chaos server started by {@link startChaosServer}.
 *
 * @since 0.1.0
 * @category models
 */
export interface StartedChaosServer {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  readonly url: string
  readonly port: number
  readonly stats: () => Promise<Stats>
  /**
   * Clears request counters (`abandoned` included), retry keys, latency keys, orders, every namespace, the
   * connection counts (but `open`) and the streamed-bytes count.
   */
  readonly reset: () => Promise<void>
  /**
   * A namespace of its own, for one test: its `url` is the base URL to call instead of the server's, its
   * `reset()` clears it alone. Without a name, a fresh one (a UUID) that no other call returns; with a name
   * (1 to 64 of `A-Z a-z 0-9 . _ ~ -`, not `.` or `..`), that namespace, shared with whoever else names it.
   * Throws a `RangeError` for an invalid name. The server keeps nothing until the namespace sees a request.
   */
  readonly namespace: (name?: string) => ChaosNamespace
  /** Stops the server, destroying open connections. Calling it again returns the same promise. */
  readonly close: () => Promise<void>
}

/**
 * Starts a chaos server on 127.0.0.1 (port 0, a free one, by default). The promise rejects with a
 * {@link ServeError} if the port cannot be bound, and with a `RangeError` naming the option if an option is
 * invalid. Needs no Effect.
 *
 * @since 0.1.0
 * @category constructors
 */
export const startChaosServer = async (options?: Options): Promise<StartedChaosServer> => {
  const resolved = Server.resolveOptions(options)
  const server = await Server.listen(resolved).catch((cause: unknown) => {
    throw new ServeError(resolved.port, cause)
  })
  const url = `http://${Server.host}:${server.port}`
  return {
    url,
    port: server.port,
    stats: async () => server.stats(),
    reset: async () => server.reset(),
    namespace: (name) => {
      const chosen = name ?? Crypto.randomUUID()
      const problem = Namespaces.nameProblem(chosen)
      if (problem !== undefined) throw new RangeError(problem)
      return {
        name: chosen,
        url: `${url}${Namespaces.prefixOf(chosen)}`,
        stats: async () => server.namespaceStats(chosen),
        reset: async () => server.resetNamespace(chosen)
      }
    },
    close: server.close
  }
}
