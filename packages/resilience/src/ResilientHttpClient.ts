// @generated from templates/src/ResilientHttpClient.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The resilient client: a combinator for any Effect 3 `HttpClient`, a drop-in layer, and a
 * service with `getJson` (docs/retry-policy.md).
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
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import type * as Schedule from "effect/Schedule"
import type * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type * as HttpFailure from "./HttpFailure.js"
import * as internal from "./internal/client.js"
import * as decisions from "./internal/decisions.js"
import * as line from "./internal/line.js"
import * as combinator from "./internal/withResilience.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * What decides the retries: a `RetryPolicy`, its options, or any `Schedule` over failures.
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
export class ResilientHttpClient extends line.Service<ResilientHttpClient, ResilientHttpClient.Service>()(
  "effect-http-resilience/ResilientHttpClient"
) {}

/**
 * The types that belong to the {@link ResilientHttpClient} service.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace ResilientHttpClient {
  /**
   * The service's operations, each retrying as the policy says.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The platform's client with this service's policy ({@link withResilience}). */
    readonly client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>
    /** Sends the request; the 2xx response is released when the caller's scope closes. */
    readonly execute: (
      request: HttpClientRequest.HttpClientRequest
    ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope>
    /** `execute` of a GET request. */
    readonly get: (
      url: string | URL,
      options?: HttpClientRequest.Options.NoBody
    ) => Effect.Effect<HttpClientResponse.HttpClientResponse, HttpFailure.HttpFailure, Scope.Scope>
    /** GETs and decodes a JSON body within each attempt; a `DecodeError` is never retried. */
    readonly getJson: <A, I, R>(
      url: string | URL,
      schema: Schema.Schema<A, I, R>,
      options?: HttpClientRequest.Options.NoBody
    ) => Effect.Effect<A, HttpFailure.HttpFailure, R>
  }
}

/**
 * Makes the service over the `HttpClient` in context; bad options fail with `InvalidRetryPolicy`.
 * A `ResilienceStore` in context (given to its layer) is the store of its calls, over theirs.
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
 * The service as a layer over the `HttpClient` in context, and over the `ResilienceStore` given
 * to it with `Layer.provide`, if any: that store is its calls' (docs/overload.md).
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
 * Makes any Effect 3 `HttpClient` resilient, as `HttpClient.retryTransient` does, its errors an
 * `HttpFailure`; bad options throw `InvalidRetryPolicy`.
 *
 * @since 0.2.0
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
 * A drop-in replacement for the `HttpClient` in context, resilient, with the platform's types; a
 * `ResilienceStore` given to it with `Layer.provide` is its calls' store.
 *
 * @since 0.2.0
 * @category layers
 */
export const layerHttpClient: {
  (
    policy: RetryPolicy.RetryPolicy | Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  ): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient>
  (policy?: PolicyInput): Layer.Layer<HttpClient.HttpClient, RetryPolicy.InvalidRetryPolicy, HttpClient.HttpClient>
} = internal.layerHttpClient

/**
 * One decision of a call: retry after a wait, give up, or (with `hedging`) send a hedge.
 *
 * @since 0.2.0
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
 * Calls `observer` with every decision the calls inside `self` take; observers nest.
 *
 * @since 0.2.0
 * @category observability
 */
export const observeDecisions: {
  (
    observer: (decision: Decision) => Effect.Effect<void>
  ): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, observer: (decision: Decision) => Effect.Effect<void>): Effect.Effect<A, E, R>
} = decisions.observeDecisions
