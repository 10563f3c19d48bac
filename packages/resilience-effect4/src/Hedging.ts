// @generated from templates/src/Hedging.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Hedged requests: another copy of an attempt that has not answered after a delay, the first
 * answer kept and the others interrupted and released (docs/hedging.md). Only idempotent requests
 * with a body that can be sent again are hedged; every hedge is paid from the retry budget. A
 * policy's `hedging` option takes a value built here; left out, nothing is hedged.
 *
 * @example
 * ```ts
 * import { Hedging, RetryPolicy } from "effect-http-resilience-effect4"
 *
 * // A second copy after 200 ms; or after the origin's 95th percentile latency, learnt.
 * const fixed = RetryPolicy.make({ hedging: Hedging.after("200 millis") })
 * const learnt = RetryPolicy.make({ hedging: Hedging.percentile(95, { maxCopies: 3 }) })
 * ```
 *
 * @since 0.1.0
 */
import * as HedgingCore from "@effect-http-resilience/core/Hedging"
import type { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as Duration from "effect/Duration"
import type { Send } from "./internal/attemptLoop.js"
import * as internal from "./internal/hedgedAttempt.js"
import { durationCodec, orThrow } from "./internal/invalidOption.js"

/**
 * The hedging stage, for a policy's `hedging` option.
 *
 * @since 0.1.0
 * @category models
 */
export interface Hedging {
  readonly [StageTypeId]: "hedging"
  readonly settings: Settings
  /** @internal */
  readonly hedges: (request: HttpClientRequest.HttpClientRequest) => boolean
  /** @internal */
  readonly wrap: (next: Send) => Send
}

/**
 * Hedging resolved: `maxCopies`, and the delay in milliseconds, fixed or learnt.
 *
 * @since 0.1.0
 * @category models
 */
export type Settings = HedgingCore.Resolved

/**
 * How many copies may be in flight at once, the first included: 1 to 5. [2]
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly maxCopies?: number | undefined
}

/**
 * A learnt delay's bounds, besides `maxCopies`.
 *
 * @since 0.1.0
 * @category models
 */
export interface PercentileOptions extends Options {
  /** The shortest delay. [1 millisecond] */
  readonly floor?: Duration.Input | undefined
  /** The delay until the origin has 20 samples. [2 seconds] */
  readonly fallback?: Duration.Input | undefined
}

/**
 * Another copy after a fixed `delay`; a bad option throws `InvalidRetryPolicy`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const after = (delay: Duration.Input, options?: Options): Hedging =>
  internal.stage(orThrow(HedgingCore.check({ ...options, delay }, durationCodec), "hedging"))

/**
 * Another copy after the origin's latency at `percentile` (0 to 100) of its last 30 s, learnt
 * from its answers; a bad option throws `InvalidRetryPolicy`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const percentile = (percentile: number, options?: PercentileOptions): Hedging => {
  const { maxCopies, ...delay } = options ?? {}
  return internal.stage(
    orThrow(HedgingCore.check({ maxCopies, delay: { ...delay, percentile } }, durationCodec), "hedging")
  )
}
