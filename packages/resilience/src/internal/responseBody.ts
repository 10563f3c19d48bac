// @generated from templates/src/internal/responseBody.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// Sizes, the release plan and the byte arithmetic are the shared core's (ResponseBody).
import * as Body from "@effect-http-resilience/core/ResponseBody"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as HttpFailure from "../HttpFailure.js"
import * as line from "./line.js"

type ReadError = HttpClientError.ResponseError

// A read bounded by `withinMillis` (`undefined` when too late), or by nothing of its own when it
// is `Infinity`: Effect's only time bound is a race, a fork, which a read that some other limit
// already bounds does without. Releasing runs in scope finalizers, which are uninterruptible: the
// read itself is made interruptible, or no limit could stop it.
const within = <A, E>(read: Effect.Effect<A, E>, withinMillis: number): Effect.Effect<A, E | undefined> =>
  Number.isFinite(withinMillis)
    ? line.timeoutFail(Effect.interruptible(read), Duration.millis(Math.max(0, withinMillis)), () => undefined)
    : Effect.interruptible(read)

// Reads at most `maxBytes` (plus the chunk that crosses it), handing each chunk to `onChunk`.
// Stopping early interrupts the stream, which cancels the body and aborts the request: that
// connection is closed.
const readChunks = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
  onChunk: (chunk: Uint8Array) => void
): Effect.Effect<void, ReadError> =>
  Effect.suspend(() => {
    let seen = 0
    return Stream.runForEachWhile(response.stream, (chunk) =>
      Effect.sync(() => {
        onChunk(chunk)
        seen += chunk.byteLength
        return seen <= maxBytes
      })
    )
  })

const ignoreChunk = (): void => undefined

/**
 * Reads at most `maxBytes` (plus the chunk that crosses it), keeping what it read.
 *
 * @internal
 */
export const collectAtMost = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<Body.Collected, ReadError> =>
  Effect.suspend(() => {
    const collected = new Body.Collected()
    return Effect.as(
      readChunks(response, maxBytes, (chunk) => collected.push(chunk)),
      collected
    )
  })

const utf8 = new TextDecoder()

// Taking a body's stream and stopping it releases the request: the transport cancels it.
const abortBody = (response: HttpClientResponse.HttpClientResponse, withinMillis: number): Effect.Effect<void> =>
  Effect.ignore(within(Stream.runHead(response.stream), withinMillis))

/**
 * Releases a response nobody will read, buffering nothing but a body that fits one socket read:
 * its chunks are read and dropped up to 128 KiB (so keep-alive can reuse the connection), and past
 * that, or when it declares more, the request is aborted and the connection closed. A small body
 * that declares its length is read whole, in one call of the platform's, which costs less than a
 * stream. Never fails.
 *
 * `withinMillis` bounds it in time (500 ms unless given; `Infinity`: nothing of its own, no race);
 * a body that trickles past it is aborted.
 *
 * @internal
 */
export const drain = (
  response: HttpClientResponse.HttpClientResponse,
  withinMillis: number = Body.readTimeoutMillis,
  // Some transports build the headers anew on every access: a failure's are read already.
  headers: HttpClientResponse.HttpClientResponse["headers"] = response.headers
): Effect.Effect<void> => {
  switch (Body.releasePlan(headers)) {
    case "nothing":
      return Effect.void
    case "abort":
      return abortBody(response, withinMillis)
    case "read-whole":
      return Effect.ignore(within(response.arrayBuffer, withinMillis))
    case "read-at-most":
      return Effect.ignore(within(readChunks(response, Body.drainMaxBytes, ignoreChunk), withinMillis))
  }
}

/**
 * The first 8 KiB of a body as text, for diagnostics, read within 500 ms; empty when unreadable.
 * Never fails.
 *
 * @internal
 */
export const readSnippet = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<string> =>
  collectAtMost(response, Body.snippetMaxBytes).pipe(
    (read) => within(read, Body.readTimeoutMillis),
    Effect.map(Body.snippet),
    Effect.orElseSucceed(() => "")
  )

/**
 * The whole body as text, read no further than `maxBytes` decoded bytes: a body that declares
 * or turns out to be larger fails with `BodyTooLarge` and is aborted, not read on. A body that breaks off
 * fails with the transport's error.
 *
 * @internal
 */
export const readTextAtMost = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<string, ReadError | HttpFailure.BodyTooLarge> => {
  const length = Body.declaredLength(response.headers)
  if (length !== undefined && length > maxBytes) {
    return Effect.andThen(
      abortBody(response, Body.readTimeoutMillis),
      Effect.fail(new HttpFailure.BodyTooLarge({ limit: maxBytes, seen: length, declared: true }))
    )
  }
  // An identity body's declared length bounds what the transport hands over: read it whole, fast
  // (a stream costs more than the read). Checked all the same: a browser hides
  // `Content-Encoding` cross-origin unless the server exposes it.
  if (length !== undefined && !Body.isEncoded(response.headers)) {
    return Effect.flatMap(response.arrayBuffer, (buffer) =>
      buffer.byteLength > maxBytes
        ? Effect.fail(new HttpFailure.BodyTooLarge({ limit: maxBytes, seen: buffer.byteLength, declared: false }))
        : Effect.succeed(utf8.decode(buffer))
    )
  }
  // Encoded bytes bound nothing: fetch decodes gzip and brotli (a bomb). The limit counts what
  // the transport hands over, and the read stops there.
  return Effect.flatMap(collectAtMost(response, maxBytes), (collected) =>
    collected.size > maxBytes
      ? Effect.fail(new HttpFailure.BodyTooLarge({ limit: maxBytes, seen: collected.size, declared: false }))
      : Effect.succeed(collected.text(maxBytes))
  )
}
