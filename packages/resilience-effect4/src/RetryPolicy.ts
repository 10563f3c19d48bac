/**
 * A retry policy: plain options, validated once, turned into an Effect `Schedule` that alone
 * decides, for each failure, whether to retry and how long to wait. The options, their
 * defaults and the decisions are the same as the Effect 3 line's (the shared core makes them).
 *
 * @since 0.1.0
 */
import type * as FailureMessage from "@effect-http-resilience/core/FailureMessage"
import type * as RetryPolicyOptions from "@effect-http-resilience/core/RetryPolicyOptions"
import { isDefaultTransientStatus as coreIsDefaultTransientStatus } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import type * as Duration from "effect/Duration"
import type * as Result from "effect/Result"
import type * as Schedule from "effect/Schedule"
import type * as CircuitBreaker from "./CircuitBreaker.js"
import type * as HttpFailure from "./HttpFailure.js"
import * as retryAfterSchedule from "./internal/retryAfterSchedule.js"
import * as internal from "./internal/retryPolicy.js"
import type * as RetryBudget from "./RetryBudget.js"

/**
 * The key every {@link RetryPolicy} carries, by which {@link isRetryPolicy} recognises one.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const isPolicy = RetryPolicy.TypeId in RetryPolicy.make()
 * ```
 *
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: typeof internal.TypeId = internal.TypeId

/**
 * The type of {@link TypeId}.
 *
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * How the wait grows from one retry to the next, before jitter and the `maxDelay` cap: build
 * one with {@link linear}, {@link exponential} or {@link constant}.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const backoff: RetryPolicy.Backoff = RetryPolicy.exponential("200 millis", 3) // 200 ms, 600 ms, 1.8 s …
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type Backoff =
  | { readonly _tag: "Linear"; readonly base: Duration.Input }
  | { readonly _tag: "Constant"; readonly base: Duration.Input }
  | { readonly _tag: "Exponential"; readonly base: Duration.Input; readonly factor: number }

/**
 * How a computed backoff is randomised (base b, cap c, computed backoff v): `"none"` exactly
 * v; `"full"` uniform in [0, min(c, v)]; `"equal"` (default) uniform in [min(c, v)/2, min(c, v)];
 * `"decorrelated"` min(c, uniform in [b, 3 × previous wait]). A server's `Retry-After` is never
 * jittered.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ jitter: "full" })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type Jitter = RetrySchedule.Jitter

/**
 * Whether a server's `Retry-After` (or rate-limit reset) replaces the backoff.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ retryAfter: "ignore" })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type RetryAfterMode = RetryPolicyOptions.RetryAfterMode

/**
 * When a server asks for a wait longer than `maxDelay`: wait the cap and retry, or stop at once.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ maxDelay: "5 seconds", whenRetryAfterExceedsMaxDelay: "give-up" })
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type OverCapMode = RetryPolicyOptions.OverCapMode

/**
 * The options of a retry policy; every one optional, defaults in brackets. A plain object only
 * (`null` for an option is an error: leave it out for its default). Durations take any
 * `Duration.Input`; NaN and negative durations are refused; a limit or cap that must be
 * positive must be at least 1 millisecond.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const options: RetryPolicy.Options = {
 *   maxAttempts: 5,
 *   backoff: RetryPolicy.exponential("250 millis"),
 *   maxDelay: "10 seconds",
 *   isTransientStatus: (status) => status === 429 || status >= 500
 * }
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Attempts in all, the first included: 3 means at most 2 retries. A whole number. [3] */
  readonly maxAttempts?: number | undefined
  /** How waits grow without a `Retry-After`. [`exponential("500 millis", 2)`: 500 ms, 1 s, 2 s …] */
  readonly backoff?: Backoff | undefined
  /** Cap on any single wait, jitter and `Retry-After` included; finite, at least 1 millisecond. [30 seconds] */
  readonly maxDelay?: Duration.Input | undefined
  /** Randomisation of the computed backoff. [`"equal"`] */
  readonly jitter?: Jitter | undefined
  /** `"respect"`: a server's `Retry-After` (or rate-limit reset) replaces the backoff. [`"respect"`] */
  readonly retryAfter?: RetryAfterMode | undefined
  /** When `Retry-After` exceeds `maxDelay`: wait the cap and retry, or stop at once. [`"wait-max-delay"`] */
  readonly whenRetryAfterExceedsMaxDelay?: OverCapMode | undefined
  /**
   * Which statuses are transient; replaces the default set. A predicate that throws is a bug: the
   * call dies with an `IsTransientStatusError` naming the status. [408, 429, 500, 502, 503, 504]
   */
  readonly isTransientStatus?: ((status: number) => boolean) | undefined
  /** Retry POST and PATCH even without an `Idempotency-Key` header. [false] */
  readonly retryNonIdempotent?: boolean | undefined
  /** Give up rather than start a wait that would end later than this after the first failure. [infinity] */
  readonly maxElapsed?: Duration.Input | "infinity" | undefined
  /** Time limit for one attempt; `"infinity"` disables it. [10 seconds] */
  readonly attemptTimeout?: Duration.Input | "infinity" | undefined
  /**
   * Time limit for the whole call, every attempt and wait included: a wait that would end past
   * it is not started, and an attempt's limit is cut to what remains. [30 seconds, as Polly]
   */
  readonly totalTimeout?: Duration.Input | "infinity" | undefined
  /** The largest body `getJson` reads; a larger one is a `DecodeError` (`BodyTooLarge`). [16 MiB] */
  readonly maxBodyBytes?: number | undefined
  /**
   * The retry budget of each origin, shared by every call through one client: a refused retry
   * ends the call at once (`"retry-budget-exhausted"`). Options, a strategy, `"none"`, or a
   * `RetryBudget` service to share one. [`RetryBudget.finagle()`: ratio 0.1, 10/s floor, ttl 10 s]
   */
  readonly retryBudget?: RetryBudget.Input | RetryBudget.RetryBudget.Service | undefined
  /**
   * A circuit breaker per origin, inside the retry: an open circuit ends the call at once
   * (`"circuit-open"`). Its options, `"none"`, or a `CircuitBreaker` service to share one. [`"none"`]
   */
  readonly circuitBreaker?: CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service | "none" | undefined
}

/**
 * A validated retry policy: every option resolved to its value or default.
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ maxDelay: "2 seconds" })
 * console.log(policy.maxAttempts, Duration.toMillis(policy.maxDelay)) // 3 2000
 * ```
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
  readonly isTransientStatus: (status: number) => boolean
  readonly retryNonIdempotent: boolean
  readonly maxElapsed: Duration.Duration
  readonly attemptTimeout: Duration.Duration
  readonly totalTimeout: Duration.Duration
  readonly maxBodyBytes: number
  readonly retryBudget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
  readonly circuitBreaker: CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service | "none"
}

/**
 * A bad option, named with the reason and the value as given (`NaN`, `Infinity`, `10n`, `the
 * function f`, never JSON's `null` for them).
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * try {
 *   RetryPolicy.make({ maxAttempts: 0 })
 * } catch (error) {
 *   if (error instanceof RetryPolicy.InvalidRetryPolicy) console.log(error.option) // "maxAttempts"
 * }
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export const InvalidRetryPolicy: typeof internal.InvalidRetryPolicy = internal.InvalidRetryPolicy

/**
 * The type of an {@link InvalidRetryPolicy} error: the `option`, the `reason` and the `value` given.
 *
 * @since 0.1.0
 * @category errors
 */
export type InvalidRetryPolicy = internal.InvalidRetryPolicy

/**
 * Why a call stopped retrying: carried by the failure that ends it (`giveUpReason`) and said
 * in words in that failure's `message` (the same reasons and words on both lines of this
 * library). `"not-retryable"`: a permanent status, a decode error, an invalid request or an
 * unrecoverable transport failure; `"not-idempotent"`: POST or PATCH without an
 * `Idempotency-Key`; `"one-shot-body"`: a body the first attempt consumed;
 * `"attempts-exhausted"`: `maxAttempts` reached (or a custom schedule ended);
 * `"retry-after-exceeds-max-delay"`: `Retry-After` over `maxDelay` under "give-up";
 * `"deadline-exceeded"`: the next wait would end past `totalTimeout` or `maxElapsed`;
 * `"retry-budget-exhausted"`: the origin's retry budget refused the retry; `"circuit-open"`: the
 * origin's circuit breaker is open.
 *
 * @example
 * ```ts
 * import type { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const overloaded = (reason: RetryPolicy.GiveUpReason): boolean =>
 *   reason === "retry-budget-exhausted" || reason === "circuit-open"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type GiveUpReason = FailureMessage.GiveUpReason

/**
 * Where a wait came from: the policy's backoff, or the server's `Retry-After`.
 *
 * @example
 * ```ts
 * import type { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const label = (source: RetryPolicy.DelaySource): string => (source === "retry-after" ? "server" : "client")
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type DelaySource = RetrySchedule.DelaySource

/**
 * What the schedule decided after the failure of `attempt` (1-based).
 *
 * @example
 * ```ts
 * import { Duration } from "effect"
 * import type { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const describe = (decision: RetryPolicy.RetryDecision): string =>
 *   decision._tag === "Retry" ? `retry in ${Duration.format(decision.delay)}` : `give up: ${decision.reason}`
 * ```
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
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ backoff: RetryPolicy.linear("500 millis"), jitter: "none" })
 * ```
 *
 * @since 0.1.0
 * @category backoff
 */
export const linear: (base: Duration.Input) => Backoff = internal.linear

/**
 * Waits `base`, `base × factor`, `base × factor²` … (factor 2 by default).
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ backoff: RetryPolicy.exponential("100 millis", 3) })
 * ```
 *
 * @since 0.1.0
 * @category backoff
 */
export const exponential: (base: Duration.Input, factor?: number) => Backoff = internal.exponential

/**
 * Waits `delay` every time.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ backoff: RetryPolicy.constant("1 second") })
 * ```
 *
 * @since 0.1.0
 * @category backoff
 */
export const constant: (delay: Duration.Input) => Backoff = internal.constant

/**
 * The defaults of every option.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * console.log(RetryPolicy.defaults.maxAttempts, RetryPolicy.defaults.jitter) // 3 "equal"
 * ```
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaults: RetryPolicy = internal.defaultPolicy

/**
 * The default transient statuses: 408, 429, 500, 502, 503, 504.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({
 *   isTransientStatus: (status) => RetryPolicy.isDefaultTransientStatus(status) || status === 520
 * })
 * ```
 *
 * @since 0.1.0
 * @category defaults
 */
export const isDefaultTransientStatus: (status: number) => boolean = coreIsDefaultTransientStatus

/**
 * Validates options into a policy; a bad option throws {@link InvalidRetryPolicy} (a programmer
 * error, as `Duration.fromInputUnsafe` throws). Use {@link validate} to get it as a value.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const policy = RetryPolicy.make({ maxAttempts: 3, backoff: RetryPolicy.linear("500 millis"), jitter: "none" })
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (options?: Options) => RetryPolicy = internal.make

/**
 * Validates options into a policy, or the first bad option.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const result = RetryPolicy.validate({ maxAttempts: 2.5 })
 * if (Result.isFailure(result)) console.log(result.failure.message)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate: (options?: Options) => Result.Result<RetryPolicy, InvalidRetryPolicy> = internal.validate

/**
 * Whether a value is a validated {@link RetryPolicy}.
 *
 * @example
 * ```ts
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * RetryPolicy.isRetryPolicy(RetryPolicy.make()) // true
 * RetryPolicy.isRetryPolicy({ maxAttempts: 3 }) // false
 * ```
 *
 * @since 0.1.0
 * @category guards
 */
export const isRetryPolicy: (u: unknown) => u is RetryPolicy = internal.isRetryPolicy

/**
 * The policy as a `Schedule` over failures (built with `Schedule.fromStep`): it retries only a
 * transport failure, a timeout or a transient status; only an idempotent request (or one with
 * an `Idempotency-Key`), unless `retryNonIdempotent`; never a one-shot body; never beyond
 * `maxAttempts` or `maxElapsed`. The wait is the server's `Retry-After` when respected, else the
 * jittered backoff, never more than `maxDelay`. The jitter draws from Effect's `Random`.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { type HttpFailure, RetryPolicy } from "effect-http-resilience-effect4"
 *
 * declare const call: Effect.Effect<string, HttpFailure.HttpFailure>
 * const resilient = Effect.retry(call, RetryPolicy.toSchedule(RetryPolicy.make({ maxAttempts: 5 })))
 * ```
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSchedule: (policy: RetryPolicy) => Schedule.Schedule<RetryDecision, HttpFailure.HttpFailure> =
  internal.toSchedule

/**
 * A `Schedule` combinator: the server's `Retry-After` (or rate-limit reset, on a 429) replaces
 * the wrapped schedule's wait, and every wait is capped at `maxDelay` [30 seconds]; over the
 * cap it waits the cap or, with `whenRetryAfterExceedsMaxDelay: "give-up"`, stops the schedule.
 * A bad option throws {@link InvalidRetryPolicy}.
 *
 * @example
 * ```ts
 * import { Schedule } from "effect"
 * import { RetryPolicy } from "effect-http-resilience-effect4"
 *
 * const schedule = Schedule.exponential("100 millis").pipe(
 *   Schedule.upTo({ times: 5 }),
 *   RetryPolicy.withRetryAfter({ maxDelay: "10 seconds", whenRetryAfterExceedsMaxDelay: "give-up" })
 * )
 * ```
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
