// @generated from templates/src/RetryBudget.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A retry budget per origin (scheme, host, port): retries may add only a bounded share to the
 * traffic an origin receives, so that a failing server is not buried under retries. A per-call
 * attempt limit of 3 lets a total outage triple the load; a budget of 10% holds it near 1.1×.
 *
 * The default is Finagle's budget (deposits per request that expire after `ttl`, retries up to
 * `ratio` of them plus a floor of `minPerSecond`); gRPC's token bucket and the AWS SDKs' retry
 * quota are presets, and `none` turns the budget off. The state lives in a service, shared by
 * everything that uses one instance, timed by Effect's `Clock` (so `TestClock` drives it).
 * Effect 4 has nothing of the kind; the state machines are the shared core's, the same as the
 * Effect 3 line's.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * // Retries up to 20% of requests, plus 5 per second whatever the traffic.
 * const BudgetLive = RetryBudget.layer({ ratio: 0.2, minPerSecond: 5, ttl: "10 seconds" })
 * ```
 *
 * @since 0.1.0
 */
import * as Origin from "@effect-http-resilience/core/Origin"
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Result from "effect/Result"
import * as internal from "./internal/retryBudgetService.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * What a failed attempt was, as far as a budget cares. The AWS quota charges a retry after a
 * `"timeout"` more (10 instead of 5); the other budgets treat all three alike.
 *
 * @since 0.1.0
 * @category models
 */
export type FailureKind = "transient-status" | "timeout" | "connection"

/**
 * The options of the default budget, Finagle's `RetryBudget`. Every one is optional; the
 * defaults are in brackets.
 *
 * @since 0.1.0
 * @category models
 */
export interface FinagleOptions {
  /** Retries allowed per request made in the last `ttl`, on top of the floor; 0 to 1000. [0.1] */
  readonly ratio?: number | undefined
  /** The floor: retries allowed per second of `ttl` however few requests are made; a whole number. [10] */
  readonly minPerSecond?: number | undefined
  /** How long a request's deposit (and a retry's withdrawal) counts; 1 s to 60 s. [10 seconds] */
  readonly ttl?: Duration.Input | undefined
}

/**
 * The options of gRPC's retry throttling (gRFC A6), per origin: the bucket starts full, every
 * failed attempt takes 1 token, every success puts back `tokenRatio`, and retries are allowed
 * only while more than half of `maxTokens` remain.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenBucketOptions {
  /** Tokens at the start and at most; a whole number from 1 to 1000. [10] */
  readonly maxTokens?: number | undefined
  /** Tokens a success puts back; at least 0.001, decimal places beyond 3 ignored. [0.1] */
  readonly tokenRatio?: number | undefined
}

/**
 * The options of the AWS SDKs' standard retry quota, per origin: a retry takes `retryCost`
 * tokens (`timeoutRetryCost` after a timeout) and is refused when fewer remain; a call that
 * succeeds at its first attempt puts back `noRetryIncrement`, a retry that succeeds puts back
 * what it took.
 *
 * @since 0.1.0
 * @category models
 */
export interface AwsQuotaOptions {
  /** Tokens at the start and at most. [500] */
  readonly capacity?: number | undefined
  /** Tokens a retry takes. [5] */
  readonly retryCost?: number | undefined
  /** Tokens a retry after a timeout takes. [10] */
  readonly timeoutRetryCost?: number | undefined
  /** Tokens a call that succeeds without a retry puts back. [1] */
  readonly noRetryIncrement?: number | undefined
}

/**
 * Which budget, with its options (validated by {@link make}). Build one with {@link finagle},
 * {@link tokenBucket}, {@link awsQuota}, or use {@link none}.
 *
 * @since 0.1.0
 * @category models
 */
export type Strategy =
  | { readonly _tag: "Finagle"; readonly options: FinagleOptions }
  | { readonly _tag: "TokenBucket"; readonly options: TokenBucketOptions }
  | { readonly _tag: "AwsQuota"; readonly options: AwsQuotaOptions }
  | { readonly _tag: "None" }

/**
 * What {@link make} and {@link layer} accept: the default budget's options, a {@link Strategy},
 * or `"none"` (the same as {@link none}).
 *
 * @since 0.1.0
 * @category models
 */
export type Input = FinagleOptions | Strategy | "none"

/**
 * A validated budget: the strategy with every option resolved to its value or default.
 *
 * @since 0.1.0
 * @category models
 */
export type Settings =
  | {
      readonly _tag: "Finagle"
      readonly ratio: number
      readonly minPerSecond: number
      readonly ttl: Duration.Duration
    }
  | { readonly _tag: "TokenBucket"; readonly maxTokens: number; readonly tokenRatio: number }
  | {
      readonly _tag: "AwsQuota"
      readonly capacity: number
      readonly retryCost: number
      readonly timeoutRetryCost: number
      readonly noRetryIncrement: number
    }
  | { readonly _tag: "None" }

/**
 * Finagle's budget (the default): every call deposits when it starts; a deposit counts for
 * `ttl`; a retry may spend `1 / ratio` deposits, and the floor lends `minPerSecond × ttl`
 * retries more, each paid back as its withdrawal expires after `ttl`. Over any stretch shorter
 * than 9/10 of `ttl` (expiry is counted in tenths of `ttl`), N calls get at most
 * `ratio × N + minPerSecond × ttl` retries, to within Finagle's rounding of `1 / ratio`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const finagle: (options?: FinagleOptions) => Strategy = internal.finagle

/**
 * gRPC's retry throttling (gRFC A6) as a budget. See {@link TokenBucketOptions}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tokenBucket: (options?: TokenBucketOptions) => Strategy = internal.tokenBucket

/**
 * The AWS SDKs' standard retry quota as a budget. See {@link AwsQuotaOptions}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const awsQuota: (options?: AwsQuotaOptions) => Strategy = internal.awsQuota

/**
 * No budget: every retry the retry policy wants is allowed, and nothing is tracked.
 *
 * @since 0.1.0
 * @category constructors
 */
export const none: Strategy = internal.none

/**
 * The budget service. One instance keeps one budget per origin, shared by every call that uses
 * it: provide one layer to share it across clients, or one per client to keep them apart.
 *
 * @since 0.1.0
 * @category tags
 */
export class RetryBudget extends Context.Service<RetryBudget, RetryBudget.Service>()(
  "effect-http-resilience-effect4/RetryBudget"
) {}

/**
 * The types that belong to the {@link RetryBudget} service.
 *
 * @since 0.1.0
 * @category models
 */
export declare namespace RetryBudget {
  /**
   * The budget's operations, each for one origin key (see {@link originOf}). A caller reports
   * every call's start, failures and success, and asks before each retry.
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The strategy and its resolved options. */
    readonly settings: Settings
    /** A call starts (its first attempt only): Finagle's budget deposits. */
    readonly onRequest: (origin: string) => Effect.Effect<void>
    /**
     * An attempt failed in a way that says the origin struggles, whether or not a retry
     * follows: the token bucket takes a token.
     */
    readonly onFailure: (origin: string, kind: FailureKind) => Effect.Effect<void>
    /**
     * Asks for a retry after a failure of this kind. `true` spends its cost; `false` refuses
     * it, leaves the budget untouched and counts a refusal in the metrics. Never waits.
     */
    readonly tryRetry: (origin: string, kind: FailureKind) => Effect.Effect<boolean>
    /**
     * An attempt succeeded. `retriedAfter`: the kind of failure it retried, omitted for a first
     * attempt (the AWS quota puts back a retry's cost, or 1 for a first attempt).
     */
    readonly onSuccess: (origin: string, retriedAfter?: FailureKind) => Effect.Effect<void>
    /**
     * What is left for the origin, in the strategy's own unit: Finagle: retries allowed now;
     * token bucket: tokens; AWS quota: tokens; none: infinity. An origin never seen reads as fresh.
     */
    readonly balance: (origin: string) => Effect.Effect<number>
  }
}

/**
 * Validates the input and makes a budget service with its own per-origin state. A bad option
 * fails with `InvalidRetryPolicy`, naming it (`"retryBudget.ratio"`, …). Without input, the
 * default budget with its default options.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (input?: Input) => Effect.Effect<RetryBudget.Service, RetryPolicy.InvalidRetryPolicy> = internal.make

/**
 * The service as a layer: everything provided with one built layer shares its budgets.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (input?: Input): Layer.Layer<RetryBudget, RetryPolicy.InvalidRetryPolicy> =>
  Layer.effect(RetryBudget, internal.make(input))

/**
 * Validates the input into settings, or the first bad option.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate: (input?: Input) => Result.Result<Settings, RetryPolicy.InvalidRetryPolicy> = internal.validate

/**
 * The key a budget is kept under: `scheme://host:port`, lower-cased, with the scheme's default
 * port filled in (`http://Example.com/x` and `http://example.com:80/y` share
 * `http://example.com:80`). A string that is not an absolute URL is its own key.
 *
 * @since 0.1.0
 * @category origins
 */
export const originOf: (url: string | URL) => string = Origin.originOf
