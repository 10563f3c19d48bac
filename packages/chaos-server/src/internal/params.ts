import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { BadRequest, quote } from "./errors.js"

/**
 * The path and query of a request target. Split by hand rather than with `new URL`, which would read a target
 * such as `//host/path` as a host name and count it under the wrong path.
 *
 * @internal
 */
export interface RequestTarget {
  readonly path: string
  readonly query: URLSearchParams
}

/** @internal */
export const parseTarget = (url: string): RequestTarget => {
  const queryStart = url.indexOf("?")
  return queryStart === -1
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, queryStart), query: new URLSearchParams(url.slice(queryStart + 1)) }
}

/** @internal */
export const searchParams = (url: string): URLSearchParams => parseTarget(url).query

/** @internal */
export interface IntegerRange {
  readonly min: number
  readonly max: number
}

/** @internal */
export const parseInteger = (name: string, raw: string, range: IntegerRange): Effect.Effect<number, BadRequest> => {
  // At most 9 digits keeps Number() exact and rejects absurdly long inputs before converting them.
  const value = /^-?\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN
  return Number.isNaN(value) || value < range.min || value > range.max
    ? Effect.fail(
        new BadRequest({
          message: `${name} must be an integer between ${range.min} and ${range.max}, got ${quote(raw)}`
        })
      )
    : Effect.succeed(value)
}

/**
 * Reads an optional integer query parameter, falling back to `fallback` when it is absent.
 *
 * @internal
 */
export const integerParam = (
  query: URLSearchParams,
  name: string,
  range: IntegerRange,
  fallback: number
): Effect.Effect<number, BadRequest> => {
  const raw = query.get(name)
  return raw === null ? Effect.succeed(fallback) : parseInteger(name, raw, range)
}

/**
 * Reads an optional `true`/`false` query parameter, falling back to `fallback` when it is absent.
 *
 * @internal
 */
export const booleanParam = (
  query: URLSearchParams,
  name: string,
  fallback: boolean
): Effect.Effect<boolean, BadRequest> => {
  const raw = query.get(name)
  if (raw === null) return Effect.succeed(fallback)
  if (raw === "true" || raw === "false") return Effect.succeed(raw === "true")
  return Effect.fail(new BadRequest({ message: `${name} must be true or false, got ${quote(raw)}` }))
}

/** @internal */
export const maxDelaySeconds = 60

/**
 * Reads `?delay=S`: non-negative decimal seconds up to {@link maxDelaySeconds}. Absent means no delay.
 *
 * @internal
 */
export const delayParam = (query: URLSearchParams): Effect.Effect<Option.Option<Duration.Duration>, BadRequest> => {
  const raw = query.get("delay")
  if (raw === null) {
    return Effect.succeed(Option.none())
  }
  const seconds = /^\d{1,5}(\.\d{1,9})?$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isNaN(seconds) || seconds > maxDelaySeconds) {
    return Effect.fail(
      new BadRequest({
        message: `delay must be a number of seconds between 0 and ${maxDelaySeconds}, got ${quote(raw)}`
      })
    )
  }
  return Effect.succeed(seconds === 0 ? Option.none() : Option.some(Duration.millis(seconds * 1000)))
}

/**
 * What a faulty response says in `Retry-After`.
 *
 * @internal
 */
export type RetryAfterChoice =
  | { readonly _tag: "Omit" }
  | { readonly _tag: "Seconds"; readonly seconds: number }
  | { readonly _tag: "Date"; readonly offsetSeconds: number }

/** @internal */
export const omitRetryAfter: RetryAfterChoice = { _tag: "Omit" }

/** @internal */
export const retryAfterSeconds = (seconds: number): RetryAfterChoice => ({ _tag: "Seconds", seconds })

const oneDaySeconds = 86_400

/**
 * Reads `?retryAfter=N|none` and `?retryAfterDate=N`. The date offset may be negative so that clients can be
 * tested against a date in the past, which they must treat as "retry now".
 *
 * @internal
 */
export const retryAfterParam = (
  query: URLSearchParams,
  fallback: RetryAfterChoice
): Effect.Effect<RetryAfterChoice, BadRequest> => {
  const seconds = query.get("retryAfter")
  const dateOffset = query.get("retryAfterDate")
  if (seconds !== null && dateOffset !== null) {
    return Effect.fail(new BadRequest({ message: "retryAfter and retryAfterDate cannot be combined" }))
  }
  if (seconds === "none") {
    return Effect.succeed(omitRetryAfter)
  }
  if (seconds !== null) {
    return Effect.map(
      parseInteger("retryAfter", seconds, { min: 0, max: oneDaySeconds }).pipe(
        Effect.mapError(
          () =>
            new BadRequest({
              message: `retryAfter must be "none" or an integer number of seconds between 0 and ${oneDaySeconds}, got ${quote(seconds)}`
            })
        )
      ),
      retryAfterSeconds
    )
  }
  if (dateOffset !== null) {
    return Effect.map(
      parseInteger("retryAfterDate", dateOffset, { min: -oneDaySeconds, max: oneDaySeconds }),
      (offsetSeconds): RetryAfterChoice => ({ _tag: "Date", offsetSeconds })
    )
  }
  return Effect.succeed(fallback)
}

/**
 * The `Retry-After` header for a choice, reading the clock at answer time so that a date is relative to the
 * moment the response leaves, not the moment the request arrived (they differ under `?delay=`).
 *
 * @internal
 */
export const retryAfterHeader = (choice: RetryAfterChoice): Effect.Effect<Record<string, string>> => {
  switch (choice._tag) {
    case "Omit":
      return Effect.succeed({})
    case "Seconds":
      return Effect.succeed({ "retry-after": String(choice.seconds) })
    case "Date":
      return Effect.map(Clock.currentTimeMillis, (now) => ({
        // toUTCString produces the IMF-fixdate form of RFC 9110, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
        "retry-after": new Date(now + choice.offsetSeconds * 1000).toUTCString()
      }))
  }
}
