/**
 * The bench's own minimal `node:http` server: one small JSON answer with keep-alive, a route
 * that fails once per key, a lasting 503, an outage switched on and off from outside, and
 * connection statistics. It runs in its own process (see `serverMain.ts`); this module only
 * builds it.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import type { OutageReport } from "./protocol.js"

interface ServerStats {
  /** Connections accepted since the last reset. */
  readonly connectionsOpened: number
  /** Connections open right now. */
  readonly connectionsOpen: number
  /** Connections accepted since the last reset and still open. */
  readonly openedAndStillOpen: number
  /** Requests answered since the last reset, the `/__` routes excluded. */
  readonly requests: number
}

export interface BenchServer {
  readonly port: number
  readonly stats: () => ServerStats
  readonly reset: () => void
  /**
   * `/switch/<tag>` answers 503 (no `Retry-After`, as a proxy with no backend would) while the
   * outage lasts, 200 otherwise. Starting an outage forgets what the last one counted.
   */
  readonly setOutage: (down: boolean) => void
  /** How long it lasted; per tag, requests during it and the time from its end to the first 2xx. */
  readonly outage: () => OutageReport
  readonly close: () => Promise<void>
}

const okBody = Buffer.from(JSON.stringify({ ok: true, id: 42, name: "bench" }))
const unavailableBody = Buffer.from(JSON.stringify({ error: "unavailable" }))

// A run never asks for more keys than this; beyond it the oldest are forgotten, so memory stays bounded.
const maxRememberedKeys = 1_000_000

const sendJson = (response: Http.ServerResponse, status: number, body: Buffer, extra?: Http.OutgoingHttpHeaders) => {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": body.byteLength,
    ...extra
  })
  response.end(body)
}

const sendUnavailable = (response: Http.ServerResponse) =>
  sendJson(response, 503, unavailableBody, { "retry-after": "0" })

/** Starts the server on 127.0.0.1 and a free port. */
export const startBenchServer = (): Promise<BenchServer> => {
  let connectionsOpened = 0
  let connectionsOpen = 0
  let openedAndStillOpen = 0
  let epoch = 0
  let requests = 0
  const failedKeys = new Set<string>()
  const stats = (): ServerStats => ({ connectionsOpened, connectionsOpen, openedAndStillOpen, requests })
  let down = false
  let downAt = 0
  let recoveredAt: number | null = null
  const outageTags = new Map<string, { requestsWhileDown: number; firstSuccessAt: number | null }>()
  const outageTag = (tag: string) => {
    let entry = outageTags.get(tag)
    if (entry === undefined) {
      entry = { requestsWhileDown: 0, firstSuccessAt: null }
      outageTags.set(tag, entry)
    }
    return entry
  }
  const setOutage = (nowDown: boolean): void => {
    if (nowDown) {
      outageTags.clear()
      downAt = performance.now()
      recoveredAt = null
    } else if (down) recoveredAt = performance.now()
    down = nowDown
  }
  const outage = (): OutageReport => ({
    downMillis: recoveredAt === null ? null : recoveredAt - downAt,
    tags: [...outageTags].map(([tag, entry]) => ({
      tag,
      requestsWhileDown: entry.requestsWhileDown,
      millisToFirstSuccess:
        entry.firstSuccessAt === null || recoveredAt === null ? null : entry.firstSuccessAt - recoveredAt
    }))
  })
  const reset = (): void => {
    connectionsOpened = 0
    openedAndStillOpen = 0
    epoch++
    requests = 0
    failedKeys.clear()
  }

  const server = Http.createServer({ keepAlive: true }, (request, response) => {
    const url = request.url ?? "/"
    if (url.startsWith("/__")) {
      if (url === "/__stats") {
        sendJson(response, 200, Buffer.from(JSON.stringify(stats())))
      } else if (url === "/__reset") {
        reset()
        sendJson(response, 200, Buffer.from("{}"))
      } else {
        sendJson(response, 404, Buffer.from("{}"))
      }
      return
    }
    requests++
    if (url === "/ok") return sendJson(response, 200, okBody)
    if (url === "/always-503") return sendUnavailable(response)
    if (url.startsWith("/fail-once/")) {
      const key = url.slice("/fail-once/".length)
      if (failedKeys.has(key)) return sendJson(response, 200, okBody)
      if (failedKeys.size >= maxRememberedKeys) failedKeys.clear()
      failedKeys.add(key)
      return sendUnavailable(response)
    }
    if (url.startsWith("/switch/")) {
      const entry = outageTag(url.slice("/switch/".length))
      if (down) {
        entry.requestsWhileDown++
        return sendJson(response, 503, unavailableBody)
      }
      if (recoveredAt !== null && entry.firstSuccessAt === null) entry.firstSuccessAt = performance.now()
      return sendJson(response, 200, okBody)
    }
    sendJson(response, 404, Buffer.from("{}"))
  })
  // Idle keep-alive sockets stay open across a whole run: a socket the server closed would
  // show up as a connection the client had to reopen.
  server.keepAliveTimeout = 120_000
  server.on("connection", (socket) => {
    const openedIn = epoch
    connectionsOpened++
    connectionsOpen++
    openedAndStillOpen++
    socket.once("close", () => {
      connectionsOpen--
      if (openedIn === epoch) openedAndStillOpen--
    })
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address: AddressInfo | string | null = server.address()
      if (address === null || typeof address === "string") {
        reject(new Error("the server has no TCP address"))
        return
      }
      resolve({
        port: address.port,
        stats,
        reset,
        setOutage,
        outage,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
}
