// @generated from templates/src/RetryAfter.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Reading how long a server asks a client to wait: `Retry-After` (RFC 9110 10.2.3) and the
 * common rate-limit reset headers (docs/retry-policy.md).
 *
 * @example
 * ```ts
 * import { RetryAfter } from "effect-http-resilience-effect4"
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
import type * as Headers from "effect/http/Headers"
import type * as Option from "effect/Option"
import * as internal from "./internal/retryAfter.js"

/**
 * Parses a `Retry-After` value, delay-seconds or an HTTP-date; anything malformed is `None`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (value: string, nowMillis: number) => Option.Option<Duration.Duration> = internal.parse

/**
 * Reads the delay a response asks for: `Retry-After`, else the rate-limit reset headers.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders: (headers: Headers.Headers, nowMillis: number) => Option.Option<Duration.Duration> =
  internal.fromHeaders
