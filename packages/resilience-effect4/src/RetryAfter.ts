/**
 * Reading how long a server asks a client to wait: `Retry-After` (RFC 9110 10.2.3) and the
 * common rate-limit reset headers, as Effect 4 `Duration`s. (Effect 4's own
 * `Headers.parseRetryAfter` reads `Retry-After` alone; this adds the rate-limit headers, and a
 * retry policy adds the cap.)
 *
 * @since 0.1.0
 */
import type * as Duration from "effect/Duration"
import type * as Headers from "effect/http/Headers"
import type * as Option from "effect/Option"
import * as internal from "./internal/retryAfter.js"

/**
 * Parses a `Retry-After` value: delay-seconds (digits only, surrounding whitespace allowed) or
 * an HTTP-date in any of the three forms (IMF-fixdate, RFC 850, asctime). A date in the past is
 * zero; anything malformed is `None`; a delay too large to represent is the largest one that
 * can be. Never throws.
 *
 * @example
 * ```ts
 * import { RetryAfter } from "effect-http-resilience-effect4"
 *
 * const now = Date.parse("Sun, 06 Nov 1994 08:49:30 GMT")
 * RetryAfter.parse("120", now) // Some(2 minutes)
 * RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now) // Some(7 seconds)
 * RetryAfter.parse("-1", now) // None
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (value: string, nowMillis: number) => Option.Option<Duration.Duration> = internal.parse

/**
 * Reads the delay a response asks for. `Retry-After` wins; when it is absent or malformed,
 * `RateLimit-Reset`, `X-RateLimit-Reset` (seconds, or a Unix time in seconds or milliseconds)
 * and the `t` of the IETF `RateLimit` field are read, in that order.
 *
 * @example
 * ```ts
 * import { Headers } from "effect/http"
 * import { RetryAfter } from "effect-http-resilience-effect4"
 *
 * RetryAfter.fromHeaders(Headers.fromInput({ "x-ratelimit-reset": "30" }), Date.now()) // Some(30 seconds)
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders: (headers: Headers.Headers, nowMillis: number) => Option.Option<Duration.Duration> =
  internal.fromHeaders
