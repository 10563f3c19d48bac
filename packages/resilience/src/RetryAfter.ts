/**
 * Reading how long a server asks a client to wait: `Retry-After` (RFC 9110 10.2.3) and the
 * common rate-limit reset headers.
 *
 * @since 0.1.0
 */
import type * as Headers from "@effect/platform/Headers"
import type * as Duration from "effect/Duration"
import type * as Option from "effect/Option"
import * as internal from "./internal/retryAfter.js"

/**
 * Parses a `Retry-After` value: delay-seconds (digits only, surrounding whitespace allowed) or
 * an HTTP-date in any of the three forms a recipient must accept (IMF-fixdate, RFC 850,
 * asctime). A date in the past gives zero. Anything malformed (negative, fractional, empty, an
 * impossible date) gives `None`; it never throws.
 *
 * Delay-seconds too large to represent (beyond `Number.MAX_SAFE_INTEGER` milliseconds, about
 * 285,000 years) are not malformed: as RFC 9111 1.2.2 says of delta-seconds, they are taken as
 * the largest delay that can be represented, `Number.MAX_SAFE_INTEGER` milliseconds, so a
 * retry policy treats them like any other wait over its cap.
 *
 * An RFC 850 date's two-digit year is resolved as RFC 9110 5.6.7 says, by the whole timestamp:
 * a date that would be more than 50 calendar years after `nowMillis` (to the millisecond) is in
 * the previous century. Exactly 50 years ahead is not "more than".
 *
 * @example
 * ```ts
 * import { RetryAfter } from "effect-http-resilience"
 *
 * const now = Date.parse("Sun, 06 Nov 1994 08:49:30 GMT")
 * RetryAfter.parse("120", now) // Some(2 minutes)
 * RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now) // Some(7 seconds)
 * RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now) // Some(7 seconds)
 * RetryAfter.parse("Sun Nov  6 08:49:37 1994", now) // Some(7 seconds)
 * RetryAfter.parse("-1", now) // None
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (value: string, nowMillis: number) => Option.Option<Duration.Duration> = internal.parse

/**
 * Reads the delay a response asks for. `Retry-After` always wins; when it is absent or
 * malformed, the rate-limit reset headers are read in this order: `RateLimit-Reset` (seconds),
 * `X-RateLimit-Reset` (seconds, or a Unix timestamp in seconds or milliseconds), and the `t`
 * parameter of the IETF `RateLimit` field (of the exhausted policy, `r=0`, when one is named).
 * A reset too large to represent (seconds, or a Unix time too far ahead) is, as in {@link parse},
 * the largest delay that can be represented rather than malformed.
 *
 * Header names must be lower case, as `@effect/platform`'s `Headers` keeps them.
 *
 * @example
 * ```ts
 * import { Headers } from "@effect/platform"
 * import { RetryAfter } from "effect-http-resilience"
 *
 * RetryAfter.fromHeaders(Headers.fromInput({ "x-ratelimit-reset": "30" }), Date.now()) // Some(30 seconds)
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders: (headers: Headers.Headers, nowMillis: number) => Option.Option<Duration.Duration> =
  internal.fromHeaders
