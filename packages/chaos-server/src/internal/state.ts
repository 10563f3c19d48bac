import type * as Net from "node:net"
import type { Stats } from "../ChaosServer.js"

/** @internal */
export interface StateLimits {
  /** Most retry keys remembered at once; the least recently used key is forgotten first. */
  readonly maxRetryKeys: number
  /** Most distinct paths counted one by one; further paths are counted together under {@link otherPaths}. */
  readonly maxTrackedPaths: number
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
 * The mutable bookkeeping of one chaos server: request counters, retry-key attempts and open sockets.
 *
 * It is a plain class rather than a `Ref` because node reports connections through synchronous event
 * callbacks; the Effect API of the server wraps every access in `Effect.sync`.
 *
 * @internal
 */
export class ChaosState {
  private totalRequests = 0
  private requestsInFlight = 0
  private readonly requestsByPath = new Map<string, number>()
  private readonly attemptsByRetryKey = new Map<string, number>()
  private connectionsOpened = 0
  private bodiesStreaming = 0
  private bodyBytesStreamed = 0
  private readonly openSockets = new Set<Net.Socket>()

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
    // Delete before set so that the Map's insertion order is the order of last use, oldest first.
    this.attemptsByRetryKey.delete(key)
    this.attemptsByRetryKey.set(key, attempt)
    while (this.attemptsByRetryKey.size > this.limits.maxRetryKeys) {
      const leastRecentlyUsed = this.attemptsByRetryKey.keys().next()
      if (leastRecentlyUsed.done === true) break
      this.attemptsByRetryKey.delete(leastRecentlyUsed.value)
    }
    return attempt
  }

  connectionOpened(socket: Net.Socket): void {
    this.connectionsOpened++
    this.openSockets.add(socket)
    socket.once("close", () => {
      this.openSockets.delete(socket)
    })
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

  /** Forgets counters, byte counts and retry keys. Open connections stay counted: they are still open. */
  reset(): void {
    this.totalRequests = 0
    this.requestsByPath.clear()
    this.attemptsByRetryKey.clear()
    this.connectionsOpened = 0
    this.bodyBytesStreamed = 0
  }

  snapshot(): Stats {
    return {
      requests: {
        total: this.totalRequests,
        inFlight: this.requestsInFlight,
        byPath: Object.fromEntries(this.requestsByPath),
        byRetryKey: Object.fromEntries(this.attemptsByRetryKey)
      },
      connections: { opened: this.connectionsOpened, open: this.openSockets.size },
      responses: { streaming: this.bodiesStreaming, bodyBytesStreamed: this.bodyBytesStreamed }
    }
  }
}
