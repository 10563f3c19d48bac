/**
 * The Effect-free building blocks of `effect-http-resilience` (Effect 3) and
 * `effect-http-resilience-effect4` (Effect 4): one copy of the logic both lines share, as plain
 * TypeScript over plain data and milliseconds. An internal package: no stability promise beyond
 * what the two libraries need; use one of them.
 *
 * @since 0.1.0
 */

/**
 * What a browser hides from a cross-origin call (CORS), said once per origin.
 *
 * @example
 * ```ts
 * import { BrowserHints } from "@effect-http-resilience/core"
 *
 * BrowserHints.pageOrigin() // undefined under Node
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as BrowserHints from "./BrowserHints.js"

/**
 * One call's decisions, with no I/O and no Effect: send (after how long, under which limit) or stop.
 *
 * @example
 * ```ts
 * import { CallMachine } from "@effect-http-resilience/core"
 *
 * const call = CallMachine.start(
 *   { attemptTimeoutMillis: 10_000, totalTimeoutMillis: 30_000, maxDelayMillis: 30_000, whenRetryAfterExceedsMaxDelay: "give-up" },
 *   0
 * )
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as CallMachine from "./CallMachine.js"

/**
 * Per-origin cool-downs after a `429` with `Retry-After`.
 *
 * @example
 * ```ts
 * import { CoolDown } from "@effect-http-resilience/core"
 *
 * const table = new CoolDown.CoolDownTable()
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as CoolDown from "./CoolDown.js"

/**
 * The circuit breaker state machine of one origin (Polly's sampling semantics).
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "@effect-http-resilience/core"
 *
 * const machine = new CircuitBreaker.CircuitBreakerMachine(CircuitBreaker.breakerDefaults)
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as CircuitBreaker from "./CircuitBreaker.js"

/**
 * The words a failed call is explained in.
 *
 * @example
 * ```ts
 * import { FailureMessage } from "@effect-http-resilience/core"
 *
 * const failure = { _tag: "PermanentStatus", request: { method: "GET", url: "/" }, attempt: 1, status: 404 } as const
 * FailureMessage.describeFailure(failure) // "GET /: status 404 on attempt 1"
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as FailureMessage from "./FailureMessage.js"

/**
 * One attempt's hedged copies as a machine: when the next copy goes, who wins, who is interrupted.
 *
 * @example
 * ```ts
 * import { HedgeRace } from "@effect-http-resilience/core"
 *
 * const [race, actions] = HedgeRace.start({ maxCopies: 2, delayMillis: 100 })
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as HedgeRace from "./HedgeRace.js"

/**
 * Hedged requests: the `hedging` option, per-origin latency windows, the delay before each copy.
 *
 * @example
 * ```ts
 * import { Hedging } from "@effect-http-resilience/core"
 *
 * console.log(Hedging.defaults.maxCopies) // 2
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as Hedging from "./Hedging.js"

/**
 * Which requests may be sent again.
 *
 * @example
 * ```ts
 * import { Idempotency } from "@effect-http-resilience/core"
 *
 * Idempotency.isIdempotent({ method: "DELETE", headers: {} }) // true
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as Idempotency from "./Idempotency.js"

/**
 * Origins as keys of per-origin state.
 *
 * @example
 * ```ts
 * import { Origin } from "@effect-http-resilience/core"
 *
 * Origin.originOf("http://localhost/health") // "http://localhost:80"
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as Origin from "./Origin.js"

/**
 * What a fleet shares through a store such as Redis: keys, scripts, batched deposits, health.
 *
 * @example
 * ```ts
 * import { SharedStore } from "@effect-http-resilience/core"
 *
 * SharedStore.keysFor("api").coolDowns // "{api}:cooldowns"
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as SharedStore from "./SharedStore.js"

/**
 * What is never written out: user info, signing query parameters, secret headers.
 *
 * @example
 * ```ts
 * import { Redaction } from "@effect-http-resilience/core"
 *
 * Redaction.redactUrl("http://u:p@host/", []) // "http://REDACTED:REDACTED@host/"
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as Redaction from "./Redaction.js"

/**
 * How much of a response body to read, and how.
 *
 * @example
 * ```ts
 * import { ResponseBody } from "@effect-http-resilience/core"
 *
 * ResponseBody.releasePlan({ "content-length": "10" }) // "read-whole"
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResponseBody from "./ResponseBody.js"

/**
 * `Retry-After` and rate-limit reset headers, in milliseconds.
 *
 * @example
 * ```ts
 * import { RetryAfter } from "@effect-http-resilience/core"
 *
 * RetryAfter.parse("120", Date.now()) // 120000
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryAfter from "./RetryAfter.js"

/**
 * Retry budget state machines of one origin (Finagle, gRPC A6, AWS quota).
 *
 * @example
 * ```ts
 * import { RetryBudget } from "@effect-http-resilience/core"
 *
 * const budget = RetryBudget.makeRetryBudgetState(RetryBudget.finagleDefaults, Date.now())
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryBudget from "./RetryBudget.js"

/**
 * Retry policy options checked over a library's own duration type.
 *
 * @example
 * ```ts
 * import { RetryPolicyOptions } from "@effect-http-resilience/core"
 *
 * RetryPolicyOptions.defaults.maxAttempts // 3
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryPolicyOptions from "./RetryPolicyOptions.js"

/**
 * What a retry policy decides after a failed attempt: backoff, jitter, cap, Retry-After.
 *
 * @example
 * ```ts
 * import { RetrySchedule } from "@effect-http-resilience/core"
 *
 * RetrySchedule.backoffMillis({ _tag: "Exponential", baseMillis: 500, factor: 2 }, 2) // 1000
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetrySchedule from "./RetrySchedule.js"

/**
 * A scripted HTTP transport's Effect-free parts: script steps, which step answers which request,
 * and the Web `Response` a step becomes.
 *
 * @example
 * ```ts
 * import { ScriptedTransport } from "@effect-http-resilience/core"
 *
 * ScriptedTransport.stepAt([{ status: 503 }, { status: 200 }], 3) // { status: 200 }
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as ScriptedTransport from "./ScriptedTransport.js"

/**
 * Checking option records and naming bad values.
 *
 * @example
 * ```ts
 * import { Settings } from "@effect-http-resilience/core"
 *
 * Settings.describeValue(Number.NaN) // "NaN"
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as Settings from "./Settings.js"

/**
 * The metrics both libraries report, their attributes, and a retry decision's span event.
 *
 * @example
 * ```ts
 * import { Telemetry } from "@effect-http-resilience/core"
 *
 * Telemetry.metrics.giveUps.name // "http.client.resilience.give_ups"
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as Telemetry from "./Telemetry.js"

/**
 * What a transport failure means for a retry.
 *
 * @example
 * ```ts
 * import { TransportFailure } from "@effect-http-resilience/core"
 *
 * TransportFailure.isUnrecoverableCause({ code: "CERT_HAS_EXPIRED" }) // true
 * ```
 *
 * @since 0.1.0
 * @category modules
 */
export * as TransportFailure from "./TransportFailure.js"

/**
 * Credentials in a URL as an `Authorization: Basic` header.
 *
 * @example
 * ```ts
 * import { UrlCredentials } from "@effect-http-resilience/core"
 *
 * UrlCredentials.fromUrl("http://u:p@host/")?._tag // "Basic"
 * ```
 *
 * @since 0.2.0
 * @category modules
 */
export * as UrlCredentials from "./UrlCredentials.js"
