import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as Headers from "@effect/platform/Headers"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Stream from "effect/Stream"

/**
 * A response handed to a caller, and whether the caller has taken its body: read it whole, or
 * taken its stream (whose own end releases it). Only an untaken body needs releasing.
 *
 * @internal
 */
export interface TrackedResponse {
  readonly response: HttpClientResponse.HttpClientResponse
  readonly bodyTaken: () => boolean
}

/** @internal */
export const track = (inner: HttpClientResponse.HttpClientResponse): TrackedResponse => {
  let taken = false
  // Taken from the moment a read starts: a read that fails or is interrupted has already
  // released the body (the transport aborts it), so it must not be drained a second time.
  const onceRead = <A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.suspend(() => {
      taken = true
      return read
    })
  // Some transports build a new Headers object on every access: build it once.
  let headers: Headers.Headers | undefined
  const response: HttpClientResponse.HttpClientResponse = {
    [HttpClientResponse.TypeId]: HttpClientResponse.TypeId,
    [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId,
    get request() {
      return inner.request
    },
    get status() {
      return inner.status
    },
    get headers() {
      headers ??= inner.headers
      return headers
    },
    get cookies() {
      return inner.cookies
    },
    get remoteAddress() {
      return inner.remoteAddress
    },
    get formData() {
      return onceRead(inner.formData)
    },
    get text() {
      return onceRead(inner.text)
    },
    get json() {
      return onceRead(inner.json)
    },
    get urlParamsBody() {
      return onceRead(inner.urlParamsBody)
    },
    get arrayBuffer() {
      return onceRead(inner.arrayBuffer)
    },
    get stream() {
      return Stream.suspend(() => {
        taken = true
        return inner.stream
      })
    },
    toJSON: () => inner.toJSON(),
    toString: () => inner.toString(),
    [Inspectable.NodeInspectSymbol]: () => inner[Inspectable.NodeInspectSymbol]()
  }
  return { response, bodyTaken: () => taken }
}
