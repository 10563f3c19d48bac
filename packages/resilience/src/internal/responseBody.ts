// @generated from templates/src/internal/responseBody.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// Sizes, the release plan and the byte arithmetic are the shared core's (ResponseBody).
import * as Body from "@effect-http-resilience/core/ResponseBody"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as HttpFailure from "../HttpFailure.js"
import * as timeout from "./timeout.js"

// Releasing must not hold up the retry: a body that trickles is aborted, not waited for. Bounded
// in time, `undefined` when too late. Releasing runs in scope finalizers, which are
// uninterruptible: the read itself is made interruptible, or the limit could never stop it.
// Effect 4 joins no fiber-local state back from a forked fiber: its `timeoutFail` is already
// what Effect 3's `timeoutFailRead` is.
const withinReadTime = <A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E | undefined> =>
  timeout.timeoutFailRead(Effect.interruptible(read), Duration.millis(Body.readTimeoutMillis), () => undefined)

// Reads at most `maxBytes` (plus the chunk that crosses it). Stopping early interrupts the
// stream, which cancels the body and aborts the request.
const collectAtMost = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<Body.Collected, HttpClientError.ResponseError> =>
  Stream.runFoldWhile(
    response.stream,
    new Body.Collected(),
    (collected) => collected.size <= maxBytes,
    (collected, chunk) => collected.push(chunk)
  )

const utf8 = new TextDecoder()

// Never fails: `undefined` when the body could not be read in time.
const readAtMost = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number
): Effect.Effect<Body.Collected | undefined> =>
  collectAtMost(response, maxBytes).pipe(
    withinReadTime,
    Effect.orElseSucceed(() => undefined)
  )

// Taking a body's stream and stopping it releases the request: the transport cancels it.
const abortBody = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> =>
  Effect.ignore(withinReadTime(Stream.runHead(response.stream)))

/**
 * Releases a response nobody will read: a small body is read to its end (so keep-alive can
 * reuse the connection), a large or slow one is aborted. Never fails.
 *
 * @internal
 */
export const drain = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<void> => {
  switch (Body.releasePlan(response.headers)) {
    case "nothing":
      return Effect.void
    case "abort":
      return abortBody(response)
    case "read-whole":
      // An identity body's declared length bounds it: read it whole, without a stream around it.
      return Effect.ignore(withinReadTime(response.arrayBuffer))
    case "read-at-most":
      return Effect.asVoid(readAtMost(response, Body.drainMaxBytes))
  }
}

/**
 * The first 8 KiB of a body as text, for diagnostics; empty when unreadable. Never fails.
 *
 * @internal
 */
export const readSnippet = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<string> =>
  Effect.map(readAtMost(response, Body.snippetMaxBytes), Body.snippet)

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
): Effect.Effect<string, HttpClientError.ResponseError | HttpFailure.BodyTooLarge> => {
  const length = Body.declaredLength(response.headers)
  if (length !== undefined && length > maxBytes) {
    return Effect.andThen(
      abortBody(response),
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
