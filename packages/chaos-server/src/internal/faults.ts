import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type * as Net from "node:net"
import { BadRequest } from "./errors.js"
import { integerParam, searchParams } from "./params.js"

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

/** @internal */
export const slowBodyLimits = {
  maxChunks: 1000,
  maxIntervalMillis: 10_000,
  maxTotalMillis: 60_000
} as const

const encoder = new TextEncoder()

/**
 * `/api/chaos/slow-body?chunks=N&interval=MS`: headers at once, then a JSON array trickled one element per
 * chunk, `interval` ms apart. The whole body is valid JSON and its `Content-Length` is declared, so a client
 * can only fail by giving up, never by misreading.
 *
 * @internal
 */
export const slowBody: Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  BadRequest,
  HttpServerRequest.HttpServerRequest
> = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const query = searchParams(request.url)
  const chunks = yield* integerParam(query, "chunks", { min: 1, max: slowBodyLimits.maxChunks }, 10)
  const intervalMillis = yield* integerParam(query, "interval", { min: 0, max: slowBodyLimits.maxIntervalMillis }, 200)
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
    Stream.mapEffect(([part, index]) => (index === 0 ? Effect.succeed(part) : Effect.as(Effect.sleep(interval), part)))
  )
  return HttpServerResponse.stream(body, { contentType: "application/json", contentLength })
})
