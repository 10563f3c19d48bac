// @generated from templates/src/internal/trackedResponse.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import type * as Cookies from "effect/http/Cookies"
import type * as Headers from "effect/http/Headers"
import type * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type * as UrlParams from "effect/http/UrlParams"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import type * as Option from "effect/Option"
import { pipeArguments } from "effect/Pipeable"
import type * as Schema from "effect/Schema"
import type * as Socket from "effect/socket/Socket"
import * as Stream from "effect/Stream"

/**
 * A response handed to a caller, which knows whether the caller has taken its body: started to
 * read it, taken its stream, or upgraded it. Only an untaken body needs releasing when the caller's
 * scope closes; a body whose read started is the reader's (a read that fails or is interrupted
 * has already ended it, so it must not be drained a second time).
 *
 * A class rather than an object literal: one is made per call, and getters on a prototype cost
 * nothing to make, where an object literal's own getters cost more than the rest of the call.
 * `HttpClientResponse.toWeb` does not see through it (Effect keeps that hook private).
 *
 * @internal
 */
export class TrackedResponse implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId] = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
  bodyTaken = false

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
  get url(): string {
    return this.inner.url
  }
  get status(): number {
    return this.inner.status
  }
  get headers(): Headers.Headers {
    return this.inner.headers
  }
  get cookies(): Cookies.Cookies {
    return this.inner.cookies
  }
  get remoteAddress(): Option.Option<string> {
    return this.inner.remoteAddress
  }
  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return this.taking(this.inner.formData)
  }
  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    return this.taking(this.inner.text)
  }
  get json(): Effect.Effect<Schema.Json, HttpClientError.HttpClientError> {
    return this.taking(this.inner.json)
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return this.taking(this.inner.urlParamsBody)
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return this.taking(this.inner.arrayBuffer)
  }
  get upgrade(): Effect.Effect<Socket.Socket, HttpClientError.HttpClientError> {
    return this.taking(this.inner.upgrade)
  }
  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
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
  pipe() {
    // biome-ignore lint/complexity/noArguments: pipeArguments reads the arguments object, as Effect's own responses do
    return pipeArguments(this, arguments)
  }
}
