// @generated from templates/src/internal/withResilience.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import { describeOutcome } from "@effect-http-resilience/core/FailureMessage"
import type * as UrlCredentials from "@effect-http-resilience/core/UrlCredentials"
import type * as Cookies from "effect/http/Cookies"
import type * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type * as UrlParams from "effect/http/UrlParams"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import type * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import { dual } from "effect/Function"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as attemptLoop from "./attemptLoop.js"
import { type Attempt, classifyResponse, fromClientError, takeHeldResponse } from "./classify.js"
import * as line from "./line.js"
import * as platformErrors from "./platformErrors.js"
import * as policyInput from "./policyInput.js"
import * as redaction from "./redaction.js"
import { drain } from "./responseBody.js"
import * as urlCredentials from "./urlCredentials.js"

// Any error but the platform's.
const isOtherError = <E>(error: E): error is Exclude<E, HttpClientError.HttpClientError> =>
  !HttpClientError.isHttpClientError(error)

// The platform's `transform` types its result with the wrapped client's errors too; the attempt
// loop turns every `HttpClientError` into an `HttpFailure`, and this says so to the compiler.
const isHandledError = <E>(
  error: E | HttpFailure.HttpFailure
): error is HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError> =>
  !HttpClientError.isHttpClientError(error)

/**
 * One exchange of an attempt: send, then classify what came back. `permanentAsFailure`: a
 * permanent status is a failure (the library's typed client) or a response (the platform's).
 *
 * @internal
 */
export const exchange = <E, R>(
  attempt: Attempt,
  send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>,
  policy: policyInput.ResolvedPolicy,
  permanentAsFailure: boolean
): Effect.Effect<
  HttpClientResponse.HttpClientResponse,
  HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>,
  R
> =>
  Effect.flatMap(
    Effect.catch(
      redaction.inTransport(attempt.request, send),
      (
        error
      ): Effect.Effect<
        HttpClientResponse.HttpClientResponse,
        HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>
      > =>
        isOtherError(error)
          ? Effect.fail(error)
          : HttpClientError.isHttpClientError(error)
            ? fromClientError(attempt, error)
            : Effect.die(error) // not reached: an error is one or the other
    ),
    (response) =>
      attempt.heard === undefined
        ? classifyResponse(attempt, response, policy, permanentAsFailure)
        : Effect.andThen(
            attempt.heard(response.headers),
            classifyResponse(attempt, response, policy, permanentAsFailure)
          )
  )

/**
 * The typed client's end of a call that stops retrying: the held response released, and the
 * failure handed back with why it stopped.
 *
 * @internal
 */
export const failWithReason = (
  failure: HttpFailure.HttpFailure,
  reason: RetryPolicy.GiveUpReason
): Effect.Effect<never, HttpFailure.HttpFailure> =>
  Effect.andThen(attemptLoop.releaseHeld(failure), Effect.fail(attemptLoop.withGiveUpReason(failure, reason)))

/**
 * A response handed to a caller, which knows whether the caller has taken its body: started to
 * read it, taken its stream, or upgraded it. Only an untaken body needs releasing when the caller's
 * scope closes; a body whose read started is the reader's (a read that fails or is interrupted
 * has already ended it, so it must not be drained a second time).
 *
 * A class rather than an object literal: one is made per call, and getters on a prototype cost
 * nothing to make, where an object literal's own getters cost more than the rest of the call.
 * What only one line's responses have comes from `line.ResponseExtras`. The body idle timeout's
 * responses are of a subclass.
 *
 * @internal
 */
export class TrackedResponse extends line.ResponseExtras implements HttpClientResponse.HttpClientResponse {
  readonly [HttpClientResponse.TypeId]: typeof HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  bodyTaken = false
  // Some transports build a new Headers object on every access: built once here.
  private cachedHeaders: Headers.Headers | undefined

  constructor(readonly inner: HttpClientResponse.HttpClientResponse) {
    super()
  }

  protected override taking<A, E>(read: Effect.Effect<A, E>): Effect.Effect<A, E> {
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
  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return this.taking(this.inner.formData)
  }
  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    return this.taking(this.inner.text)
  }
  get json(): Effect.Effect<line.Json, HttpClientError.HttpClientError> {
    return this.taking(this.inner.json)
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return this.taking(this.inner.urlParamsBody)
  }
  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return this.taking(this.inner.arrayBuffer)
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
  override toString(): string {
    return this.inner.toString()
  }
  [Inspectable.NodeInspectSymbol](): unknown {
    return this.inner[Inspectable.NodeInspectSymbol]()
  }
}

// The response goes to the caller; its scope releases the body if the caller leaves it unread.
// A body taken is the reader's: the platform ends its request when the read stops.
const bindToScope = (
  scope: Scope.Scope,
  response: HttpClientResponse.HttpClientResponse,
  policy: policyInput.ResolvedPolicy,
  attempt: Attempt
): Effect.Effect<HttpClientResponse.HttpClientResponse> => {
  const idle = policy.bodyIdleTimeout
  const tracked = idle === undefined ? new TrackedResponse(response) : idle.bound(response, attempt, true)
  return Effect.as(
    Scope.addFinalizer(
      scope,
      Effect.suspend(() => (tracked.bodyTaken ? Effect.void : drain(response)))
    ),
    tracked
  )
}

/**
 * What a call sends once credentials in its URL are dealt with (see `urlCredentials`): a
 * request and how to send it, or why they are refused.
 */
type Sending<E, R> =
  | {
      readonly _tag: "Send"
      readonly request: HttpClientRequest.HttpClientRequest
      readonly send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>
    }
  | { readonly _tag: "Refused"; readonly problem: UrlCredentials.Problem }

// User info needs an "@": most URLs have none, and are sent without `urlCredentials`.
const hasUserinfo = (url: string): boolean => url.includes("@")

// Credentials put in the URL before the client was made become a header in a step of the
// client's own where the line's transform cannot send another request than the one it read
// (`line.beforeTransform`, Effect 3); any put there after it (by a `mapRequest` applied to the
// resilient client) are then refused.
const credentialsStep = <E, R>(
  self: HttpClient.HttpClient.With<E, R>,
  mode: RetryPolicy.UrlCredentialsMode
): HttpClient.HttpClient.With<E, R> =>
  mode === "refuse"
    ? self
    : line.beforeTransform(self, (request) =>
        hasUserinfo(request.url) ? urlCredentials.asHeader(request, mode) : request
      )

// Where the line can (`line.resend`, Effect 4), the request rewritten goes through the wrapped
// client's own postprocessing, as the transform's `send` does with the request it read.
const sending = <E, R>(
  self: HttpClient.HttpClient.With<E, R>,
  send: Effect.Effect<HttpClientResponse.HttpClientResponse, E, R>,
  request: HttpClientRequest.HttpClientRequest,
  mode: RetryPolicy.UrlCredentialsMode
): Sending<E, R> => {
  if (!hasUserinfo(request.url)) return { _tag: "Send", request, send }
  const prepared = urlCredentials.prepare(request, mode)
  switch (prepared._tag) {
    case "Unchanged":
      return { _tag: "Send", request, send }
    case "Rewritten": {
      const resent = line.resend(self, prepared.request)
      return resent === undefined
        ? { _tag: "Refused", problem: "added-after-client" }
        : { _tag: "Send", request: prepared.request, send: resent }
    }
    case "Refused":
      return prepared
  }
}

/** @internal */
export const withResolvedPolicy = <E, R>(
  self: HttpClient.HttpClient.With<E, R>,
  policy: policyInput.ResolvedPolicy
): HttpClient.HttpClient.With<
  HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>,
  R | Scope.Scope
> => {
  return HttpClient.transform(credentialsStep(self, policy.urlCredentials), (sendAsRead, requestAsRead) => {
    const call = sending(self, sendAsRead, requestAsRead, policy.urlCredentials)
    if (call._tag === "Refused") return Effect.flatMap(urlCredentials.refusal(requestAsRead, call.problem), Effect.fail)
    const { request, send } = call
    const resilient = Effect.flatMap(Effect.scope, (scope) =>
      attemptLoop.run(
        policy,
        request,
        (attempt) =>
          Effect.flatMap(exchange(attempt, send, policy, true), (response) =>
            bindToScope(scope, response, policy, attempt)
          ),
        failWithReason,
        drain
      )
    )
    // Coalescing sits outside the retry loop: a coalesced call is one whole call.
    return policy.coalesce === undefined ? resilient : policy.coalesce.around(policy.store, "typed", request, resilient)
  }).pipe(HttpClient.catch((error) => (isHandledError(error) ? Effect.fail(error) : Effect.die(error))))
}

const resolveOrThrow = (policy: policyInput.PolicyInput | undefined): policyInput.ResolvedPolicy =>
  Result.getOrThrowWith(policyInput.resolve(policy), (error) => error)

/** @internal */
export const withResilience = dual<
  (
    policy?: policyInput.PolicyInput
  ) => <E, R>(
    self: HttpClient.HttpClient.With<E, R>
  ) => HttpClient.HttpClient.With<
    HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>,
    R | Scope.Scope
  >,
  <E, R>(
    self: HttpClient.HttpClient.With<E, R>,
    policy?: policyInput.PolicyInput
  ) => HttpClient.HttpClient.With<
    HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>,
    R | Scope.Scope
  >
>(
  (args) => line.isHttpClient(args[0]),
  (self, policy) => withResolvedPolicy(self, resolveOrThrow(policy))
)

/**
 * A failure as the platform's client would report it: the transport's own error when there was
 * one, with why the call stopped added to its description, writing its request redacted.
 */
const toClientError = (failure: HttpFailure.HttpFailure): HttpClientError.HttpClientError => {
  const description = describeOutcome(failure)
  if (failure._tag === "ConnectionError" && HttpClientError.isHttpClientError(failure.cause)) {
    return platformErrors.describedAs(failure.cause, description)
  }
  // Credentials in the URL that were not sent: what the platform calls an invalid URL.
  const refused = failure._tag === "ConnectionError" && HttpFailure.isUrlCredentialsRefused(failure.cause)
  return platformErrors.ofFailure(failure.request, refused ? "InvalidUrl" : "Transport", failure, description)
}

// A call that stops retrying hands back what the platform's client would have: the last
// response, whatever its status, or the last error.
const platformGiveUp = (
  failure: HttpFailure.HttpFailure,
  reason: RetryPolicy.GiveUpReason
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> => {
  const held = takeHeldResponse(failure)
  return held === undefined
    ? Effect.fail(toClientError(attemptLoop.withGiveUpReason(failure, reason)))
    : Effect.succeed(held)
}

/**
 * Our retries, waits, time limits, release and idempotency rules, with the platform's types:
 * errors stay `HttpClientError`, and a final response of any status is a response.
 *
 * @internal
 */
export const withPlatformTypes = <R>(
  self: HttpClient.HttpClient.With<HttpClientError.HttpClientError, R>,
  policy: policyInput.ResolvedPolicy
): HttpClient.HttpClient.With<HttpClientError.HttpClientError, R> => {
  const idle = policy.bodyIdleTimeout
  return HttpClient.transform(credentialsStep(self, policy.urlCredentials), (sendAsRead, requestAsRead) => {
    const call = sending(self, sendAsRead, requestAsRead, policy.urlCredentials)
    if (call._tag === "Refused") {
      return Effect.flatMap(urlCredentials.refusal(requestAsRead, call.problem), (failure) =>
        Effect.fail(toClientError(failure))
      )
    }
    const { request, send } = call
    const resilient = attemptLoop.run(
      policy,
      request,
      idle === undefined
        ? (attempt) => exchange(attempt, send, policy, false)
        : (attempt) =>
            Effect.map(exchange(attempt, send, policy, false), (response) => idle.bound(response, attempt, true)),
      platformGiveUp,
      drain
    )
    return policy.coalesce === undefined
      ? resilient
      : policy.coalesce.around(policy.store, "platform", request, resilient)
  })
}
