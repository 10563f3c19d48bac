// @generated from templates/src/RetryAfter.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Reading how long a server asks a client to wait: `Retry-After` (RFC 9110 10.2.3) and the
 * common rate-limit reset headers.
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
 */
import type * as Duration from "effect/Duration"
import type * as Headers from "@effect/platform/Headers"
import type * as Option from "effect/Option"
import * as internal from "./internal/retryAfter.js"

/**
 * Parses a `Retry-After` value: delay-seconds (digits only, surrounding whitespace allowed) or
 * an HTTP-date in any of the three forms (IMF-fixdate, RFC 850, asctime). A date in the past is
 * zero; anything malformed is `None`. A delay too large to represent is the largest one that can
 * be (RFC 9111 1.2.2), which a retry policy treats like any other wait over its cap. An RFC 850
 * date's two-digit year is read as RFC 9110 5.6.7 says. Never throws.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (value: string, nowMillis: number) => Option.Option<Duration.Duration> = internal.parse

/**
 * Reads the delay a response asks for. `Retry-After` wins; when it is absent or malformed,
 * `RateLimit-Reset`, `X-RateLimit-Reset` (seconds, or a Unix time in seconds or milliseconds)
 * and the `t` of the IETF `RateLimit` field (of the exhausted policy, `r=0`, when one is named)
 * are read, in that order. A reset too large to represent is, as in {@link parse}, the largest
 * delay that can be. Header names must be lower case, as `Headers` keeps them.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders: (headers: Headers.Headers, nowMillis: number) => Option.Option<Duration.Duration> =
  internal.fromHeaders
