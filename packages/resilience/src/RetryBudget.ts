// @generated from templates/src/RetryBudget.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A retry budget per origin, so that retries add only a bounded share to an origin's traffic:
 * Finagle's budget by default, gRPC's token bucket and the AWS SDKs' quota as presets
 * (docs/overload.md).
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience"
 *
 * // Retries up to 20% of requests, plus 5 per second whatever the traffic.
 * const BudgetLive = RetryBudget.layer({ ratio: 0.2, minPerSecond: 5, ttl: "10 seconds" })
 * ```
 *
 * @since 0.2.0
 */
import * as Origin from "@effect-http-resilience/core/Origin"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as line from "./internal/line.js"
import * as internal from "./internal/retryBudgetService.js"
import type * as RetryPolicy from "./RetryPolicy.js"

/**
 * What a failed attempt was, as far as a budget cares.
 *
 * @since 0.2.0
 * @category models
 */
export type FailureKind = "transient-status" | "timeout" | "connection"

/**
 * The options of the default budget, Finagle's, each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface FinagleOptions {
  /** Retries allowed per request made in the last `ttl`, on top of the floor; 0 to 1000. [0.1] */
  readonly ratio?: number | undefined
  /** The floor: retries allowed per second of `ttl` however few requests are made. [10] */
  readonly minPerSecond?: number | undefined
  /** How long a request's deposit (and a retry's withdrawal) counts; 1 s to 60 s. [10 seconds] */
  readonly ttl?: Duration.DurationInput | undefined
}

/**
 * The options of gRPC's retry throttling (gRFC A6), each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface TokenBucketOptions {
  /** Tokens at the start and at most; a whole number from 1 to 1000. [10] */
  readonly maxTokens?: number | undefined
  /** Tokens a success puts back; at least 0.001. [0.1] */
  readonly tokenRatio?: number | undefined
}

/**
 * The options of the AWS SDKs' standard retry quota, each optional, its default in brackets.
 *
 * @since 0.2.0
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
 * Which budget, with its options: {@link finagle}, {@link tokenBucket}, {@link awsQuota} or {@link none}.
 *
 * @since 0.2.0
 * @category models
 */
export type Strategy =
  | { readonly _tag: "Finagle"; readonly options: FinagleOptions }
  | { readonly _tag: "TokenBucket"; readonly options: TokenBucketOptions }
  | { readonly _tag: "AwsQuota"; readonly options: AwsQuotaOptions }
  | { readonly _tag: "None" }

/**
 * What {@link make} accepts: Finagle's options, a {@link Strategy}, or `"none"`.
 *
 * @since 0.2.0
 * @category models
 */
export type Input = FinagleOptions | Strategy | "none"

/**
 * A validated budget: the strategy with every option resolved.
 *
 * @since 0.2.0
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
 * Finagle's budget, the default: retries up to `ratio` of recent calls plus a floor.
 *
 * @since 0.2.0
 * @category constructors
 */
export const finagle: (options?: FinagleOptions) => Strategy = internal.finagle

/**
 * gRPC's retry throttling (gRFC A6) as a budget.
 *
 * @since 0.2.0
 * @category constructors
 */
export const tokenBucket: (options?: TokenBucketOptions) => Strategy = internal.tokenBucket

/**
 * The AWS SDKs' standard retry quota as a budget.
 *
 * @since 0.2.0
 * @category constructors
 */
export const awsQuota: (options?: AwsQuotaOptions) => Strategy = internal.awsQuota

/**
 * No budget: every retry the policy wants is allowed.
 *
 * @since 0.2.0
 * @category constructors
 */
export const none: Strategy = internal.none

/**
 * The budget service: one budget per origin, shared by every call that uses the instance.
 *
 * @since 0.2.0
 * @category tags
 */
export class RetryBudget extends line.Service<RetryBudget, RetryBudget.Service>()(
  "effect-http-resilience/RetryBudget"
) {}

/**
 * The types that belong to the {@link RetryBudget} tag.
 *
 * @since 0.2.0
 * @category models
 */
export declare namespace RetryBudget {
  /**
   * The budget's operations, each for one origin ({@link originOf}).
   *
   * @since 0.2.0
   * @category models
   */
  export interface Service {
    /** The strategy and its resolved options. */
    readonly settings: Settings
    /** A call starts. */
    readonly onRequest: (origin: string) => Effect.Effect<void>
    /** An attempt failed, whether or not a retry follows. */
    readonly onFailure: (origin: string, kind: FailureKind) => Effect.Effect<void>
    /** Asks for a retry: `true` spends its cost, `false` refuses it. Never waits. */
    readonly tryRetry: (origin: string, kind: FailureKind) => Effect.Effect<boolean>
    /** An attempt succeeded, after a failure of kind `retriedAfter` if it was a retry. */
    readonly onSuccess: (origin: string, retriedAfter?: FailureKind) => Effect.Effect<void>
    /** What is left for the origin, in the strategy's own unit (retries or tokens). */
    readonly balance: (origin: string) => Effect.Effect<number>
  }
}

/**
 * Validates the input and makes a budget with its own per-origin state ({@link finagle} without input).
 *
 * @since 0.2.0
 * @category constructors
 */
export const make: (input?: Input) => Effect.Effect<RetryBudget.Service, RetryPolicy.InvalidRetryPolicy> = internal.make

/**
 * The service as a layer: what one built layer provides shares its budgets.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (input?: Input): Layer.Layer<RetryBudget, RetryPolicy.InvalidRetryPolicy> =>
  Layer.effect(RetryBudget, internal.make(input))

/**
 * Validates the input into settings, or the first bad option.
 *
 * @since 0.2.0
 * @category constructors
 */
export const validate: (input?: Input) => Either.Either<Settings, RetryPolicy.InvalidRetryPolicy> = internal.validate

/**
 * The key a budget is kept under: `scheme://host:port`, lower-cased, default port filled in.
 *
 * @since 0.2.0
 * @category origins
 */
export const originOf: (url: string | URL) => string = Origin.originOf
