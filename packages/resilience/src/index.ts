/**
 * Resilient HTTP calls for Effect programs: one namespace per module, also importable on its own
 * as `effect-http-resilience/<Module>`.
 *
 * @since 0.1.0
 */

/**
 * The failures a resilient HTTP call can end with: a tagged union in the error channel.
 *
 * @example
 * ```ts
 * import { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 * console.log(failure._tag, failure.attempt)
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as HttpFailure from "./HttpFailure.js"

/**
 * The HTTP client service that retries what is worth retrying, as a tag, a constructor and a layer.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience"
 *
 * const HttpLive = ResilientHttpClient.layer({ maxAttempts: 3 }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResilientHttpClient from "./ResilientHttpClient.js"

/**
 * Reading how long a server asks a client to wait: `Retry-After` and the rate-limit reset headers.
 *
 * @example
 * ```ts
 * import { RetryAfter } from "effect-http-resilience"
 *
 * RetryAfter.parse("120", Date.now()) // Some(2 minutes)
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryAfter from "./RetryAfter.js"

/**
 * Retry policies: plain options, validated once, turned into an Effect `Schedule`.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience"
 *
 * const policy = RetryPolicy.make({ maxAttempts: 3, backoff: RetryPolicy.linear("500 millis") })
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryPolicy from "./RetryPolicy.js"
