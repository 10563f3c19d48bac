// @generated from templates/src/RetryPolicy.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A retry policy: plain options, validated once, turned into an Effect `Schedule` that alone
 * decides, for each failure, whether to retry and how long to wait.
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
import type * as HedgingCore from "@effect-http-resilience/core/Hedging"
import type * as RateLimitHeadersCore from "@effect-http-resilience/core/RateLimitHeaders"
import * as RetryPolicyOptions from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import type * as TokenBucket from "@effect-http-resilience/core/TokenBucket"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Duration from "effect/Duration"
import type * as Result from "effect/Result"
import type * as Schedule from "effect/Schedule"
import type * as CircuitBreaker from "./CircuitBreaker.js"
import type * as HttpFailure from "./HttpFailure.js"
import type * as RetryBudget from "./RetryBudget.js"
import * as retryAfterSchedule from "./internal/retryAfterSchedule.js"
import * as internal from "./internal/retryPolicy.js"

/**
 * The key every {@link RetryPolicy} carries, by which {@link isRetryPolicy} recognises one.
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
 * How the wait grows from one retry to the next, before jitter and the `maxDelay` cap.
 * Build one with {@link linear}, {@link exponential} or {@link constant}.
 *
 * @since 0.1.0
 * @category models
 */
export type Backoff =
  | { readonly _tag: "Linear"; readonly base: Duration.Input }
  | { readonly _tag: "Constant"; readonly base: Duration.Input }
  | { readonly _tag: "Exponential"; readonly base: Duration.Input; readonly factor: number }

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
export type Jitter = RetrySchedule.Jitter

/**
 * Whether a server's `Retry-After` (or rate-limit reset) replaces the backoff (`"respect"`) or is
 * ignored (`"ignore"`).
 *
 * @since 0.1.0
 * @category models
 */
export type RetryAfterMode = RetryPolicyOptions.RetryAfterMode

/**
 * Who a `429`'s `Retry-After` holds back: every call to its origin that shares the store
 * (`"origin"`), or only the call that received it (`"call"`).
 *
 * @since 0.1.0
 * @category models
 */
export type RetryAfterScope = RetryPolicyOptions.RetryAfterScope

/**
 * What a request whose URL carries credentials (`http://user:password@host/`) becomes:
 * `"basic-auth"`, an `Authorization: Basic` header of the percent-decoded user and password
 * (unless the request has an `Authorization` header already), sent to the URL without them;
 * `"refuse"`, not sent: the call fails with a `ConnectionError` `"InvalidRequest"` whose cause
 * is `HttpFailure.UrlCredentialsRefused`.
 *
 * @since 0.1.0
 * @category models
 */
export type UrlCredentialsMode = RetryPolicyOptions.UrlCredentialsMode

/**
 * What to do when a server asks for a wait longer than `maxDelay`: wait the cap and retry
 * (`"wait-max-delay"`), or stop at once and hand back that failure (`"give-up"`).
 *
 * @since 0.1.0
 * @category models
 */
export type OverCapMode = RetryPolicyOptions.OverCapMode

/**
 * A hedging delay learnt per origin: the latency at `percentile` (above 0, at most 100) of the
 * origin's calls over the last 30 s (within 1/32), never below `floor`, and `fallback` until the
 * origin has 20 samples. [floor: 1 millisecond, as Finagle's; fallback: 2 seconds, as Polly's]
 *
 * @since 0.1.0
 * @category models
 */
export interface PercentileDelay {
  readonly percentile: number
  readonly floor?: Duration.Input | undefined
  readonly fallback?: Duration.Input | undefined
}

/**
 * Hedged requests: while an attempt of an idempotent request with a body that can be sent again
 * has not answered after `delay`, another copy goes out, paid from the origin's retry budget;
 * the first acceptable response wins and the other copies are interrupted (their requests
 * aborted, any response released). Each further copy goes `delay` after the previous one, up to
 * `maxCopies` in flight, the first included (a whole number from 1 to 5). [maxCopies: 2]
 *
 * @since 0.1.0
 * @category models
 */
export interface HedgingOptions {
  readonly delay: Duration.Input | PercentileDelay
  readonly maxCopies?: number | undefined
}

/**
 * The `hedging` option resolved: at most `maxCopies` copies, and the delay in milliseconds,
 * fixed or learnt.
 *
 * @since 0.1.0
 * @category models
 */
export type HedgingSettings = HedgingCore.Resolved

/**
 * A client-side rate limit: at most `limit` attempts per `window` (a token bucket, refilled
 * continuously, starting full: a burst of `limit` goes at once), per origin, or per `key`: a name
 * (one bucket for every origin the policy calls: an API key's quota) or a function of the request.
 * `limit`: 1 to 1,000,000; `window`: 1 ms to 1 day; a key: 1 to 256 characters. See docs/limits.md.
 *
 * @since 0.1.0
 * @category models
 */
export interface RateLimitOptions {
  readonly limit: number
  readonly window: Duration.Input
  readonly key?: string | ((request: HttpClientRequest.HttpClientRequest) => string) | undefined
}

/**
 * The `rateLimit` option resolved: the limit, the window in milliseconds, whose bucket, and the
 * key function when the key is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface RateLimitSettings extends TokenBucket.Resolved {
  readonly keyOf: ((request: HttpClientRequest.HttpClientRequest) => string) | undefined
}

/**
 * Rate-limit headers read besides the standard ones (`RateLimit`/`RateLimit-Policy`, the earlier
 * drafts' `RateLimit-Remaining`/`RateLimit-Reset`, `X-RateLimit-Remaining`/`X-RateLimit-Reset`):
 * at most 8 sets of a server's own names, `reset` read as seconds or a Unix time.
 *
 * @since 0.1.0
 * @category models
 */
export interface RateLimitHeadersOptions {
  readonly extra?: ReadonlyArray<RateLimitHeadersCore.HeaderNames> | undefined
}

/**
 * The `rateLimitHeaders` option resolved: the extra header names, lower case.
 *
 * @since 0.1.0
 * @category models
 */
export type RateLimitHeadersSettings = RateLimitHeadersCore.Resolved

/**
 * The options of a retry policy. Every one is optional; the defaults are in brackets.
 *
 * The record must be a plain object (an array, a `Map`, a `Date` or a class instance is an
 * {@link InvalidRetryPolicy} for `"options"`). Leaving an option out, or giving `undefined`,
 * means its default; `null` is an error ("must not be null: omit the option for its default"),
 * since a null read from a configuration is more likely a mistake than a wish for the default.
 *
 * Durations take any `Duration.Input`. NaN anywhere in one is "is not a duration", never
 * read as zero; a negative one is refused. Timers count whole milliseconds, so a limit or cap
 * that must be positive (`maxDelay`, `attemptTimeout`, `totalTimeout`) must be at least
 * 1 millisecond: `"1 nanos"` would act as zero. `maxElapsed` and `backoff`'s base may be zero or
 * shorter than a millisecond; waits are rounded to whole milliseconds.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Attempts in all, the first included: 3 means at most 2 retries, 1 means none. A whole number. [3] */
  readonly maxAttempts?: number | undefined
  /** How waits grow without a `Retry-After`. [`exponential("500 millis", 2)`: 500 ms, 1 s, 2 s …] */
  readonly backoff?: Backoff | undefined
  /**
   * Cap on any single wait, jitter and `Retry-After` included; finite, at least 1 millisecond.
   * Zero is an error, since it would silently cut every wait, the server's `Retry-After`
   * included, to none: to retry without waiting, use `backoff: constant(0)` (and
   * `retryAfter: "ignore"` to disregard the server's delay as well). [30 seconds]
   */
  readonly maxDelay?: Duration.Input | undefined
  /** Randomisation of the computed backoff. [`"equal"`] */
  readonly jitter?: Jitter | undefined
  /** `"respect"`: a server's `Retry-After` (or rate-limit reset) replaces the backoff. [`"respect"`] */
  readonly retryAfter?: RetryAfterMode | undefined
  /** When `Retry-After` exceeds `maxDelay`: wait the cap and retry, or stop at once. [`"wait-max-delay"`] */
  readonly whenRetryAfterExceedsMaxDelay?: OverCapMode | undefined
  /**
   * Who a `429`'s `Retry-After` holds back: `"origin"`, every call to its origin that shares the
   * `ResilienceStore` (calls started during the cool-down wait for its end, within `maxDelay`);
   * `"call"`, only the call that received it. No effect under `retryAfter: "ignore"`. [`"origin"`]
   */
  readonly retryAfterScope?: RetryAfterScope | undefined
  /**
   * Which statuses are transient; replaces the default set. Only `true` means transient. A
   * predicate that throws is a bug, so, as Effect treats a throwing callback, the call dies
   * (a defect, not an `HttpFailure`): the defect is an `Error` tagged `"IsTransientStatusError"`
   * whose message names this option and the status, with the thrown value as its `cause`.
   * [408, 429, 500, 502, 503, 504]
   */
  readonly isTransientStatus?: ((status: number) => boolean) | undefined
  /**
   * Retry POST and PATCH even without an `Idempotency-Key` header. An empty or whitespace-only
   * `Idempotency-Key` is not a key. [false]
   */
  readonly retryNonIdempotent?: boolean | undefined
  /**
   * Give up rather than start a wait that would end later than this after the first failure;
   * zero allows only waits of zero. [infinity]
   */
  readonly maxElapsed?: Duration.Input | "infinity" | undefined
  /**
   * Time limit for one attempt to receive response headers; at least 1 millisecond;
   * `"infinity"` disables it. [10 seconds]
   */
  readonly attemptTimeout?: Duration.Input | "infinity" | undefined
  /**
   * Time limit for the whole call, every attempt and wait included, from its start: a wait that
   * would end past it is not started, and an attempt's limit is cut to what remains, so no call
   * outlives it; `"infinity"` disables it. [30 seconds, as Polly's standard handler]
   */
  readonly totalTimeout?: Duration.Input | "infinity" | undefined
  /**
   * The largest body `getJson` reads, in decoded bytes (a gzip body is counted inflated): a body
   * that declares or turns out to be larger is a `DecodeError` whose cause is `BodyTooLarge`,
   * never retried, and is not read on. [16 MiB]
   */
  readonly maxBodyBytes?: number | undefined
  /**
   * Credentials in a request's URL (`http://user:password@host/`), which the platform's
   * transports drop or refuse: `"basic-auth"` sends them as `Authorization: Basic` (user and
   * password percent-decoded, as curl does), to the URL without them, unless the request has an
   * `Authorization` header already; `"refuse"` fails the call unsent with a `ConnectionError`
   * `"InvalidRequest"` (cause `HttpFailure.UrlCredentialsRefused`) that says what to do. A user
   * name with a colon, a control character or invalid percent-encoding is refused either way.
   * They are never written to a message, span, log or metric. [`"basic-auth"`]
   */
  readonly urlCredentials?: UrlCredentialsMode | undefined
  /**
   * The retry budget of each origin, shared by every call through one client (a layer, a
   * combinator applied once): retries may spend `ratio` of recent requests plus a floor, so an
   * outage costs about 1.1x the load instead of `maxAttempts` times. A refused retry ends the
   * call at once (`"retry-budget-exhausted"`). `RetryBudget.finagle(...)`, `tokenBucket(...)`,
   * `awsQuota(...)`, their options record, `"none"`, or a `RetryBudget` service to share one
   * budget between clients. [`RetryBudget.finagle()`: ratio 0.1, minPerSecond 10, ttl 10 s]
   */
  readonly retryBudget?: RetryBudget.Input | RetryBudget.RetryBudget.Service | undefined
  /**
   * Hedged requests (see {@link HedgingOptions}): a further copy of a slow attempt after
   * `delay`, a fixed duration or `{ percentile }` of the origin's recent latencies. Hedges are
   * paid from `retryBudget` (none goes when it refuses), never sent while the circuit is not
   * closed or the origin cools down after a `Retry-After`, and stop at the first 429 or
   * `Retry-After` of any copy. Each retry is hedged too. [off]
   */
  readonly hedging?: HedgingOptions | undefined
  /**
   * A client-side rate limit per origin or key ({@link RateLimitOptions}), kept by the
   * `ResilienceStore` (shared by the fleet on Redis): each attempt, retries and hedges included,
   * takes a token before it is sent, waiting for one within the deadline, else the call fails
   * unsent with a `ConnectionError` `"RateLimited"` (`"rate-limit"`). [off]
   */
  readonly rateLimit?: RateLimitOptions | undefined
  /**
   * Reads the rate-limit headers of every response: when one says nothing is left, the origin's
   * (or key's) attempts wait for its reset (at most a day), fleet-wide through the store. `true`,
   * or {@link RateLimitHeadersOptions} to add a server's own header names. [false]
   */
  readonly rateLimitHeaders?: boolean | RateLimitHeadersOptions | undefined
  /**
   * A circuit breaker per origin, inside the retry: every attempt is a sample, and an open
   * circuit ends the call at once (`"circuit-open"`) without sending. Its options, `"none"`, or
   * a `CircuitBreaker` service to share one between clients. [`"none"`]
   */
  readonly circuitBreaker?: CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service | "none" | undefined
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
  readonly retryNonIdempotent: boolean
  readonly maxElapsed: Duration.Duration
  readonly attemptTimeout: Duration.Duration
  readonly totalTimeout: Duration.Duration
  readonly maxBodyBytes: number
  readonly urlCredentials: UrlCredentialsMode
  /** `undefined`: no hedging. */
  readonly hedging: HedgingSettings | undefined
  /** `undefined`: no rate limit. */
  readonly rateLimit: RateLimitSettings | undefined
  /** `undefined`: rate-limit headers are not read. */
  readonly rateLimitHeaders: RateLimitHeadersSettings | undefined
  readonly retryBudget: RetryBudget.Settings | RetryBudget.RetryBudget.Service
  readonly circuitBreaker: CircuitBreaker.Options | CircuitBreaker.CircuitBreaker.Service | "none"
}

/**
 * A bad option, named with the reason and the value as given (`NaN`, `Infinity`, `undefined`,
 * `10n`, `Symbol(x)`, `the function f`, never JSON's `null` for them): `maxAttempts` below 1 or
 * not whole, NaN ("is not a number", "is not a duration"), a negative or non-finite duration,
 * a zero `maxDelay`, a limit under 1 millisecond, an exponential factor below 1, `null` for any
 * option, an options record that is not a plain object (option `"options"`), an unknown option
 * name or choice.
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
 * origin's circuit breaker is open; `"rate-limit"`: the rate limit had no token before the deadline.
 *
 * @since 0.1.0
 * @category models
 */
export type GiveUpReason = FailureMessage.GiveUpReason

/**
 * Where a wait came from: the policy's backoff, or the server's `Retry-After`.
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
 * Waits `base`, `2 × base`, `3 × base` … (the seed client's 500 ms, 1000 ms).
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
export const isDefaultTransientStatus: (status: number) => boolean = RetryPolicyOptions.isDefaultTransientStatus

/**
 * Validates options into a policy. A bad option throws {@link InvalidRetryPolicy}: it is a
 * programmer error, as `Duration.decode` throws on bad input. Use {@link validate} to get it
 * as a value instead.
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
 * Whether a value is a validated {@link RetryPolicy} (rather than plain {@link Options}).
 *
 * @since 0.1.0
 * @category guards
 */
export const isRetryPolicy: (u: unknown) => u is RetryPolicy = internal.isRetryPolicy

/**
 * The policy as a `Schedule` over failures. For each failure it decides: retry only a
 * transport failure, a timeout or a transient status; only for an idempotent method (GET,
 * HEAD, OPTIONS, TRACE, PUT, DELETE) or a request with an `Idempotency-Key` header, unless
 * `retryNonIdempotent`; never a body that cannot be sent again whole (anything but bytes, text,
 * form data, URL parameters or a `Blob`); never beyond `maxAttempts` or
 * `maxElapsed`. The wait is the server's `Retry-After` when respected, otherwise the jittered
 * backoff, and never more than `maxDelay`. Random draws come from Effect's `Random` service,
 * so tests can fix them.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toSchedule: (policy: RetryPolicy) => Schedule.Schedule<RetryDecision, HttpFailure.HttpFailure> =
  internal.toSchedule

/**
 * A `Schedule` combinator: the server's `Retry-After` (or rate-limit reset, on a 429) replaces
 * the wrapped schedule's wait, and every wait is capped at `maxDelay` [30 seconds]; a
 * `Retry-After` over the cap waits the cap or, with `whenRetryAfterExceedsMaxDelay: "give-up"`,
 * stops the schedule. What a policy does, for any schedule of your own. The resilient clients
 * apply it (with the defaults) to a `Schedule` given as their policy. A bad option throws
 * {@link InvalidRetryPolicy}.
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
