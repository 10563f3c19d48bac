/**
 * An HTTP client service that retries what is worth retrying, waits as the server asks,
 * releases every discarded response before waiting, and fails with a tagged `HttpFailure`.
 *
 * @since 0.1.0
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as HttpFailure from "./HttpFailure.js"
import * as internal from "./internal/client.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * What decides the retries: a validated `RetryPolicy`, plain policy options (validated when
 * the client is made), or any `Schedule` over failures. A custom schedule decides when and how
 * long, but still never retries a permanent status, a decode error, an invalid request, a
 * non-idempotent request or a one-shot body; it uses the default `attemptTimeout`.
 *
 * @example
 * ```ts
 * import { Schedule } from "effect"
 * import { ResilientHttpClient, RetryPolicy } from "effect-http-resilience"
 *
 * const policies: ReadonlyArray<ResilientHttpClient.PolicyInput> = [
 *   RetryPolicy.make({ maxAttempts: 5 }), // validated
 *   { maxAttempts: 5 }, // validated when the client is made
 *   Schedule.intersect(Schedule.recurs(4), Schedule.spaced("1 second")) // any Schedule
 * ]
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type PolicyInput =
  | RetryPolicy.RetryPolicy
  | RetryPolicy.Options
  | Schedule.Schedule<unknown, HttpFailure.HttpFailure>

/**
 * The service tag.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Effect, Layer, Schema } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience"
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
 * @category tags
 */
export class ResilientHttpClient extends Context.Tag("effect-http-resilience/ResilientHttpClient")<
  ResilientHttpClient,
  ResilientHttpClient.Service
>() {}

/**
 * The types that belong to the {@link ResilientHttpClient} tag.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace ResilientHttpClient {
  /**
   * The service: `execute`, `get` and `getJson`, each retrying as the policy says.
   *
   * @example
   * ```ts
   * import { Effect, Layer } from "effect"
   * import { HttpFailure, ResilientHttpClient } from "effect-http-resilience"
   *
   * // A stub for tests of code that depends on the service: every call fails at once.
   * const failing: ResilientHttpClient.ResilientHttpClient.Service = {
   *   execute: (request) =>
   *     Effect.fail(new HttpFailure.ConnectionError({ request, attempt: 1, reason: "Transport", cause: "stub" })),
   *   get: () => Effect.die("not used"),
   *   getJson: () => Effect.die("not used")
   * }
   * const StubLayer = Layer.succeed(ResilientHttpClient.ResilientHttpClient, failing)
   * ```
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
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
      options?: HttpClientRequest.Options.NoBody
    ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope>
    /**
     * GETs and decodes a JSON body with the schema, reading the body within the attempt, so
     * nothing is left for the caller to release. A body that breaks
     * off is a `ConnectionError` (retried); invalid JSON or a schema mismatch is a
     * `DecodeError` (never retried). `attemptTimeout` limits each attempt, body included.
     */
    readonly getJson: <A, I, R>(
      url: string | URL,
      schema: Schema.Schema<A, I, R>,
      options?: HttpClientRequest.Options.NoBody
    ) => Effect.Effect<A, HttpFailure.HttpFailure, R>
  }
}

/**
 * Makes the service over the `HttpClient` in context (undici, node http, fetch …). Plain
 * options are validated: a bad one fails with `InvalidRetryPolicy`. Without a policy, the
 * defaults of `RetryPolicy.Options` apply.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Effect } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience"
 *
 * const program = Effect.gen(function* () {
 *   const client = yield* ResilientHttpClient.make({ maxAttempts: 2 })
 *   const response = yield* client.get("http://127.0.0.1:8080/api/status/200")
 *   return response.status
 * }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (
  policy?: PolicyInput
) => Effect.Effect<ResilientHttpClient.Service, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient> = internal.make

/**
 * The service as a layer over the `HttpClient` in context.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { Layer } from "effect"
 * import { ResilientHttpClient, RetryPolicy } from "effect-http-resilience"
 *
 * const Live = ResilientHttpClient.layer({
 *   maxAttempts: 3,
 *   backoff: RetryPolicy.linear("500 millis"),
 *   maxDelay: "2 seconds"
 * }).pipe(Layer.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: (
  policy?: PolicyInput
) => Layer.Layer<ResilientHttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient> = (policy) =>
  Layer.effect(ResilientHttpClient, internal.make(policy))
