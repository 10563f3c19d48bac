// @generated from templates/src/internal/trackedResponse.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import type * as Cookies from "@effect/platform/Cookies"
import type * as Headers from "@effect/platform/Headers"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as UrlParams from "@effect/platform/UrlParams"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import type * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/**
 * A response handed to a caller, which knows whether the caller has taken its body: started to
 * read it, taken its stream. Only an untaken body needs releasing when the caller's
 * scope closes; a body whose read started is the reader's (a read that fails or is interrupted
 * has already ended it, so it must not be drained a second time).
 *
 * A class rather than an object literal: one is made per call, and getters on a prototype cost
 * nothing to make, where an object literal's own getters cost more than the rest of the call.
 *
 * @internal
 */
export class TrackedResponse implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  bodyTaken = false
  // Some transports build a new Headers object on every access: built once here.
  private cachedHeaders: Headers.Headers | undefined

  constructor(readonly inner: HttpClientResponse.HttpClientResponse) {}

  private taking<A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.suspend(() => {
      this.bodyTaken = true
      return read
    })
  }

  get request(): HttpClientRequest.HttpClientRequest {
    return this.inner.request
  }
  get status(): number {
    return this.inner.status
  }
  get headers(): Headers.Headers {
    this.cachedHeaders ??= this.inner.headers
    return this.cachedHeaders
  }
  get cookies(): Cookies.Cookies {
    return this.inner.cookies
  }
  get remoteAddress(): Option.Option<string> {
    return this.inner.remoteAddress
  }
  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return this.taking(this.inner.formData)
  }
  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return this.taking(this.inner.text)
  }
  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return this.taking(this.inner.json)
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return this.taking(this.inner.urlParamsBody)
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return this.taking(this.inner.arrayBuffer)
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.suspend(() => {
      this.bodyTaken = true
      return this.inner.stream
    })
  }
  toJSON(): unknown {
    return this.inner.toJSON()
  }
  toString(): string {
    return this.inner.toString()
  }
  [Inspectable.NodeInspectSymbol](): unknown {
    return this.inner[Inspectable.NodeInspectSymbol]()
  }
}
