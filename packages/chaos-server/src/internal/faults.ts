import type * as Net from "node:net"
import { BadRequest } from "./errors.js"
import { type Answer, type Exchange, silent, sleep, takenOver } from "./exchange.js"
import { prefixOf } from "./namespaces.js"
import { booleanParam, integerParam } from "./params.js"
import { forbidsContent, parseStatus } from "./status.js"

/**
 * Hands the raw socket of the request to `sabotage` and answers nothing: node's response object is never
 * used, so node writes nothing of its own onto the sabotaged socket. The request ends when the socket closes.
 */
const takeOverSocket =
  (sabotage: (socket: Net.Socket, exchange: Exchange) => void) =>
  (exchange: Exchange): Answer => {
    const socket = exchange.request.socket
    if (!socket.destroyed) sabotage(socket, exchange)
    return takenOver
  }

/**
 * `/api/chaos/reset`: the connection is reset before any byte of a response is sent. `resetAndDestroy` sends
 * a TCP RST, so clients see ECONNRESET rather than a clean end of stream.
 *
 * @internal
 */
export const connectionReset = takeOverSocket((socket) => socket.resetAndDestroy())

/**
 * `/api/chaos/hang`: the request is read and never answered. The socket stays tracked by the server state, so
 * shutting the server down destroys it instead of waiting for the client to give up.
 *
 * @internal
 */
export const hang = (): Answer => silent

const truncatedDeclaredLength = 100

const truncatedBody = (() => {
  const prefix = '{"message":"'
  const suffix = '"}'
  return `${prefix}${"x".repeat(truncatedDeclaredLength - prefix.length - suffix.length)}${suffix}`
})()

/**
 * `/api/chaos/truncate`: a 200 declaring `Content-Length: 100` whose connection is closed after 50 body bytes.
 * Written to the socket directly: node's response object would guard the declared length.
 *
 * @internal
 */
export const truncatedResponse = takeOverSocket((socket, { sharedHeaders }) => {
  const head = [
    "HTTP/1.1 200 OK",
    "Content-Type: application/json",
    `Content-Length: ${truncatedDeclaredLength}`,
    "X-Simulated: true",
    // With CORS on, a page must be allowed to read the head to see the body break off, not a CORS refusal.
    ...Object.entries(sharedHeaders).map(([name, value]) => `${name}: ${value}`),
    "",
    ""
  ].join("\r\n")
  socket.write(head + truncatedBody.slice(0, truncatedDeclaredLength / 2), () => socket.destroy())
})

/**
 * `/api/chaos/invalid-json`: a 200 that claims JSON and is cut in the middle of an array.
 *
 * @internal
 */
export const invalidJson = (): Answer => ({
  _tag: "Complete",
  status: 200,
  headers: { "content-type": "application/json" },
  body: '{"tracks": {"items": [{"id": "1", "name": "Unfinished'
})

/**
 * The `status` of a streamed body (200 unless given): 200-599, one that may carry content. A 503 whose body
 * is large or trickles is what a client must release without reading it all.
 */
const bodyStatusParam = (query: URLSearchParams): number => {
  const raw = query.get("status")
  if (raw === null) return 200
  const status = parseStatus("status", raw, { min: 200, max: 599 })
  if (forbidsContent(status)) throw new BadRequest(`status ${status} carries no body`)
  return status
}

const slowBodyLimits = {
  maxChunks: 1000,
  maxIntervalMillis: 10_000,
  maxTotalMillis: 60_000
} as const

const encoder = new TextEncoder()

/**
 * `/api/chaos/slow-body?chunks=N&interval=MS&length=true&status=200`: headers at once, then a JSON array
 * trickled one element per chunk, `interval` ms apart. The whole body is valid JSON and, unless `length=false`
 * (chunked encoding), its `Content-Length` is declared, so a client can only fail by giving up, never by
 * misreading.
 *
 * @internal
 */
export const slowBody = ({ query }: Exchange): Answer => {
  const chunks = integerParam(query, "chunks", { min: 1, max: slowBodyLimits.maxChunks }, 10)
  const intervalMillis = integerParam(query, "interval", { min: 0, max: slowBodyLimits.maxIntervalMillis }, 200)
  const declareLength = booleanParam(query, "length", true)
  const status = bodyStatusParam(query)
  const totalMillis = (chunks - 1) * intervalMillis
  if (totalMillis > slowBodyLimits.maxTotalMillis) {
    throw new BadRequest(`chunks x interval must stay under ${slowBodyLimits.maxTotalMillis} ms, got ${totalMillis} ms`)
  }
  const parts = Array.from({ length: chunks }, (_, index) => {
    const element = JSON.stringify({ chunk: index + 1, of: chunks })
    return encoder.encode(`${index === 0 ? "[" : ","}${element}${index === chunks - 1 ? "]" : ""}`)
  })
  const contentLength = parts.reduce((total, part) => total + part.length, 0)
  return {
    _tag: "Streamed",
    status,
    headers: {
      "content-type": "application/json",
      ...(declareLength ? { "content-length": String(contentLength) } : {})
    },
    // The first chunk leaves with the headers; each later one waits its interval.
    body: async function* (signal) {
      for (const [index, part] of parts.entries()) {
        if (index > 0 && !(await sleep(intervalMillis, signal))) return
        yield part
      }
    }
  }
}

const largeJsonLimits = {
  minBytes: 2,
  maxBytes: 256 * 1024 * 1024,
  defaultBytes: 1024 * 1024,
  chunkBytes: 64 * 1024
} as const

// One chunk of the array's inside, `0,0,0,...`: every chunk starts at an even offset, so all share it.
const zeros = encoder.encode("0,".repeat(largeJsonLimits.chunkBytes / 2))

/**
 * The body of `/api/chaos/large-json`: exactly `bytes` bytes of a valid JSON array of zeros, `[0,0,...,0]`
 * (a space before the `]` when the count is even), produced one 64 KiB chunk at a time as the socket drains.
 */
function* largeJsonBody(bytes: number): Generator<Uint8Array> {
  const inner = bytes - 2
  // Between the brackets: `0` at even offsets, `,` at odd ones; an even count ends in a `,`, made a space.
  const closing = inner > 0 && inner % 2 === 0 ? " ]" : "]"
  const zerosLength = inner - (closing.length - 1)
  yield encoder.encode("[")
  for (let start = 0; start < zerosLength; start += largeJsonLimits.chunkBytes) {
    yield zeros.subarray(0, Math.min(largeJsonLimits.chunkBytes, zerosLength - start))
  }
  yield encoder.encode(closing)
}

/**
 * `/api/chaos/large-json?bytes=N&length=true&status=200`: a 200 (or `status`) whose body is a valid JSON array
 * of exactly `bytes` bytes, streamed in 64 KiB chunks, with its `Content-Length` declared unless `length=false`
 * (chunked encoding).
 * Nothing is held in memory beyond one chunk; a chunk is produced only when the socket has taken the last.
 *
 * @internal
 */
export const largeJson = ({ query }: Exchange): Answer => {
  const bytes = integerParam(
    query,
    "bytes",
    { min: largeJsonLimits.minBytes, max: largeJsonLimits.maxBytes },
    largeJsonLimits.defaultBytes
  )
  const declareLength = booleanParam(query, "length", true)
  return {
    _tag: "Streamed",
    status: bodyStatusParam(query),
    headers: { "content-type": "application/json", ...(declareLength ? { "content-length": String(bytes) } : {}) },
    body: async function* () {
      yield* largeJsonBody(bytes)
    }
  }
}

/** @internal */
export const redirectLoopPath = "/api/chaos/redirect-loop"

/**
 * `/api/chaos/redirect-loop`: a `302` back to the same path and query, with an empty body. A client that
 * follows redirects loops until its own limit; each request counts in the stats. The `Location` is built from
 * the known path rather than echoed, so it can never point to another host.
 *
 * @internal
 */
export const redirectLoop = ({ namespace, query }: Exchange): Answer => {
  const search = query.toString()
  // Under a namespace, back to the same path under it.
  const path = `${prefixOf(namespace)}${redirectLoopPath}`
  const location = search === "" ? path : `${path}?${search}`
  return { _tag: "Complete", status: 302, headers: { location }, body: undefined }
}
