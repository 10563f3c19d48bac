/**
 * The Effect-free logic both lines of `effect-http-resilience` share, over plain data and
 * milliseconds. An internal package, with no stability promise: use one of the libraries.
 *
 * @example
 * ```ts
 * import { RetryAfter } from "@effect-http-resilience/core"
 *
 * const now = Date.parse("Sun, 06 Nov 1994 08:49:30 GMT")
 * RetryAfter.parse("120", now) // 120000
 * RetryAfter.fromHeaders({ "x-ratelimit-reset": "30" }, now) // 30000
 * ```
 *
 * @since 0.1.0
 */

/**
 * What a browser hides from a cross-origin call (CORS), said once per origin.
 *
 * @since 0.2.0
 * @category modules
 */
export * as BrowserHints from "./BrowserHints.js"

/**
 * One call's decisions, with no I/O and no Effect: send (after how long, under which limit) or stop.
 *
 * @since 0.2.0
 * @category modules
 */
export * as CallMachine from "./CallMachine.js"

/**
 * A concurrency limit per origin: a bulkhead's permits and queue, and adaptive limits (AIMD, Gradient2) learnt from samples.
 *
 * @since 0.2.0
 * @category modules
 */
export * as ConcurrencyLimit from "./ConcurrencyLimit.js"

/**
 * Per-origin cool-downs after a `429` with `Retry-After`.
 *
 * @since 0.2.0
 * @category modules
 */
export * as CoolDown from "./CoolDown.js"

/**
 * The circuit breaker state machine of one origin (Polly's sampling semantics).
 *
 * @since 0.1.0
 * @category modules
 */
export * as CircuitBreaker from "./CircuitBreaker.js"

/**
 * Request coalescing: which requests may share one in flight, and the key that says which are the same.
 *
 * @since 0.3.0
 * @category modules
 */
export * as Coalesce from "./Coalesce.js"

/**
 * The words a failed call is explained in.
 *
 * @since 0.1.0
 * @category modules
 */
export * as FailureMessage from "./FailureMessage.js"

/**
 * One attempt's hedged copies as a machine: when the next copy goes, who wins, who is interrupted.
 *
 * @since 0.2.0
 * @category modules
 */
export * as HedgeRace from "./HedgeRace.js"

/**
 * Hedged requests: the `hedging` option, per-origin latency windows, the delay before each copy.
 *
 * @since 0.2.0
 * @category modules
 */
export * as Hedging from "./Hedging.js"

/**
 * Which requests may be sent again.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Idempotency from "./Idempotency.js"

/**
 * Origins as keys of per-origin state.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Origin from "./Origin.js"

/**
 * The remaining count a server announces, spent as a budget until its reset by calls in flight.
 *
 * @since 0.2.0
 * @category modules
 */
export * as RateLimitBudget from "./RateLimitBudget.js"

/**
 * The fleet's send times a process leased in batches from the shared rate-limit bucket, and Redis's clock read locally.
 *
 * @since 0.2.0
 * @category modules
 */
export * as RateLimitLease from "./RateLimitLease.js"

/**
 * A rate-limit key's sends, each counted until one window after its answer: no server window holds more than the limit.
 *
 * @since 0.2.0
 * @category modules
 */
export * as RateLimitLog from "./RateLimitLog.js"

/**
 * What a response announces of its rate limit: remaining requests and when the quota resets.
 *
 * @since 0.2.0
 * @category modules
 */
export * as RateLimitHeaders from "./RateLimitHeaders.js"

/**
 * What a fleet shares through a store such as Redis: keys, scripts, batched deposits, health.
 *
 * @since 0.2.0
 * @category modules
 */
export * as SharedStore from "./SharedStore.js"

/**
 * The rate-limit header fields' lists, read to a bound of members however many a response sends.
 *
 * @since 0.2.0
 * @category modules
 */
export * as StructuredField from "./StructuredField.js"

/**
 * What is never written out: user info, signing query parameters, secret headers.
 *
 * @since 0.2.0
 * @category modules
 */
export * as Redaction from "./Redaction.js"

/**
 * How much of a response body to read, and how.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ResponseBody from "./ResponseBody.js"

/**
 * `Retry-After` and rate-limit reset headers, in milliseconds.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryAfter from "./RetryAfter.js"

/**
 * Retry budget state machines of one origin (Finagle, gRPC A6, AWS quota).
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryBudget from "./RetryBudget.js"

/**
 * Retry policy options checked over a library's own duration type.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetryPolicyOptions from "./RetryPolicyOptions.js"

/**
 * What a retry policy decides after a failed attempt: backoff, jitter, cap, Retry-After.
 *
 * @since 0.1.0
 * @category modules
 */
export * as RetrySchedule from "./RetrySchedule.js"

/**
 * A scripted HTTP transport's Effect-free parts: script steps, which step answers which request,
 * and the Web `Response` a step becomes.
 *
 * @since 0.1.0
 * @category modules
 */
export * as ScriptedTransport from "./ScriptedTransport.js"

/**
 * Checking option records and naming bad values.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Settings from "./Settings.js"

/**
 * The metrics both libraries report, their attributes, and a retry decision's span event.
 *
 * @since 0.1.0
 * @category modules
 */
export * as Telemetry from "./Telemetry.js"

/**
 * A client-side rate limit as a token bucket in plain data, its arithmetic written to be ported to a store's script.
 *
 * @since 0.2.0
 * @category modules
 */
export * as TokenBucket from "./TokenBucket.js"

/**
 * What a transport failure means for a retry.
 *
 * @since 0.1.0
 * @category modules
 */
export * as TransportFailure from "./TransportFailure.js"

/**
 * Credentials in a URL as an `Authorization: Basic` header.
 *
 * @since 0.2.0
 * @category modules
 */
export * as UrlCredentials from "./UrlCredentials.js"
