/**
 * A retry budget per origin, so that retries add only a bounded share to an origin's traffic:
 * Finagle's budget by default (retries may spend a tenth of recent requests, plus a floor of 10
 * a second), gRPC's token bucket and the AWS quota as presets, or none. Effect 4 has nothing of
 * the kind; the state machines are the shared core's, the same as the Effect 3 line's.
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
 * What a failed attempt was, as far as a budget cares (the AWS quota charges a retry after a
 * timeout more).
 *
 * @example
 * ```ts
 * import type { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const kind: RetryBudget.FailureKind = "timeout"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type FailureKind = "transient-status" | "timeout" | "connection"

/**
 * Finagle's budget (the default): deposits from requests expire after `ttl`; retries may spend
 * `ratio` of them plus a floor of `minPerSecond` per second of `ttl`.
 *
 * @example
 * ```ts
 * import type { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const options: RetryBudget.FinagleOptions = { ratio: 0.2, minPerSecond: 5, ttl: "10 seconds" }
 * ```
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
 * gRPC A6 retry throttling: a failure takes a token, a success puts `tokenRatio` back, no retry
 * at or below half.
 *
 * @example
 * ```ts
 * import type { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const options: RetryBudget.TokenBucketOptions = { maxTokens: 20, tokenRatio: 0.1 }
 * ```
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
 * The AWS SDKs' standard retry quota.
 *
 * @example
 * ```ts
 * import type { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const options: RetryBudget.AwsQuotaOptions = { capacity: 500, retryCost: 5 }
 * ```
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
 * A budget strategy: build it with {@link finagle}, {@link tokenBucket}, {@link awsQuota} or {@link none}.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const strategy: RetryBudget.Strategy = RetryBudget.tokenBucket()
 * ```
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
 * What a budget is given as: Finagle's options, a strategy, or `"none"`.
 *
 * @example
 * ```ts
 * import type { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const inputs: ReadonlyArray<RetryBudget.Input> = [{ ratio: 0.2 }, "none"]
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type Input = FinagleOptions | Strategy | "none"

/**
 * A budget's resolved options.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const settings = Result.getOrThrow(RetryBudget.validate())
 * console.log(settings._tag) // "Finagle"
 * ```
 *
 * @since 0.1.0
 * @category models
 */
export type Settings =
  | { readonly _tag: "Finagle"; readonly ratio: number; readonly minPerSecond: number; readonly ttl: Duration.Duration }
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
 * Finagle's budget, the default.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const strategy = RetryBudget.finagle({ ratio: 0.2 })
 * ```
 *
 * @since 0.1.0
 * @category strategies
 */
export const finagle: (options?: FinagleOptions) => Strategy = internal.finagle

/**
 * gRPC A6's token bucket.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const strategy = RetryBudget.tokenBucket({ maxTokens: 10 })
 * ```
 *
 * @since 0.1.0
 * @category strategies
 */
export const tokenBucket: (options?: TokenBucketOptions) => Strategy = internal.tokenBucket

/**
 * The AWS SDKs' retry quota.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const strategy = RetryBudget.awsQuota()
 * ```
 *
 * @since 0.1.0
 * @category strategies
 */
export const awsQuota: (options?: AwsQuotaOptions) => Strategy = internal.awsQuota

/**
 * No budget: every retry the policy wants is allowed.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const strategy = RetryBudget.none
 * ```
 *
 * @since 0.1.0
 * @category strategies
 */
export const none: Strategy = internal.none

/**
 * The service: one budget per origin, shared by whoever holds it.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const program = Effect.gen(function* () {
 *   const budget = yield* RetryBudget.RetryBudget
 *   return yield* budget.balance(RetryBudget.originOf("https://api.example.com/items"))
 * }).pipe(Effect.provide(RetryBudget.layer({ ratio: 0.1 })))
 * ```
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
   * The budget's operations, each for one origin key (see {@link originOf}): a caller reports
   * every call's start, failures and success, and asks before each retry.
   *
   * @example
   * ```ts
   * import { Effect } from "effect"
   * import { RetryBudget } from "effect-http-resilience-effect4"
   *
   * declare const budget: RetryBudget.RetryBudget.Service
   * const origin = RetryBudget.originOf("https://api.example.com/")
   * const retryAllowed = Effect.andThen(budget.onFailure(origin, "timeout"), budget.tryRetry(origin, "timeout"))
   * ```
   *
   * @since 0.1.0
   * @category models
   */
  export interface Service {
    /** The strategy and its resolved options. */
    readonly settings: Settings
    /** A call starts (its first attempt only): Finagle's budget deposits. */
    readonly onRequest: (origin: string) => Effect.Effect<void>
    /** An attempt failed in a way that says the origin struggles: the token bucket takes a token. */
    readonly onFailure: (origin: string, kind: FailureKind) => Effect.Effect<void>
    /** Asks for a retry: `true` spends its cost; `false` refuses it and counts a refusal. Never waits. */
    readonly tryRetry: (origin: string, kind: FailureKind) => Effect.Effect<boolean>
    /** An attempt succeeded; `retriedAfter` is the kind of failure it retried, if any. */
    readonly onSuccess: (origin: string, retriedAfter?: FailureKind) => Effect.Effect<void>
    /** What is left for the origin, in the strategy's own unit; an origin never seen reads as fresh. */
    readonly balance: (origin: string) => Effect.Effect<number>
  }
}

/**
 * Makes a budget. Bad options fail with `InvalidRetryPolicy`, naming the option.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const budget = RetryBudget.make(RetryBudget.tokenBucket({ maxTokens: 20 }))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (input?: Input) => Effect.Effect<RetryBudget.Service, RetryPolicy.InvalidRetryPolicy> = internal.make

/**
 * The budget as a layer, to share one between clients (pass the service as the policy's `retryBudget`).
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * const BudgetLive = RetryBudget.layer({ ratio: 0.2 })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (input?: Input): Layer.Layer<RetryBudget, RetryPolicy.InvalidRetryPolicy> =>
  Layer.effect(RetryBudget, internal.make(input))

/**
 * Checks a budget's options without making one.
 *
 * @example
 * ```ts
 * import { Result } from "effect"
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * Result.isFailure(RetryBudget.validate({ ratio: -1 })) // true
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const validate: (input?: Input) => Result.Result<Settings, RetryPolicy.InvalidRetryPolicy> = internal.validate

/**
 * The origin key of a URL (`scheme://host:port`), as budgets are kept.
 *
 * @example
 * ```ts
 * import { RetryBudget } from "effect-http-resilience-effect4"
 *
 * RetryBudget.originOf("http://localhost/health") // "http://localhost:80"
 * ```
 *
 * @since 0.1.0
 * @category origins
 */
export const originOf: (url: string | URL) => string = Origin.originOf
