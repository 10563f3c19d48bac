// @generated from templates/src/index.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Resilient HTTP calls for Effect 4 programs: one namespace per module, each also importable as
 * `effect-http-resilience-effect4/<Module>`; the Redis store is `effect-http-resilience-effect4/redis`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { FetchHttpClient, HttpClient } from "effect/http"
 * import { ResilientHttpClient } from "effect-http-resilience-effect4"
 *
 * const program = Effect.gen(function* () {
 *   const client = (yield* HttpClient.HttpClient).pipe(ResilientHttpClient.withResilience({ maxAttempts: 3 }))
 *   const response = yield* client.get("https://api.example.com/todos/1")
 *   return yield* response.json
 * }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer))
 * ```
 *
 * @since 0.1.0
 */

/**
 * A limit on how long a body being read may go without a byte.
 *
 * @since 0.1.0
 * @category modules
 */
export * as BodyIdleTimeout from "./BodyIdleTimeout.js"

/**
 * A circuit breaker per origin, with Polly's sampling semantics.
 *
 * @since 0.1.0
 * @category modules
 */
export * as CircuitBreaker from "./CircuitBreaker.js"

/**
 * A limit on attempts in flight per origin, fixed or adaptive.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ConcurrencyLimit from "./ConcurrencyLimit.js"

/**
 * Request coalescing: concurrent identical GETs share one call in flight.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Coalesce from "./Coalesce.js"

/**
 * Hedged requests: another copy of a slow attempt.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Hedging from "./Hedging.js"

/**
 * The failures a resilient HTTP call can end with.
 *
 * @since 0.1.0
 * @category modules
 */
export * as HttpFailure from "./HttpFailure.js"

/**
 * The resilient client: a combinator for any `HttpClient`, a drop-in layer, and a service.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResilientHttpClient from "./ResilientHttpClient.js"

/**
 * Where overload state lives: budgets, breakers and cool-downs per origin.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResilienceStore from "./ResilienceStore.js"

/**
 * What the library never writes out: credentials and secret query parameters in URLs.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Redaction from "./Redaction.js"

/**
 * A client-side rate limit, and what a server's rate-limit headers teach.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RateLimit from "./RateLimit.js"

/**
 * How long a server asks a client to wait: `Retry-After` and the rate-limit reset headers.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryAfter from "./RetryAfter.js"

/**
 * A retry budget per origin, so that retries add only a bounded share to its traffic.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryBudget from "./RetryBudget.js"

/**
 * Retry policies: plain options, validated once, turned into an Effect `Schedule`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryPolicy from "./RetryPolicy.js"

/**
 * A scripted `HttpClient` for tests, with exact waits under `TestClock`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Testing from "./Testing.js"
