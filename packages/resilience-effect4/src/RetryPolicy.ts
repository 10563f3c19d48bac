// @generated from templates/src/RetryPolicy.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A retry policy: plain options, validated once, turned into an Effect `Schedule`. The options,
 * their checks and what is retried whatever they say: docs/retry-policy.md.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * // At most 3 attempts, waits of 500 ms then 1 s, none over 2 s; a Retry-After replaces the wait.
 * const policy = RetryPolicy.make({
 *   maxAttempts: 3,
 *   backoff: RetryPolicy.linear("500 millis"),
 *   maxDelay: "2 seconds",
 *   jitter: "none"
 * })
 * ```
 *
 * @since 0.1.0
 */
import type * as FailureMessage from "@effect-http-resilience/core/FailureMessage"
import type * as RetryAfterCore from "@effect-http-resilience/core/RetryAfter"
import * as RetryPolicyOptions from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import type * as Duration from "effect/Duration"
import type * as Result from "effect/Result"
import type * as Schedule from "effect/Schedule"
import type * as BodyIdleTimeout from "./BodyIdleTimeout.js"
import type * as CircuitBreaker from "./CircuitBreaker.js"
import type * as ConcurrencyLimit from "./ConcurrencyLimit.js"
import type * as Coalesce from "./Coalesce.js"
import type * as Hedging from "./Hedging.js"
import type * as HttpFailure from "./HttpFailure.js"
import type * as RateLimit from "./RateLimit.js"
import type * as RetryBudget from "./RetryBudget.js"
import * as retryAfterSchedule from "./internal/retryAfterSchedule.js"
import * as internal from "./internal/retryPolicy.js"

/**
 * The key that marks a {@link RetryPolicy}.
 *
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: typeof internal.TypeId = internal.TypeId

/**
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * How the wait grows between retries: {@link linear}, {@link exponential} or {@link constant}.
 *
 * @since 0.1.0
 * @category models
 */
export type Backoff =
  | { readonly _tag: "Linear"; readonly base: Duration.Input }
  | { readonly _tag: "Constant"; readonly base: Duration.Input }
  | { readonly _tag: "Exponential"; readonly base: Duration.Input; readonly factor: number }

/**
 * How a backoff v is randomised: `"none"` (v), `"full"` (0 to v), `"equal"` (v/2 to v) or
 * `"decorrelated"` (base to 3 × the previous wait), capped at `maxDelay`.
 *
 * @since 0.1.0
 * @category models
 */
export type Jitter = RetrySchedule.Jitter

/**
 * Whether a server's `Retry-After` replaces the backoff (`"respect"`) or not (`"ignore"`).
 *
 * @since 0.1.0
 * @category models
 */
export type RetryAfterMode = RetryPolicyOptions.RetryAfterMode

/**
 * Who a `429`'s `Retry-After` holds back: its origin (`"origin"`) or its call (`"call"`).
 *
 * @since 0.1.0
 * @category models
 */
export type RetryAfterScope = RetryPolicyOptions.RetryAfterScope

/**
 * What credentials in a URL become: an `Authorization: Basic` header (`"basic-auth"`), or a
 * failure, unsent (`"refuse"`).
 *
 * @since 0.1.0
 * @category models
 */
export type UrlCredentialsMode = RetryPolicyOptions.UrlCredentialsMode

/**
 * Which headers carry a vendor's retry hints, each a list of at most 4 names read in order (`[]` reads none):
 * `retryAfterMillis`, a wait in milliseconds read before `Retry-After` and capped as it is
 * [`["retry-after-ms"]`]; `shouldRetry`, `true` or `false`: `false` stops a retry, `true` retries a status the
 * policy would not, within the idempotency rules [`["x-should-retry", "stripe-should-retry"]`].
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryHintsOptions {
  readonly retryAfterMillis?: ReadonlyArray<string> | undefined
  readonly shouldRetry?: ReadonlyArray<string> | undefined
}

/**
 * The retry hints' header names resolved, lower case.
 *
 * @since 0.1.0
 * @category models
 */
export type RetryHints = RetryAfterCore.HintNames

/**
 * When a server asks for more than `maxDelay`: wait the cap (`"wait-max-delay"`) or stop (`"give-up"`).
 *
 * @since 0.1.0
 * @category models
 */
export type OverCapMode = RetryPolicyOptions.OverCapMode

/**
 * The options of a retry policy, each optional, its default in brackets; `null` is an error.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Attempts in all, the first included; a whole number, at least 1. [3] */
  readonly maxAttempts?: number | undefined
  /** How waits grow without a `Retry-After`. [`exponential("500 millis", 2)`: 500 ms, 1 s, 2 s …] */
  readonly backoff?: Backoff | undefined
  /** Cap on any single wait, jitter and `Retry-After` included; at least 1 millisecond. [30 seconds] */
  readonly maxDelay?: Duration.Input | undefined
  /** Randomisation of the computed backoff. [`"equal"`] */
  readonly jitter?: Jitter | undefined
  /** Whether a server's `Retry-After` replaces the backoff. [`"respect"`] */
  readonly retryAfter?: RetryAfterMode | undefined
  /** When `Retry-After` exceeds `maxDelay`: wait the cap and retry, or stop at once. [`"wait-max-delay"`] */
  readonly whenRetryAfterExceedsMaxDelay?: OverCapMode | undefined
  /** Who a `429`'s `Retry-After` holds back: every call to its origin, or its own call. [`"origin"`] */
  readonly retryAfterScope?: RetryAfterScope | undefined
  /** Which statuses are retried; a throw is a defect. [408, 429, 500, 502, 503, 504, 529] */
  readonly isTransientStatus?: ((status: number) => boolean) | undefined
  /** The headers of vendors' retry hints (`retry-after-ms`, `x-should-retry`): {@link RetryHintsOptions}. [those] */
  readonly retryHints?: RetryHintsOptions | undefined
  /**
   * Which connection failures of an attempt sent are retried, by `reason` and
   * `HttpFailure.causeCodes`; a throw is a defect. [{@link isDefaultTransientConnectionError}:
   * `"Transport"` and `"Timeout"`]
   */
  readonly isTransientConnectionError?: ((failure: HttpFailure.ConnectionError) => boolean) | undefined
  /** Retry POST and PATCH without a non-blank `Idempotency-Key` header. [false] */
  readonly retryNonIdempotent?: boolean | undefined
  /** Give up rather than start a wait that would end later than this after the first failure. [infinity] */
  readonly maxElapsed?: Duration.Input | "infinity" | undefined
  /** Time limit for one attempt to receive response headers; at least 1 millisecond. [10 seconds] */
  readonly attemptTimeout?: Duration.Input | "infinity" | undefined
  /** Time limit for the whole call, attempts and waits included; at least 1 millisecond. [30 seconds] */
  readonly totalTimeout?: Duration.Input | "infinity" | undefined
  /** The largest body `getJson` reads, in decoded bytes; a larger one is a `DecodeError`. [16 MiB] */
  readonly maxBodyBytes?: number | undefined
  /** What credentials in a request's URL become. [`"basic-auth"`] */
  readonly urlCredentials?: UrlCredentialsMode | undefined
  /** Each origin's retry budget, or `"none"`. [`RetryBudget.finagle()`: ratio 0.1, minPerSecond 10, ttl 10 s] */
  readonly retryBudget?: RetryBudget.Input | RetryBudget.RetryBudget.Service | undefined
  /** Hedged requests, paid from `retryBudget`: `Hedging.after` or `Hedging.percentile`. [off] */
  readonly hedging?: Hedging.Hedging | undefined
  /** Attempts in flight per origin: `ConcurrencyLimit.fixed` or `ConcurrencyLimit.adaptive`. [off] */
  readonly concurrencyLimit?: ConcurrencyLimit.ConcurrencyLimit | undefined
  /** A token bucket per origin or key, kept by the store: `RateLimit.make`. [off] */
  readonly rateLimit?: RateLimit.RateLimit | undefined
  /** What a server's rate-limit headers say, kept by the store: `RateLimit.fromHeaders`. [off] */
  readonly rateLimitHeaders?: RateLimit.FromHeaders | undefined
  /** A circuit breaker per origin, each attempt a sample: `CircuitBreaker.perOrigin`. [off] */
  readonly circuitBreaker?: CircuitBreaker.PerOrigin | undefined
  /** Concurrent identical GETs and HEADs share one call in flight: `Coalesce.identical`. [off] */
  readonly coalesce?: Coalesce.Coalesce | undefined
  /** How long a body being read may go without a byte: `BodyIdleTimeout.make`. [off] */
  readonly bodyIdleTimeout?: BodyIdleTimeout.BodyIdleTimeout | undefined
}

/**
 * A validated retry policy: every option resolved to its value or default.
 *
 * @since 0.1.0
 * @category models
 */
export interface RetryPolicy {
  readonly [TypeId]: TypeId
  readonly maxAttempts: number
  readonly backoff: RetryPolicyOptions.Backoff<Duration.Duration>
  readonly maxDelay: Duration.Duration
  readonly jitter: Jitter
  readonly retryAfter: RetryAfterMode
  readonly whenRetryAfterExceedsMaxDelay: OverCapMode
  readonly retryAfterScope: RetryAfterScope
  readonly isTransientStatus: (status: number) => boolean
  readonly retryHints: RetryHints
  readonly isTransientConnectionError: (failure: HttpFailure.ConnectionError) => boolean
  readonly retryNonIdempotent: boolean
  readonly maxElapsed: Duration.Duration
  readonly attemptTimeout: Duration.Duration
  readonly totalTimeout: Duration.Duration
  readonly maxBodyBytes: number
  readonly urlCredentials: UrlCredentialsMode
  /** `undefined`: no hedging. */
  readonly hedging: Hedging.Hedging | undefined
  /** `undefined`: no concurrency limit. */
  readonly concurrencyLimit: ConcurrencyLimit.ConcurrencyLimit | undefined
  /** `undefined`: no rate limit. */
  readonly rateLimit: RateLimit.RateLimit | undefined
  /** `undefined`: rate-limit headers are not read. */
  readonly rateLimitHeaders: RateLimit.FromHeaders | undefined
  readonly retryBudget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
  /** `undefined`: no circuit breaker. */
  readonly circuitBreaker: CircuitBreaker.PerOrigin | undefined
  /** `undefined`: nothing coalesced. */
  readonly coalesce: Coalesce.Coalesce | undefined
  /** `undefined`: no body idle timeout. */
  readonly bodyIdleTimeout: BodyIdleTimeout.BodyIdleTimeout | undefined
}

/**
 * A bad option: its `option`, `reason` and `value` as given.
 *
 * @since 0.1.0
 * @category errors
 */
export const InvalidRetryPolicy: typeof internal.InvalidRetryPolicy = internal.InvalidRetryPolicy

/**
 * @since 0.1.0
 * @category errors
 */
export type InvalidRetryPolicy = internal.InvalidRetryPolicy

/**
 * Why a call stopped retrying: the `giveUpReason` of the failure that ends it.
 *
 * @since 0.1.0
 * @category models
 */
export type GiveUpReason = FailureMessage.GiveUpReason

/**
 * Where a wait came from: the backoff, or the server's `Retry-After`.
 *
 * @since 0.1.0
 * @category models
 */
export type DelaySource = RetrySchedule.DelaySource

/**
 * What the schedule decided after the failure of `attempt` (1-based).
 *
 * @since 0.1.0
 * @category models
 */
export type RetryDecision =
  | {
      readonly _tag: "Retry"
      readonly attempt: number
      readonly delay: Duration.Duration
      readonly source: DelaySource
      /** Whether the wanted wait was cut down to `maxDelay`. */
      readonly capped: boolean
    }
  | { readonly _tag: "GiveUp"; readonly attempt: number; readonly reason: GiveUpReason }

/**
 * Waits `base`, `2 × base`, `3 × base` …
 *
 * @since 0.1.0
 * @category backoff
 */
export const linear: (base: Duration.Input) => Backoff = internal.linear

/**
 * Waits `base`, `base × factor`, `base × factor²` … (factor 2 by default).
 *
 * @since 0.1.0
 * @category backoff
 */
export const exponential: (base: Duration.Input, factor?: number) => Backoff = internal.exponential

/**
 * Waits `delay` every time.
 *
 * @since 0.1.0
 * @category backoff
 */
export const constant: (delay: Duration.Input) => Backoff = internal.constant

/**
 * The policy of the defaults ({@link Options}).
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaults: RetryPolicy = internal.defaultPolicy

/**
 * The default transient statuses: 408, 429, 500, 502, 503, 504, 529.
 *
 * @since 0.1.0
 * @category defaults
 */
export const isDefaultTransientStatus: (status: number) => boolean = RetryPolicyOptions.isDefaultTransientStatus

/**
 * The default transient connection failures: reasons `"Transport"` (the connection failed) and
 * `"Timeout"`. A failure held back unsent (an open circuit, a limit) is never retried.
 *
 * @since 0.1.0
 * @category defaults
 */
export const isDefaultTransientConnectionError: (failure: HttpFailure.ConnectionError) => boolean =
  RetryPolicyOptions.isDefaultTransientConnectionError

/**
 * Validates options into a policy; a bad option throws {@link InvalidRetryPolicy} ({@link validate} returns it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => RetryPolicy = internal.make

/**
 * Validates options into a policy, or the first bad option.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate: (options?: Options) => Result.Result<RetryPolicy, InvalidRetryPolicy> = internal.validate

/**
 * Whether a value is a validated {@link RetryPolicy}, not plain {@link Options}.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRetryPolicy: (u: unknown) => u is RetryPolicy = internal.isRetryPolicy

/**
 * The policy as a `Schedule` over failures: whether to retry each, and how long to wait.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSchedule: (policy: RetryPolicy) => Schedule.Schedule<RetryDecision, HttpFailure.HttpFailure> =
  internal.toSchedule

/**
 * A `Schedule` combinator: a server's `Retry-After` replaces its wait, every wait capped at
 * `maxDelay` [30 seconds]; a bad option throws {@link InvalidRetryPolicy}.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withRetryAfter: {
  (options?: {
    readonly maxDelay?: Duration.Input | undefined
    readonly whenRetryAfterExceedsMaxDelay?: OverCapMode | undefined
  }): <Out, E, R>(
    self: Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>
  ) => Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>
  <Out, E, R>(
    self: Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>,
    options?: {
      readonly maxDelay?: Duration.Input | undefined
      readonly whenRetryAfterExceedsMaxDelay?: OverCapMode | undefined
    }
  ): Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>
} = retryAfterSchedule.withRetryAfter
