// @generated from templates/src/ConcurrencyLimit.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A limit on attempts in flight per origin (a bulkhead), fixed or adaptive (docs/limits.md):
 * each attempt, hedges included, holds a permit until it ends; past the limit an attempt waits
 * in the queue, within the deadline, or is refused unsent (`"concurrency-limit"`). A policy's
 * `concurrencyLimit` option takes a value built here; left out, there is no limit.
 *
 * @example
 * ```ts
 * import { ConcurrencyLimit, RetryPolicy } from "effect-http-resilience"
 *
 * // At most 8 attempts in flight per origin, 100 more waiting; or a limit learnt from latency.
 * const fixed = RetryPolicy.make({ concurrencyLimit: ConcurrencyLimit.fixed(8, { queue: 100 }) })
 * const learnt = RetryPolicy.make({ concurrencyLimit: ConcurrencyLimit.adaptive({ max: 64 }) })
 * ```
 *
 * @since 0.2.0
 */
import * as ConcurrencyLimitCore from "@effect-http-resilience/core/ConcurrencyLimit"
import type { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type { Send } from "./internal/attemptLoop.js"
import * as internal from "./internal/concurrencyLimit.js"
import { orThrow } from "./internal/invalidOption.js"
import type * as ResilienceStore from "./ResilienceStore.js"

/**
 * The concurrency-limit stage, for a policy's `concurrencyLimit` option.
 *
 * @since 0.2.0
 * @category models
 */
export interface ConcurrencyLimit {
  readonly [StageTypeId]: "concurrencyLimit"
  readonly settings: Settings
  /** @internal */
  readonly wrap: (next: Send) => Send
}

/**
 * The limit resolved: a fixed limit, or an adaptive one within its bounds; both with a queue.
 *
 * @since 0.2.0
 * @category models
 */
export type Settings = ConcurrencyLimitCore.Resolved

/**
 * How an adaptive limit learns: `"gradient2"` (from latency) or `"aimd"` (from drops).
 *
 * @since 0.2.0
 * @category models
 */
export type Algorithm = ConcurrencyLimitCore.Algorithm

/**
 * An adaptive limit's options, each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface AdaptiveOptions {
  /** [`"gradient2"`] */
  readonly algorithm?: Algorithm | undefined
  /** The lowest limit. [1] */
  readonly min?: number | undefined
  /** The highest limit. [200] */
  readonly max?: number | undefined
  /** The limit it starts from. [20, within min and max] */
  readonly initial?: number | undefined
  /** Attempts waiting for a permit at most. [0] */
  readonly queue?: number | undefined
}

/**
 * At most `limit` attempts in flight per origin, `queue` more waiting [0]; a bad option throws
 * `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fixed = (limit: number, options?: { readonly queue?: number | undefined }): ConcurrencyLimit =>
  internal.stage(orThrow(ConcurrencyLimitCore.check({ ...options, limit }), "concurrencyLimit"))

/**
 * A limit per origin learnt from its answers (Netflix's concurrency-limits); a bad option throws
 * `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const adaptive = (options?: AdaptiveOptions): ConcurrencyLimit =>
  internal.stage(orThrow(ConcurrencyLimitCore.check({ ...options, adaptive: true }), "concurrencyLimit"))

/**
 * The limits per origin that `store` keeps for this stage: what its calls hold permits of.
 *
 * @since 0.2.0
 * @category accessors
 */
export const fromStore: (
  store: ResilienceStore.ResilienceStore.Service,
  stage: ConcurrencyLimit
) => ResilienceStore.ResilienceStore.ConcurrencyLimits = internal.limitsIn
