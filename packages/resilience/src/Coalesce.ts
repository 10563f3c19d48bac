// @generated from templates/src/Coalesce.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Request coalescing (docs/coalescing.md): concurrent identical GETs and HEADs share one call in
 * flight. The first runs the whole resilient call (its retries, hedges, budget deposit and
 * permits); every caller, the first included, gets a response of its own over the body buffered
 * once, up to `maxBodyBytes`; past that each sends its own. A failure is every caller's. A caller
 * interrupted leaves; the shared call is interrupted when no caller is left. A policy's
 * `coalesce` option takes a value built here; left out, nothing is shared.
 *
 * By default requests are the same when their method, URL and every header are: requests with
 * different credentials never share. A `key` function decides otherwise.
 *
 * @example
 * ```ts
 * import { Coalesce, RetryPolicy } from "effect-http-resilience"
 *
 * // Identical GETs in flight share one call; bodies up to 1 MiB are shared.
 * const policy = RetryPolicy.make({ coalesce: Coalesce.identical({ maxBodyBytes: 1024 * 1024 }) })
 * ```
 *
 * @since 0.2.0
 */
import * as CoalesceCore from "@effect-http-resilience/core/Coalesce"
import type { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as internal from "./internal/coalesce.js"
import { orThrow } from "./internal/invalidOption.js"

/**
 * The coalescing stage, for a policy's `coalesce` option.
 *
 * @since 0.2.0
 * @category models
 */
export interface Coalesce {
  readonly [StageTypeId]: "coalesce"
  readonly settings: Settings
  /** @internal */
  readonly around: internal.Around
}

/**
 * Coalescing resolved: the largest body shared, and the key function if one was given.
 *
 * @since 0.2.0
 * @category models
 */
export interface Settings extends CoalesceCore.Resolved {
  readonly key: ((request: HttpClientRequest.HttpClientRequest) => string | undefined) | undefined
}

/**
 * Coalescing's options, each optional, its default in brackets.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** The largest body shared, in bytes, 0 to 1 GiB: past it each caller sends its own call. [5 MiB] */
  readonly maxBodyBytes?: number | undefined
  /**
   * Which requests are the same: equal keys share (the method is always part of it);
   * `undefined`, sent alone. Leave out what may differ between callers only if the response
   * does not depend on it. [the URL and every header]
   */
  readonly key?: ((request: HttpClientRequest.HttpClientRequest) => string | undefined) | undefined
}

/**
 * Concurrent identical GETs and HEADs (without a body) share one call in flight; a bad option
 * throws `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const identical = (options?: Options): Coalesce =>
  internal.stage({ ...orThrow(CoalesceCore.check(options), "coalesce"), key: options?.key })
