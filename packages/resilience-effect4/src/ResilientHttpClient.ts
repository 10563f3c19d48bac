// @generated from templates/src/ResilientHttpClient.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * An HTTP client that retries what is worth retrying, waits as the server asks (within a cap),
 * releases every discarded response before waiting, and fails with a tagged `HttpFailure` that
 * says why it stopped: as a combinator for any Effect 4 `HttpClient`, a drop-in layer, and a
 * service with `getJson`.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer, Schema } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience-effect4"
 *
 * const Todo = Schema.Struct({ id: Schema.Number, title: Schema.String })
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* ResilientHttpClient.ResilientHttpClient
 *   return yield* client.getJson("http://127.0.0.1:8080/api/Todos/1", Todo)
 * })
 *
 * const MainLayer = ResilientHttpClient.layer({ maxAttempts: 4 }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * program.pipe(Effect.provide(MainLayer))
 * ```
 *
 * @since 0.1.0
 */
import type * as HttpClient from "effect/http/HttpClient"
import type * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as HttpFailure from "./HttpFailure.js"
import * as internal from "./internal/client.js"
import * as decisions from "./internal/decisions.js"
import * as combinator from "./internal/withResilience.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * What decides the retries: a validated `RetryPolicy`, plain policy options (validated when the
 * client is made), or any `Schedule` over failures. A custom schedule decides when and how
 * long, but still never retries a permanent status, a decode error, an invalid request, a
 * non-idempotent request or a one-shot body; a server's `Retry-After` still replaces its wait,
 * capped at the default `maxDelay` (see `RetryPolicy.withRetryAfter`); the default
 * `attemptTimeout`, `totalTimeout`, `maxBodyBytes` and retry budget apply.
 *
 * @since 0.1.0
 * @category models
 */
export type PolicyInput =
  | RetryPolicy.RetryPolicy
  | RetryPolicy.Options
  | Schedule.Schedule<unknown, HttpFailure.HttpFailure>

/**
 * The service.
 *
 * @since 0.1.0
 * @category tags
 */
export class ResilientHttpClient extends Context.Service<ResilientHttpClient, ResilientHttpClient.Service>()(
  "effect-http-resilience-effect4/ResilientHttpClient"
) {}

/**
 * The types that belong to the {@link ResilientHttpClient} service.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace ResilientHttpClient {
  /**
   * The service: `client`, `execute`, `get` and `getJson`, each retrying as the policy says.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /**
     * The platform's client with this service's policy (see {@link withResilience}): every verb
     * (`get`, `post`, `put`, `patch`, `del`, `head`, `options`, `execute`) and every platform
     * combinator works on it.
     */
    readonly client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>
    /**
     * Sends the request, retrying as the policy says. Succeeds with a 2xx response bound to the
     * caller's scope: a body still unread when it closes is released then (drained when small,
     * aborted when large). Every discarded response was released before the next wait.
     * `attemptTimeout` limits each attempt until the response headers arrive.
     */
    readonly execute: (
      request: HttpClientRequest.HttpClientRequest
    ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope>
    /** `execute` of a GET request. */
    readonly get: (
      url: string | URL,
      options?: HttpClientRequest.Options.NoUrl
    ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope>
    /**
     * GETs and decodes a JSON body with the schema within each attempt (the time limit covers the
     * body): nothing is left for the caller to release. A body that breaks off is a
     * `ConnectionError` (retried); invalid JSON, a schema mismatch or a body over `maxBodyBytes`
     * is a `DecodeError` (never retried).
     */
    readonly getJson: <S extends Schema.Constraint>(
      url: string | URL,
      schema: S,
      options?: HttpClientRequest.Options.NoUrl
    ) => Effect.Effect<S["Type"], HttpFailure.HttpFailure, S["DecodingServices"]>
  }
}

/**
 * Makes the service over the `HttpClient` in context (undici, node http, fetch …). Plain
 * options are validated: a bad one fails with `InvalidRetryPolicy`; a validated `RetryPolicy`
 * or a `Schedule` cannot fail. Without a policy, the defaults of `RetryPolicy.Options` apply.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: {
  (
    policy: RetryPolicy.RetryPolicy | Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  ): Effect.Effect<ResilientHttpClient.Service, never, HttpClient.HttpClient>
  (
    policy?: PolicyInput
  ): Effect.Effect<ResilientHttpClient.Service, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
} = internal.make

/**
 * The service as a layer over the `HttpClient` in context. Plain options are validated when
 * the layer is built (a bad one fails it with `InvalidRetryPolicy`); a validated `RetryPolicy`
 * or a `Schedule` cannot fail.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: {
  (
    policy: RetryPolicy.RetryPolicy | Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  ): Layer.Layer<ResilientHttpClient, never, HttpClient.HttpClient>
  (policy?: PolicyInput): Layer.Layer<ResilientHttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
} = internal.layer

/**
 * Makes any Effect 4 `HttpClient` resilient, the way `HttpClient.retryTransient` does, with this
 * library's rules: bounded retries of what is worth retrying (never a POST without an
 * `Idempotency-Key`, never a one-shot body), `Retry-After` honoured within `maxDelay`, an
 * attempt timeout and a total deadline, a retry budget per origin, every discarded response
 * released before the wait.
 *
 * Every verb (`get`, `post`, `put`, `patch`, `del`, `head`, `options`, `execute`) goes through
 * it, and so do platform combinators applied before it (`mapRequest`, `followRedirects`,
 * `tapRequest` …) or after it. A non-2xx status becomes a typed `HttpFailure` whose
 * `giveUpReason` and `message` say why the call stopped; the final 2xx response is bound to the
 * caller's `Scope`, which releases its body if left unread. Errors other than the platform's
 * `HttpClientError` pass through untouched and are never retried. Applied inside every call,
 * it shares its origin's budget, breaker and cool-down with every other client (see
 * `ResilienceStore`).
 *
 * Plain options are validated when applied: a bad one throws `InvalidRetryPolicy` (validate
 * first with `RetryPolicy.validate` to get it as a value).
 *
 * @since 0.1.0
 * @category combinators
 */
export const withResilience: {
  (
    policy?: PolicyInput
  ): <E, R>(
    self: HttpClient.HttpClient.With<E, R>
  ) => HttpClient.HttpClient.With<
    HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>,
    R | Scope.Scope
  >
  <E, R>(
    self: HttpClient.HttpClient.With<E, R>,
    policy?: PolicyInput
  ): HttpClient.HttpClient.With<HttpFailure.HttpFailure | Exclude<E, HttpClientError.HttpClientError>, R | Scope.Scope>
} = combinator.withResilience

/**
 * A drop-in replacement for the `HttpClient` in context: code that does
 * `yield* HttpClient.HttpClient` (directly, through `HttpApiClient`, or a generated client)
 * gets this library's retries, waits, `Retry-After` handling, idempotency rules, time limits,
 * budget and release by providing this one layer, with its types unchanged: errors stay
 * `HttpClientError` (their `description` says why the call stopped), and a final response of
 * any status is a response, as the platform's client returns it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerHttpClient: {
  (
    policy: RetryPolicy.RetryPolicy | Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  ): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient>
  (policy?: PolicyInput): Layer.Layer<HttpClient.HttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
} = internal.layerHttpClient

/**
 * One decision of a call: after a failed attempt, retry after `delay` (from the backoff or the
 * server's `Retry-After`, `capped` when `maxDelay` cut it), or give up, and why; with `hedging`,
 * a hedge: copy `copy` of an attempt sent as attempt `attempt`, `delay` after the copy before it.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | {
      readonly _tag: "Retry"
      /** The failure of the attempt that is retried. */
      readonly failure: HttpFailure.HttpFailure
      /** The wait before the next attempt. */
      readonly delay: Duration.Duration
      /** Whether the wait is the policy's backoff or the server's `Retry-After` (an origin's cool-down included). */
      readonly source: RetryPolicy.DelaySource
      /** Whether `maxDelay` cut the wait. */
      readonly capped: boolean
    }
  | {
      readonly _tag: "GiveUp"
      /** The failure the call ends with, its `giveUpReason` set. */
      readonly failure: HttpFailure.HttpFailure
      readonly reason: RetryPolicy.GiveUpReason
    }
  | {
      readonly _tag: "Hedge"
      readonly request: HttpClientRequest.HttpClientRequest
      /** The attempt number the copy goes out as: every request sent has its own. */
      readonly attempt: number
      /** Which copy of its attempt: 2 for the first hedge. */
      readonly copy: number
      /** How long after the previous copy it goes. */
      readonly delay: Duration.Duration
    }

/**
 * Calls `observer` with every decision that calls made inside `self` take, as Polly's
 * `OnRetry` or ky's and got's retry hooks do, without reading logs. Observers nest: an inner
 * one does not hide an outer one. Each decision is also an event (`retrying`, `giving up`, `hedging`) on
 * the caller's current span, and a debug log line.
 *
 * @since 0.1.0
 * @category observability
 */
export const observeDecisions: {
  (
    observer: (decision: Decision) => Effect.Effect<void>
  ): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, observer: (decision: Decision) => Effect.Effect<void>): Effect.Effect<A, E, R>
} = decisions.observeDecisions
