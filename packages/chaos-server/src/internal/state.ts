import type * as Net from "node:net"
import type { Stats } from "../startChaosServer.js"

/** @internal */
export interface StateLimits {
  /**
   * Most retry keys remembered at once, and likewise most idempotency keys and placed orders; the least
   * recently used is forgotten first.
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
 * Sets `key` as the most recently used entry of `map` (a Map iterates in insertion order, so deleting before
 * setting keeps the oldest use first), then forgets the least recently used entries beyond `max`.
 */
const setRecent = <V>(map: Map<string, V>, key: string, value: V, max: number): void => {
  map.delete(key)
  map.set(key, value)
  while (map.size > max) {
    const leastRecentlyUsed = map.keys().next()
    if (leastRecentlyUsed.done === true) break
    map.delete(leastRecentlyUsed.value)
  }
}

/**
 * An order placed by `POST /api/orders`, answered again as it was for a repeat with its idempotency key.
 *
 * @internal
 */
export interface PlacedOrder {
  readonly orderId: string
  readonly idempotencyKey: string | null
  /** The attempt of the idempotency key that placed it (1 without a key). */
  readonly attempt: number
  /** The JSON object of the request body that placed it. */
  readonly order: object
}

interface IdempotencyEntry {
  readonly attempts: number
  readonly placed: PlacedOrder | undefined
}

/**
 * The mutable bookkeeping of one chaos server: request counters, retry-key attempts, orders and open sockets.
 * Node reports requests and connections through synchronous callbacks, so plain fields are all it needs.
 *
 * @internal
 */
export class ChaosState {
  private totalRequests = 0
  private requestsInFlight = 0
  private readonly requestsByPath = new Map<string, number>()
  private readonly attemptsByRetryKey = new Map<string, number>()
  private connectionsOpened = 0
  private connectionsRejected = 0
  private connectionsDropped = 0
  /** Open connections that are served: those of {@link openSockets} accepted within `maxConnections`. */
  private servedOpen = 0
  private readonly rejectedSockets = new WeakSet<Net.Socket>()
  private bodiesStreaming = 0
  private bodyBytesStreamed = 0
  private readonly openSockets = new Set<Net.Socket>()
  private readonly idempotencyKeys = new Map<string, IdempotencyEntry>()
  private readonly ordersById = new Map<string, PlacedOrder>()
  private ordersPlaced = 0
  // Never reset: an order id stays unique for the life of the server, so an id from before a reset is a 404.
  private orderSequence = 0

  constructor(readonly limits: StateLimits) {}

  requestStarted(path: string): void {
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

  requestFinished(): void {
    this.requestsInFlight--
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

  /** Counts one more request for `key` and returns its 1-based attempt number. */
  nextAttempt(key: string): number {
    const attempt = (this.attemptsByRetryKey.get(key) ?? 0) + 1
    setRecent(this.attemptsByRetryKey, key, attempt, this.limits.maxRetryKeys)
    return attempt
  }

  /**
   * Counts one more attempt for an idempotency key and returns its 1-based number, with the order the key
   * placed before, if any.
   */
  nextOrderAttempt(key: string): { readonly attempt: number; readonly placed: PlacedOrder | undefined } {
    const known = this.idempotencyKeys.get(key)
    const entry = { attempts: (known?.attempts ?? 0) + 1, placed: known?.placed }
    setRecent(this.idempotencyKeys, key, entry, this.limits.maxRetryKeys)
    return { attempt: entry.attempts, placed: entry.placed }
  }

  /** Places an order: gives it an id, remembers it by id and under its idempotency key, counts it. */
  placeOrder(idempotencyKey: string | null, attempt: number, order: object): PlacedOrder {
    this.orderSequence++
    this.ordersPlaced++
    const placed: PlacedOrder = { orderId: `order-${this.orderSequence}`, idempotencyKey, attempt, order }
    setRecent(this.ordersById, placed.orderId, placed, this.limits.maxRetryKeys)
    if (idempotencyKey !== null) {
      setRecent(this.idempotencyKeys, idempotencyKey, { attempts: attempt, placed }, this.limits.maxRetryKeys)
    }
    return placed
  }

  findOrder(orderId: string): PlacedOrder | undefined {
    const placed = this.ordersById.get(orderId)
    if (placed !== undefined) setRecent(this.ordersById, orderId, placed, this.limits.maxRetryKeys)
    return placed
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
    for (const socket of this.openSockets) {
      socket.destroy()
    }
  }

  /**
   * Forgets counters, byte counts, retry keys and orders. Open connections stay counted, and served or rejected,
   * as they are.
   */
  reset(): void {
    this.totalRequests = 0
    this.requestsByPath.clear()
    this.attemptsByRetryKey.clear()
    this.connectionsOpened = 0
    this.connectionsRejected = 0
    this.connectionsDropped = 0
    this.bodyBytesStreamed = 0
    this.idempotencyKeys.clear()
    this.ordersById.clear()
    this.ordersPlaced = 0
  }

  snapshot(): Stats {
    return {
      requests: {
        total: this.totalRequests,
        inFlight: this.requestsInFlight,
        byPath: Object.fromEntries(this.requestsByPath),
        byRetryKey: Object.fromEntries(this.attemptsByRetryKey)
      },
      connections: {
        opened: this.connectionsOpened,
        open: this.openSockets.size,
        rejected: this.connectionsRejected,
        dropped: this.connectionsDropped
      },
      responses: { streaming: this.bodiesStreaming, bodyBytesStreamed: this.bodyBytesStreamed },
      orders: {
        placed: this.ordersPlaced,
        byIdempotencyKey: Object.fromEntries(
          Array.from(this.idempotencyKeys, ([key, entry]): [string, number] => [key, entry.attempts])
        )
      }
    }
  }
}
