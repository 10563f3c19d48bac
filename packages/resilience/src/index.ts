// @generated from templates/src/index.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Resilient HTTP calls for Effect programs: one namespace per module, also importable on its own
 * as `effect-http-resilience/<Module>`.
 *
 * @since 0.1.0
 */

/**
 * A circuit breaker per origin with Polly's sampling semantics: it rejects attempts at once
 * while an origin is failing, then lets one probe through.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "effect-http-resilience"
 *
 * const BreakerLive = CircuitBreaker.layer({ breakDuration: "10 seconds" })
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as CircuitBreaker from "./CircuitBreaker.js"

/**
 * The failures a resilient HTTP call can end with: a tagged union in the error channel.
 *
 * @example
 * ```ts
 * import type { HttpFailure } from "effect-http-resilience"
 *
 * declare const failure: HttpFailure.HttpFailure
 * console.log(failure._tag, failure.attempt, failure.message)
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as HttpFailure from "./HttpFailure.js"

/**
 * The resilient client: a combinator for any `HttpClient`, a drop-in layer, and a service.
 *
 * @example
 * ```ts
 * import { NodeHttpClient } from "@effect/platform-node"
 * import { Layer } from "effect"
 * import { ResilientHttpClient } from "effect-http-resilience"
 *
 * const HttpLive = ResilientHttpClient.layerHttpClient({ maxAttempts: 3 }).pipe(Layer.provide(NodeHttpClient.layerUndici))
 * ```
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
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { ResilienceStore } from "effect-http-resilience"
 *
 * declare const program: Effect.Effect<void>
 * const isolated = program.pipe(Effect.provide(ResilienceStore.layerMemory()))
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as ResilienceStore from "./ResilienceStore.js"

/**
 * What the library never writes out: user info and signing query parameters in URLs (Effect 4's
 * rules and names), wherever it writes a URL.
 *
 * @example
 * ```ts
 * import { Redaction } from "effect-http-resilience"
 *
 * Redaction.redactUrl("https://user:pw@host/x") // "https://REDACTED:REDACTED@host/x"
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as Redaction from "./Redaction.js"

/**
 * How long a server asks a client to wait: `Retry-After` and the rate-limit reset headers, as
 * `Duration`s.
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
 * A retry budget per origin, so that retries add only a bounded share to an origin's traffic
 * (Finagle's budget by default; gRPC's token bucket and the AWS quota as presets).
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience"
 *
 * const BudgetLive = RetryBudget.layer({ ratio: 0.1 })
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as RetryBudget from "./RetryBudget.js"

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

/**
 * Testing code that calls HTTP APIs without a server: a scripted `HttpClient` that records when
 * each request was sent, for exact waits under `TestClock`.
 *
 * @example
 * ```ts
 * import { Testing } from "effect-http-resilience"
 *
 * const scripted = Testing.scriptedHttpClient([{ status: 503, headers: { "retry-after": "2" } }, { status: 200 }])
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as Testing from "./Testing.js"
