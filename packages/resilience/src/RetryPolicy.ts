/**
 * A retry policy: plain options, validated once, turned into an Effect `Schedule` that alone
 * decides, for each failure, whether to retry and how long to wait.
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Either from "effect/Either"
import type * as Schedule from "effect/Schedule"
import type * as HttpFailure from "./HttpFailure.js"
import * as internal from "./internal/retryPolicy.js"

/**
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
 * How the wait grows from one retry to the next, before jitter and the `maxDelay` cap.
 * Build one with {@link linear}, {@link exponential} or {@link constant}.
 *
 * @since 0.1.0
 * @category models
 */
export type Backoff =
  | { readonly _tag: "Linear"; readonly base: Duration.DurationInput }
  | { readonly _tag: "Constant"; readonly base: Duration.DurationInput }
  | { readonly _tag: "Exponential"; readonly base: Duration.DurationInput; readonly factor: number }

/**
 * How a computed backoff is randomised so that many clients do not retry in lock-step
 * (base b, cap c, computed backoff v):
 *
 * - `"none"`: exactly v.
 * - `"full"`: uniform in [0, min(c, v)].
 * - `"equal"` (default): uniform in [min(c, v)/2, min(c, v)]: spreads clients while always
 *   waiting at least half the backoff, so a lone client never hammers a struggling server.
 * - `"decorrelated"`: min(c, uniform in [b, 3 × previous wait]).
 *
 * A server's `Retry-After` is never jittered: the server chose that time.
 *
 * @since 0.1.0
 * @category models
 */
export type Jitter = "none" | "full" | "equal" | "decorrelated"

/**
 * @since 0.1.0
 * @category models
 */
export type RetryAfterMode = "respect" | "ignore"

/**
 * @since 0.1.0
 * @category models
 */
export type OverCapMode = "wait-max-delay" | "give-up"

/**
 * The options of a retry policy. Every one is optional; the defaults are in brackets.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Attempts in all, the first included: 3 means at most 2 retries, 1 means none. [3] */
  readonly maxAttempts?: number | undefined
  /** How waits grow without a `Retry-After`. [`exponential("500 millis", 2)`: 500 ms, 1 s, 2 s …] */
  readonly backoff?: Backoff | undefined
  /** Cap on any single wait, jitter and `Retry-After` included. [30 seconds] */
  readonly maxDelay?: Duration.DurationInput | undefined
  /** Randomisation of the computed backoff. [`"equal"`] */
  readonly jitter?: Jitter | undefined
  /** `"respect"`: a server's `Retry-After` (or rate-limit reset) replaces the backoff. [`"respect"`] */
  readonly retryAfter?: RetryAfterMode | undefined
  /** When `Retry-After` exceeds `maxDelay`: wait the cap and retry, or stop at once. [`"wait-max-delay"`] */
  readonly whenRetryAfterExceedsMaxDelay?: OverCapMode | undefined
  /** Which statuses are transient; replaces the default set. [408, 429, 500, 502, 503, 504] */
  readonly isTransientStatus?: ((status: number) => boolean) | undefined
  /** Retry POST and PATCH even without an `Idempotency-Key` header. [false] */
  readonly retryNonIdempotent?: boolean | undefined
  /** Give up rather than start a wait that would end later than this after the first failure. [infinity] */
  readonly maxElapsed?: Duration.DurationInput | undefined
  /** Time limit for one attempt to receive response headers; `"infinity"` disables it. [10 seconds] */
  readonly attemptTimeout?: Duration.DurationInput | undefined
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
  readonly backoff: Backoff
  readonly maxDelay: Duration.Duration
  readonly jitter: Jitter
  readonly retryAfter: RetryAfterMode
  readonly whenRetryAfterExceedsMaxDelay: OverCapMode
  readonly isTransientStatus: (status: number) => boolean
  readonly retryNonIdempotent: boolean
  readonly maxElapsed: Duration.Duration
  readonly attemptTimeout: Duration.Duration
}

/**
 * A bad option, named with the reason: `maxAttempts` below 1 or not whole, a negative or
 * non-finite duration, an exponential factor below 1, an unknown option name or choice.
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
 * Why the schedule stopped.
 *
 * @since 0.1.0
 * @category models
 */
export type GiveUpReason =
  | "not-retryable"
  | "not-idempotent"
  | "one-shot-body"
  | "attempts-exhausted"
  | "retry-after-exceeds-max-delay"
  | "deadline-exceeded"

/**
 * Where a wait came from: the policy's backoff, or the server's `Retry-After`.
 *
 * @since 0.1.0
 * @category models
 */
export type DelaySource = "backoff" | "retry-after"

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
 * Waits `base`, `2 × base`, `3 × base` … (the seed client's 500 ms, 1000 ms).
 *
 * @since 0.1.0
 * @category backoff
 */
export const linear: (base: Duration.DurationInput) => Backoff = internal.linear

/**
 * Waits `base`, `base × factor`, `base × factor²` … (factor 2 by default).
 *
 * @since 0.1.0
 * @category backoff
 */
export const exponential: (base: Duration.DurationInput, factor?: number) => Backoff = internal.exponential

/**
 * Waits `delay` every time.
 *
 * @since 0.1.0
 * @category backoff
 */
export const constant: (delay: Duration.DurationInput) => Backoff = internal.constant

/**
 * The defaults of every option, as documented on {@link Options}.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaults: RetryPolicy = internal.defaultPolicy

/**
 * The default transient statuses: 408, 429, 500, 502, 503, 504.
 *
 * @since 0.1.0
 * @category defaults
 */
export const isDefaultTransientStatus: (status: number) => boolean = internal.isDefaultTransientStatus

/**
 * Validates options into a policy. A bad option throws {@link InvalidRetryPolicy}: it is a
 * programmer error, as `Duration.decode` throws on bad input. Use {@link validate} to get it
 * as a value instead.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience"
 *
 * const policy = RetryPolicy.make({
 *   maxAttempts: 3,
 *   backoff: RetryPolicy.linear("500 millis"),
 *   jitter: "none"
 * })
 * ```
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
export const validate: (options?: Options) => Either.Either<RetryPolicy, InvalidRetryPolicy> = internal.validate

/**
 * @since 0.1.0
 * @category guards
 */
export const isRetryPolicy: (u: unknown) => u is RetryPolicy = internal.isRetryPolicy

/**
 * The policy as a `Schedule` over failures. For each failure it decides: retry only a
 * transport failure, a timeout or a transient status; only for an idempotent method (GET,
 * HEAD, OPTIONS, TRACE, PUT, DELETE) or a request with an `Idempotency-Key` header, unless
 * `retryNonIdempotent`; never a one-shot streamed body; never beyond `maxAttempts` or
 * `maxElapsed`. The wait is the server's `Retry-After` when respected, otherwise the jittered
 * backoff, and never more than `maxDelay`. Random draws come from Effect's `Random` service,
 * so tests can fix them.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { HttpFailure, RetryPolicy } from "effect-http-resilience"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 *
 * const resilient = Effect.retry(call, RetryPolicy.toSchedule(RetryPolicy.make({ maxAttempts: 5 })))
 * ```
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSchedule: (policy: RetryPolicy) => Schedule.Schedule<RetryDecision, HttpFailure.HttpFailure> =
  internal.toSchedule
