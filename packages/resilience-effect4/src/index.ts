// @generated from templates/src/index.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Resilient HTTP calls for Effect 4 programs (`effect/http`): one namespace per module, also
 * importable on its own as `effect-http-resilience-effect4/<Module>`. The Effect 3 line is
 * `effect-http-resilience`; both share their Effect-free logic (`@effect-http-resilience/core`).
 * The fleet's store on Redis is an entry point of its own, `effect-http-resilience-effect4/redis`, which this one
 * never loads.
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
 * A circuit breaker per origin with Polly's sampling semantics: it rejects attempts at once
 * while an origin is failing, then lets one probe through. Built on Effect 4's own.
 *
 * @since 0.1.0
 * @category modules
 */
export * as CircuitBreaker from "./CircuitBreaker.js"

/**
 * The failures a resilient HTTP call can end with: a tagged union in the error channel.
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
 * Where overload state lives: per origin, the retry budget, the circuit breaker and the
 * `Retry-After` cool-down. One in-memory store per `Clock` (per process in production) unless a
 * layer provides another.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResilienceStore from "./ResilienceStore.js"

/**
 * What the library never writes out: user info and signing query parameters in URLs (Effect 4's
 * rules and names), wherever it writes a URL.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Redaction from "./Redaction.js"

/**
 * How long a server asks a client to wait: `Retry-After` and the rate-limit reset headers, as
 * `Duration`s.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryAfter from "./RetryAfter.js"

/**
 * A retry budget per origin, so that retries add only a bounded share to an origin's traffic
 * (Finagle's budget by default; gRPC's token bucket and the AWS quota as presets).
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
 * Testing code that calls HTTP APIs without a server: a scripted `HttpClient` that records when
 * each request was sent, for exact waits under `TestClock`.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Testing from "./Testing.js"
