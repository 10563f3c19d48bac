import type * as Net from "node:net"
import type { NamespaceStats, Stats } from "../startChaosServer.js"
import { type CapacityState, makeCapacityState } from "./capacity.js"
import { defaultNamespace } from "./namespaces.js"
import { makeRateLimitState, type RateLimitState } from "./rateLimit.js"
import { setRecent } from "./recent.js"

/** @internal */
export interface StateLimits {
  /**
   * Most retry keys remembered at once, and likewise most latency keys, idempotency keys, placed orders and
   * namespaces; the least recently used is forgotten first. Each bound holds across namespaces, not per
   * namespace.
   */
  readonly maxRetryKeys: number
  /** Most distinct paths counted one by one; further paths are counted together under {@link otherPaths}. */
  readonly maxTrackedPaths: number
  /** Most connections served at once; further ones are rejected (see {@link ChaosState.connectionOpened}). */
  readonly maxConnections: number
}

/**
 * The key counting requests to paths beyond `maxTrackedPaths`. No request path has this form (they start with
 * "/" or are "*"), so it cannot collide with a real one.
 *
 * @internal
 */
export const otherPaths = "(other)"

// Request targets can be up to node's header size limit (16 KiB); counting them verbatim would let a client
// grow the path table to gigabytes.
const maxPathKeyLength = 256

const pathKey = (path: string): string =>
  path.length > maxPathKeyLength ? `${path.slice(0, maxPathKeyLength)}...` : path

/**
 * An order placed by `POST /api/orders`, answered again as it was for a repeat with its idempotency key.
 *
 * @internal
 */
export interface PlacedOrder {
  /** The namespace it was placed in: only requests in the same namespace find it. */
  readonly namespace: string
  readonly orderId: string
  readonly idempotencyKey: string | null
  /** The attempt of the idempotency key that placed it (1 without a key). */
  readonly attempt: number
  /** The JSON object of the request body that placed it. */
  readonly order: object
}

/**
 * A key of a namespace as one string, for tables shared by all namespaces. A namespace name has no "/", so the
 * first "/" separates the two and no two pairs share a string.
 */
const qualified = (namespace: string, key: string): string => `${namespace}/${key}`

/** The requests a key of a namespace has seen: a retry key's attempts, a latency key's request count. */
interface KeyCount {
  readonly namespace: string
  readonly key: string
  readonly attempts: number
}

interface IdempotencyEntry {
  readonly namespace: string
  readonly key: string
  readonly attempts: number
  readonly placed: PlacedOrder | undefined
}

/** What a namespace other than the default one has counted (the default one's are the server's fields). */
interface NamespaceCounters {
  readonly requests: number
  readonly preflights: number
  readonly abandoned: number
  readonly ordersPlaced: number
}

const noCounters: NamespaceCounters = { requests: 0, preflights: 0, abandoned: 0, ordersPlaced: 0 }

interface MutableNamespaceStats {
  requests: { total: number; preflights: number; abandoned: number; byRetryKey: Record<string, number> }
  orders: { placed: number; byIdempotencyKey: Record<string, number> }
}

const emptyNamespaceStats = (counters: NamespaceCounters): MutableNamespaceStats => ({
  requests: {
    total: counters.requests,
    preflights: counters.preflights,
    abandoned: counters.abandoned,
    byRetryKey: {}
  },
  orders: { placed: counters.ordersPlaced, byIdempotencyKey: {} }
})

/**
 * Sets `record[key] = value` as an own data property, even for a key such as `__proto__`, whose plain
 * assignment would set the record's prototype instead.
 */
const setEntry = (record: Record<string, number>, key: string, value: number): void => {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * The mutable bookkeeping of one chaos server: request counters, retry-key attempts, orders and open sockets.
 * Node reports requests and connections through synchronous callbacks, so plain fields are all it needs.
 *
 * @internal
 */
export class ChaosState {
  private totalRequests = 0
  /** CORS preflights of every namespace: answered before any endpoint, so in no other request count. */
  private preflightsAnswered = 0
  private requestsInFlight = 0
  /** Requests of every namespace whose client left before their answer started. */
  private requestsAbandoned = 0
  /** Set once the server stops: the requests it then cuts off were not left by their clients. */
  private stopping = false
  private readonly requestsByPath = new Map<string, number>()
  /** Attempts per retry key of every namespace, by {@link qualified} key. */
  private readonly attemptsByRetryKey = new Map<string, KeyCount>()
  /** Requests per key of `/api/chaos/latency/:key` of every namespace, by {@link qualified} key. */
  private readonly requestsByLatencyKey = new Map<string, KeyCount>()
  private connectionsOpened = 0
  private connectionsRejected = 0
  private connectionsDropped = 0
  /** Open connections that are served: those of {@link openSockets} accepted within `maxConnections`. */
  private servedOpen = 0
  private readonly rejectedSockets = new WeakSet<Net.Socket>()
  private bodiesStreaming = 0
  private bodyBytesStreamed = 0
  private readonly openSockets = new Set<Net.Socket>()
  /** Attempts and placed order per idempotency key of every namespace, by {@link qualified} key. */
  private readonly idempotencyKeys = new Map<string, IdempotencyEntry>()
  /** Orders of every namespace: ids are unique across namespaces. */
  private readonly ordersById = new Map<string, PlacedOrder>()
  /** Orders placed in the default namespace; another namespace's are in {@link namespaceCounters}. */
  private ordersPlaced = 0
  /** Counters of the namespaces other than the default one that have seen a request. */
  private readonly namespaceCounters = new Map<string, NamespaceCounters>()
  // Never reset: an order id stays unique for the life of the server, so an id from before a reset is a 404.
  private orderSequence = 0
  /** The windows of `/api/chaos/rate-limit/:key` of every namespace, by {@link qualified} key. */
  private readonly rateLimits: RateLimitState
  /** The capacity of `/api/chaos/capacity`, the server's whatever the namespace. */
  readonly capacity: CapacityState = makeCapacityState()

  constructor(readonly limits: StateLimits) {
    this.rateLimits = makeRateLimitState(limits.maxRetryKeys)
  }

  /**
   * Counts a request: in the server's totals under its whole path, and in its namespace's total when it has one
   * other than the default.
   */
  requestStarted(path: string, namespace: string = defaultNamespace): void {
    if (namespace !== defaultNamespace) {
      this.updateCounters(namespace, (counters) => ({ ...counters, requests: counters.requests + 1 }))
    }
    this.totalRequests++
    this.requestsInFlight++
    const key = pathKey(path)
    const known = this.requestsByPath.get(key)
    if (known !== undefined) {
      this.requestsByPath.set(key, known + 1)
    } else if (this.requestsByPath.size < this.limits.maxTrackedPaths) {
      this.requestsByPath.set(key, 1)
    } else {
      this.requestsByPath.set(otherPaths, (this.requestsByPath.get(otherPaths) ?? 0) + 1)
    }
  }

  /** Counts a CORS preflight, in the server's count and in its namespace's. */
  preflightAnswered(namespace: string = defaultNamespace): void {
    if (namespace !== defaultNamespace) {
      this.updateCounters(namespace, (counters) => ({ ...counters, preflights: counters.preflights + 1 }))
    }
    this.preflightsAnswered++
  }

  requestFinished(): void {
    this.requestsInFlight--
  }

  /**
   * Counts a request whose client left (its connection closed) before its answer started, in the server's count
   * and in its namespace's; not once the server is stopping, as it then cuts requests off itself.
   */
  requestAbandoned(namespace: string = defaultNamespace): void {
    if (this.stopping) return
    if (namespace !== defaultNamespace) {
      this.updateCounters(namespace, (counters) => ({ ...counters, abandoned: counters.abandoned + 1 }))
    }
    this.requestsAbandoned++
  }

  bodyStarted(): void {
    this.bodiesStreaming++
  }

  bodyEnded(): void {
    this.bodiesStreaming--
  }

  /** Counts body bytes a streaming endpoint has handed to the socket. */
  bodyBytesSent(bytes: number): void {
    this.bodyBytesStreamed += bytes
  }

  /** Counts one more request for retry key `key` in `namespace` and returns its 1-based attempt number. */
  nextAttempt(namespace: string, key: string): number {
    return this.countRequest(this.attemptsByRetryKey, namespace, key)
  }

  /**
   * Counts one more request for latency key `key` in `namespace` and returns its 1-based number. Latency keys are
   * counted apart from retry keys, within the same `maxRetryKeys` bound.
   */
  nextLatencyRequest(namespace: string, key: string): number {
    return this.countRequest(this.requestsByLatencyKey, namespace, key)
  }

  /**
   * Counts a request for rate-limited key `key` in `namespace` against `limit` per `windowMillis`, in fixed
   * windows or a sliding log, within the `maxRetryKeys` bound: whether it is within the limit, what is left,
   * and when the window ends (sliding: when the oldest request it counts leaves it).
   */
  admitRateLimited(
    namespace: string,
    key: string,
    limit: number,
    windowMillis: number,
    algorithm: "fixed" | "sliding"
  ) {
    return this.rateLimits.admit(qualified(namespace, key), limit, windowMillis, performance.now(), algorithm)
  }

  private countRequest(table: Map<string, KeyCount>, namespace: string, key: string): number {
    const id = qualified(namespace, key)
    const attempts = (table.get(id)?.attempts ?? 0) + 1
    setRecent(table, id, { namespace, key, attempts }, this.limits.maxRetryKeys)
    return attempts
  }

  /**
   * Counts one more attempt for an idempotency key of `namespace` and returns its 1-based number, with the order
   * the key placed before, if any.
   */
  nextOrderAttempt(
    namespace: string,
    key: string
  ): { readonly attempt: number; readonly placed: PlacedOrder | undefined } {
    const id = qualified(namespace, key)
    const known = this.idempotencyKeys.get(id)
    const entry: IdempotencyEntry = { namespace, key, attempts: (known?.attempts ?? 0) + 1, placed: known?.placed }
    setRecent(this.idempotencyKeys, id, entry, this.limits.maxRetryKeys)
    return { attempt: entry.attempts, placed: entry.placed }
  }

  /** Places an order in `namespace`: gives it an id, remembers it by id and under its idempotency key, counts it. */
  placeOrder(namespace: string, idempotencyKey: string | null, attempt: number, order: object): PlacedOrder {
    this.orderSequence++
    if (namespace === defaultNamespace) {
      this.ordersPlaced++
    } else {
      this.updateCounters(namespace, (counters) => ({ ...counters, ordersPlaced: counters.ordersPlaced + 1 }))
    }
    const placed: PlacedOrder = { namespace, orderId: `order-${this.orderSequence}`, idempotencyKey, attempt, order }
    setRecent(this.ordersById, placed.orderId, placed, this.limits.maxRetryKeys)
    if (idempotencyKey !== null) {
      const entry: IdempotencyEntry = { namespace, key: idempotencyKey, attempts: attempt, placed }
      setRecent(this.idempotencyKeys, qualified(namespace, idempotencyKey), entry, this.limits.maxRetryKeys)
    }
    return placed
  }

  /** The order with this id placed in `namespace`; another namespace's order is not found. */
  findOrder(namespace: string, orderId: string): PlacedOrder | undefined {
    const placed = this.ordersById.get(orderId)
    if (placed === undefined || placed.namespace !== namespace) return undefined
    setRecent(this.ordersById, orderId, placed, this.limits.maxRetryKeys)
    return placed
  }

  private updateCounters(namespace: string, update: (counters: NamespaceCounters) => NamespaceCounters): void {
    const counters = update(this.namespaceCounters.get(namespace) ?? noCounters)
    setRecent(this.namespaceCounters, namespace, counters, this.limits.maxRetryKeys)
  }

  /**
   * Tracks a new connection. Within `maxConnections` connections served at once it is served and counted in
   * `opened`; beyond, it is rejected: counted in `rejected`, and each of its requests answered 503 (see
   * {@link isRejected}). A rejected connection never becomes served, even once others close.
   */
  connectionOpened(socket: Net.Socket): void {
    this.openSockets.add(socket)
    const served = this.servedOpen < this.limits.maxConnections
    if (served) {
      this.servedOpen++
      this.connectionsOpened++
    } else {
      this.rejectedSockets.add(socket)
      this.connectionsRejected++
    }
    socket.once("close", () => {
      this.openSockets.delete(socket)
      if (served) this.servedOpen--
    })
  }

  /** Whether the connection came beyond `maxConnections`, so that its requests are answered 503. */
  isRejected(socket: Net.Socket): boolean {
    return this.rejectedSockets.has(socket)
  }

  /** Counts a connection node closed at once, before the server saw it (beyond twice `maxConnections`). */
  connectionDropped(): void {
    this.connectionsDropped++
  }

  /**
   * Destroys every open socket, including those held by `/api/chaos/hang` and by idle keep-alive clients,
   * which would otherwise keep `server.close()` waiting forever.
   */
  destroyOpenSockets(): void {
    this.stopping = true
    for (const socket of this.openSockets) {
      socket.destroy()
    }
  }

  /**
   * Forgets counters, byte counts, retry keys, latency keys, rate-limit windows and orders, and sets the capacity
   * back to its default. Open connections stay counted, and served or rejected, as they are.
   */
  reset(): void {
    this.totalRequests = 0
    this.preflightsAnswered = 0
    this.requestsAbandoned = 0
    this.requestsByPath.clear()
    this.namespaceCounters.clear()
    this.attemptsByRetryKey.clear()
    this.requestsByLatencyKey.clear()
    this.connectionsOpened = 0
    this.connectionsRejected = 0
    this.connectionsDropped = 0
    this.bodyBytesStreamed = 0
    this.idempotencyKeys.clear()
    this.ordersById.clear()
    this.ordersPlaced = 0
    this.rateLimits.reset()
    this.capacity.reset()
  }

  /**
   * Forgets what one namespace other than the default has counted: its requests, preflights, abandoned requests,
   * retry keys, latency keys, rate-limit windows, idempotency keys and orders. The server's totals (`total`, `preflights`, `abandoned`,
   * `byPath`) keep them.
   */
  resetNamespace(namespace: string): void {
    this.namespaceCounters.delete(namespace)
    this.rateLimits.forget((id) => id.startsWith(qualified(namespace, "")))
    for (const table of [this.attemptsByRetryKey, this.requestsByLatencyKey]) {
      for (const [id, entry] of table) {
        if (entry.namespace === namespace) table.delete(id)
      }
    }
    for (const [id, entry] of this.idempotencyKeys) {
      if (entry.namespace === namespace) this.idempotencyKeys.delete(id)
    }
    for (const [orderId, placed] of this.ordersById) {
      if (placed.namespace === namespace) this.ordersById.delete(orderId)
    }
  }

  /** What each namespace has counted, the default one included (under {@link defaultNamespace}). */
  private namespaceSnapshots(): Map<string, MutableNamespaceStats> {
    const byNamespace = new Map<string, MutableNamespaceStats>()
    const statsOf = (namespace: string): MutableNamespaceStats => {
      let stats = byNamespace.get(namespace)
      if (stats === undefined) {
        stats = emptyNamespaceStats(
          namespace === defaultNamespace
            ? {
                requests: this.totalRequests,
                preflights: this.preflightsAnswered,
                abandoned: this.requestsAbandoned,
                ordersPlaced: this.ordersPlaced
              }
            : (this.namespaceCounters.get(namespace) ?? noCounters)
        )
        byNamespace.set(namespace, stats)
      }
      return stats
    }
    statsOf(defaultNamespace)
    for (const namespace of this.namespaceCounters.keys()) statsOf(namespace)
    for (const { namespace, key, attempts } of this.attemptsByRetryKey.values()) {
      setEntry(statsOf(namespace).requests.byRetryKey, key, attempts)
    }
    for (const { namespace, key, attempts } of this.idempotencyKeys.values()) {
      setEntry(statsOf(namespace).orders.byIdempotencyKey, key, attempts)
    }
    return byNamespace
  }

  /** What one namespace other than the default has counted (all zero for one never seen). */
  namespaceSnapshot(namespace: string): NamespaceStats {
    const stats = emptyNamespaceStats(this.namespaceCounters.get(namespace) ?? noCounters)
    for (const entry of this.attemptsByRetryKey.values()) {
      if (entry.namespace === namespace) setEntry(stats.requests.byRetryKey, entry.key, entry.attempts)
    }
    for (const entry of this.idempotencyKeys.values()) {
      if (entry.namespace === namespace) setEntry(stats.orders.byIdempotencyKey, entry.key, entry.attempts)
    }
    return stats
  }

  snapshot(): Stats {
    const namespaces = this.namespaceSnapshots()
    const outside = namespaces.get(defaultNamespace) ?? emptyNamespaceStats(noCounters)
    namespaces.delete(defaultNamespace)
    return {
      requests: {
        total: this.totalRequests,
        preflights: this.preflightsAnswered,
        inFlight: this.requestsInFlight,
        abandoned: this.requestsAbandoned,
        byPath: Object.fromEntries(this.requestsByPath),
        byRetryKey: outside.requests.byRetryKey
      },
      connections: {
        opened: this.connectionsOpened,
        open: this.openSockets.size,
        rejected: this.connectionsRejected,
        dropped: this.connectionsDropped
      },
      responses: { streaming: this.bodiesStreaming, bodyBytesStreamed: this.bodyBytesStreamed },
      orders: outside.orders,
      rateLimit: this.rateLimits.snapshot(),
      capacity: this.capacity.snapshot(),
      namespaces: Object.fromEntries(namespaces)
    }
  }
}
