import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as Net from "node:net"
import { BadRequest } from "./errors.js"
import { booleanParam, integerParam, searchParams } from "./params.js"

/**
 * Hands the raw socket of the current request to `sabotage`, then never answers.
 *
 * Never answering keeps the platform from writing a response of its own onto the sabotaged socket. Once the
 * socket closes, the platform interrupts the handler exactly as when a client aborts (its 499 for the closed
 * socket is dropped by node), so nothing is left running.
 */
const takeOverSocket = (
  sabotage: (socket: Net.Socket) => void
): Effect.Effect<never, never, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.zipRight(
      Effect.sync(() => sabotage(NodeHttpServerRequest.toIncomingMessage(request).socket)),
      Effect.never
    )
  )

/**
 * `/api/chaos/reset`: the connection is reset before any byte of a response is sent. `resetAndDestroy` sends
 * a TCP RST, so clients see ECONNRESET rather than a clean end of stream.
 *
 * @internal
 */
export const connectionReset = takeOverSocket((socket) => {
  if (!socket.destroyed) {
    socket.resetAndDestroy()
  }
})

/**
 * `/api/chaos/hang`: the request is read and never answered. The socket stays tracked by the server state, so
 * shutting the server down destroys it instead of waiting for the client to give up.
 *
 * @internal
 */
export const hang: Effect.Effect<never> = Effect.never

/** @internal */
export const truncatedDeclaredLength = 100

const truncatedBody = (() => {
  const prefix = '{"message":"'
  const suffix = '"}'
  return `${prefix}${"x".repeat(truncatedDeclaredLength - prefix.length - suffix.length)}${suffix}`
})()

/**
 * `/api/chaos/truncate`: a 200 declaring `Content-Length: 100` whose connection is closed after 50 body bytes.
 *
 * The response is written to the socket directly: going through node's `ServerResponse` would make it guard
 * the declared length, and the platform would then try to finish the response itself.
 *
 * @internal
 */
export const truncatedResponse = takeOverSocket((socket) => {
  if (socket.destroyed) {
    return
  }
  const head = [
    "HTTP/1.1 200 OK",
    "Content-Type: application/json",
    `Content-Length: ${truncatedDeclaredLength}`,
    "X-Simulated: true",
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
export const invalidJson: HttpServerResponse.HttpServerResponse = HttpServerResponse.text(
  '{"tracks": {"items": [{"id": "1", "name": "Unfinished',
  { contentType: "application/json" }
)

/**
 * What the streaming endpoints report (see `Stats.responses`): a body starting and ending, however it ends,
 * and its bytes as they are handed to the socket.
 *
 * @internal
 */
export interface BodyMeter {
  readonly started: () => void
  readonly ended: () => void
  readonly sent: (bytes: number) => void
}

// The platform writes a response stream chunk by chunk and waits for the socket to drain before pulling the
// next one, so counting at the pull counts what the socket accepted, not what the endpoint could produce. The
// platform interrupts the stream when the client leaves, so `ended` also tells that it left.
const metered = <E, R>(body: Stream.Stream<Uint8Array, E, R>, meter: BodyMeter): Stream.Stream<Uint8Array, E, R> =>
  Stream.unwrap(
    Effect.sync(() => {
      meter.started()
      return body.pipe(
        Stream.tap((part) => Effect.sync(() => meter.sent(part.byteLength))),
        Stream.ensuring(Effect.sync(meter.ended))
      )
    })
  )

/** @internal */
export const slowBodyLimits = {
  maxChunks: 1000,
  maxIntervalMillis: 10_000,
  maxTotalMillis: 60_000
} as const

const encoder = new TextEncoder()

/**
 * `/api/chaos/slow-body?chunks=N&interval=MS&length=true`: headers at once, then a JSON array trickled one
 * element per chunk, `interval` ms apart. The whole body is valid JSON and, unless `length=false` (chunked
 * encoding), its `Content-Length` is declared, so a client can only fail by giving up, never by misreading.
 *
 * @internal
 */
export const slowBody = (
  meter: BodyMeter
): Effect.Effect<HttpServerResponse.HttpServerResponse, BadRequest, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = searchParams(request.url)
    const chunks = yield* integerParam(query, "chunks", { min: 1, max: slowBodyLimits.maxChunks }, 10)
    const intervalMillis = yield* integerParam(
      query,
      "interval",
      { min: 0, max: slowBodyLimits.maxIntervalMillis },
      200
    )
    const declareLength = yield* booleanParam(query, "length", true)
    const totalMillis = (chunks - 1) * intervalMillis
    if (totalMillis > slowBodyLimits.maxTotalMillis) {
      return yield* new BadRequest({
        message: `chunks x interval must stay under ${slowBodyLimits.maxTotalMillis} ms, got ${totalMillis} ms`
      })
    }
    const parts = Array.from({ length: chunks }, (_, index) => {
      const element = JSON.stringify({ chunk: index + 1, of: chunks })
      return encoder.encode(`${index === 0 ? "[" : ","}${element}${index === chunks - 1 ? "]" : ""}`)
    })
    const contentLength = parts.reduce((total, part) => total + part.length, 0)
    const interval = Duration.millis(intervalMillis)
    // The first chunk leaves with the headers; each later one waits its interval.
    const body = Stream.fromIterable(parts).pipe(
      Stream.zipWithIndex,
      Stream.mapEffect(([part, index]) =>
        index === 0 ? Effect.succeed(part) : Effect.as(Effect.sleep(interval), part)
      )
    )
    return HttpServerResponse.stream(metered(body, meter), {
      contentType: "application/json",
      ...(declareLength ? { contentLength } : {})
    })
  })

/** @internal */
export const largeJsonLimits = {
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
const largeJsonBody = (bytes: number): Stream.Stream<Uint8Array> => {
  const inner = bytes - 2
  // Between the brackets: `0` at even offsets, `,` at odd ones; an even count ends in a `,`, made a space.
  const closing = inner > 0 && inner % 2 === 0 ? " ]" : "]"
  const zerosLength = inner - (closing.length - 1)
  const chunkCount = Math.ceil(zerosLength / largeJsonLimits.chunkBytes)
  // One element per chunk: the platform waits for the socket to drain between chunks, not within one.
  const middle = Stream.range(0, chunkCount - 1, 1).pipe(
    Stream.map((index) => {
      const start = index * largeJsonLimits.chunkBytes
      return zeros.subarray(0, Math.min(largeJsonLimits.chunkBytes, zerosLength - start))
    })
  )
  return Stream.concat(
    Stream.make(encoder.encode("[")),
    Stream.concat(chunkCount > 0 ? middle : Stream.empty, Stream.make(encoder.encode(closing)))
  )
}

/**
 * `/api/chaos/large-json?bytes=N&length=true`: a 200 whose body is a valid JSON array of exactly `bytes` bytes,
 * streamed in 64 KiB chunks, with its `Content-Length` declared unless `length=false` (chunked encoding).
 * Nothing is held in memory beyond one chunk; a chunk is produced only when the socket has taken the last.
 *
 * @internal
 */
export const largeJson = (
  meter: BodyMeter
): Effect.Effect<HttpServerResponse.HttpServerResponse, BadRequest, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const query = searchParams(request.url)
    const bytes = yield* integerParam(
      query,
      "bytes",
      { min: largeJsonLimits.minBytes, max: largeJsonLimits.maxBytes },
      largeJsonLimits.defaultBytes
    )
    const declareLength = yield* booleanParam(query, "length", true)
    return HttpServerResponse.stream(metered(largeJsonBody(bytes), meter), {
      contentType: "application/json",
      ...(declareLength ? { contentLength: bytes } : {})
    })
  })

/** @internal */
export const redirectLoopPath = "/api/chaos/redirect-loop"

/**
 * `/api/chaos/redirect-loop`: a `302` back to the same path and query, with an empty body. A client that
 * follows redirects loops until its own limit; each request counts in the stats. The `Location` is built from
 * the known path rather than echoed, so it can never point to another host.
 *
 * @internal
 */
export const redirectLoop: Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  never,
  HttpServerRequest.HttpServerRequest
> = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const query = searchParams(request.url).toString()
  const location = query === "" ? redirectLoopPath : `${redirectLoopPath}?${query}`
  return HttpServerResponse.empty({ status: 302, headers: { location } })
})
