// @generated from templates/src/RateLimit.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * A client-side rate limit (docs/limits.md): at most `limit` attempts in any span of one `window` per
 * origin, or per key, each attempt taking a token before it is sent, waiting within the deadline or
 * refused unsent (`"rate-limit"`); and what a server's rate-limit headers teach (`RateLimit`,
 * `X-RateLimit-*`): a remaining 0 holds its key until the reset. A policy's `rateLimit` and
 * `rateLimitHeaders` options take values built here; left out, neither is kept.
 *
 * @example
 * ```ts
 * import { RateLimit, RetryPolicy } from "effect-http-resilience"
 *
 * // At most 10 attempts in any second per origin, and what the server's headers say on top.
 * const policy = RetryPolicy.make({
 *   rateLimit: RateLimit.make({ limit: 10, window: "1 second" }),
 *   rateLimitHeaders: RateLimit.fromHeaders()
 * })
 * ```
 *
 * @since 0.2.0
 */
import * as RateLimitHeadersCore from "@effect-http-resilience/core/RateLimitHeaders"
import type { StageTypeId } from "@effect-http-resilience/core/RetryPolicyOptions"
import * as TokenBucketCore from "@effect-http-resilience/core/TokenBucket"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Duration from "effect/Duration"
import type { Send } from "./internal/attemptLoop.js"
import { durationCodec, orThrow } from "./internal/invalidOption.js"
import * as internal from "./internal/rateLimit.js"

/**
 * The rate-limit stage, for a policy's `rateLimit` option.
 *
 * @since 0.2.0
 * @category models
 */
export interface RateLimit {
  readonly [StageTypeId]: "rateLimit"
  readonly settings: Settings
  /** @internal */
  readonly wrap: (next: Send) => Send
}

/**
 * The rate-limit headers' stage, for a policy's `rateLimitHeaders` option.
 *
 * @since 0.2.0
 * @category models
 */
export interface FromHeaders {
  readonly [StageTypeId]: "rateLimitHeaders"
  readonly settings: HeadersSettings
  /** @internal */
  readonly wrap: (next: Send) => Send
}

/**
 * A rate limit's options.
 *
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** Attempts per window; 1 to 1,000,000. */
  readonly limit: number
  /** 1 millisecond to 1 day. */
  readonly window: Duration.DurationInput
  /**
   * How many attempts may go at once after a quiet spell, 1 to `limit`; beyond 1, a span of one window
   * may hold `limit + burst - 1` (a server counting `limit` per window may answer 429). [1: one every `window / limit`]
   */
  readonly burst?: number | undefined
  /** One bucket for every origin (a name), or one per result of the request (a function). [each origin's] */
  readonly key?: string | ((request: HttpClientRequest.HttpClientRequest) => string) | undefined
}

/**
 * A rate limit resolved, with its key function when the key is one.
 *
 * @since 0.2.0
 * @category models
 */
export interface Settings extends TokenBucketCore.Resolved {
  readonly keyOf: ((request: HttpClientRequest.HttpClientRequest) => string) | undefined
}

/**
 * Rate-limit headers a server names its own way, read besides the standard ones.
 *
 * @since 0.2.0
 * @category models
 */
export interface HeadersOptions {
  /** At most 8 sets of names; `reset` in seconds or a Unix time. [none] */
  readonly extra?: ReadonlyArray<RateLimitHeadersCore.HeaderNames> | undefined
}

/**
 * The headers read resolved: the extra header names, lower case.
 *
 * @since 0.2.0
 * @category models
 */
export type HeadersSettings = RateLimitHeadersCore.Resolved

/**
 * At most `limit` attempts in any span of one `window` per origin, or per `key` (spaced `window / limit`
 * apart unless `burst` lets more go at once); a bad option throws `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (options: Options): RateLimit =>
  internal.make({
    ...orThrow(TokenBucketCore.check(options, durationCodec), "rateLimit"),
    keyOf: typeof options.key === "function" ? options.key : undefined
  })

/**
 * Reads `RateLimit` and `X-RateLimit-*` headers (and any `extra` ones) on every response: a
 * remaining 0 holds its key until the reset, for every call sharing the store; a bad option throws
 * `InvalidRetryPolicy`.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromHeaders = (options?: HeadersOptions): FromHeaders =>
  internal.fromHeaders(orThrow(RateLimitHeadersCore.check(options ?? {}), "rateLimitHeaders"))
