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
export interface IntegerRange {
  readonly min: number
  readonly max: number
}

/** A decimal integer inside `range`, or undefined. */
const integerIn = (raw: string, range: IntegerRange): number | undefined => {
  // At most 10 digits (2^31 - 1 has 10) keeps Number() exact and rejects absurdly long inputs before converting.
  const value = /^-?\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN
  return Number.isNaN(value) || value < range.min || value > range.max ? undefined : value
}

/**
 * Parses a decimal integer inside `range`; throws {@link BadRequest} otherwise.
 */
const parseInteger = (name: string, raw: string, range: IntegerRange): number => {
  const value = integerIn(raw, range)
  if (value === undefined) {
    throw new BadRequest(`${name} must be an integer between ${range.min} and ${range.max}, got ${quote(raw)}`)
  }
  return value
}

/**
 * Reads an optional integer query parameter, falling back to `fallback` when it is absent.
 *
 * @internal
 */
export const integerParam = (query: URLSearchParams, name: string, range: IntegerRange, fallback: number): number => {
  const raw = query.get(name)
  return raw === null ? fallback : parseInteger(name, raw, range)
}

/**
 * Reads an optional `true`/`false` query parameter, falling back to `fallback` when it is absent.
 *
 * @internal
 */
export const booleanParam = (query: URLSearchParams, name: string, fallback: boolean): boolean => {
  const raw = query.get(name)
  if (raw === null) return fallback
  if (raw === "true" || raw === "false") return raw === "true"
  throw new BadRequest(`${name} must be true or false, got ${quote(raw)}`)
}

/**
 * Reads an optional fraction between 0 and 1 in decimal notation (`0`, `0.05`, `1`), falling back to `fallback`
 * when it is absent.
 *
 * @internal
 */
export const fractionParam = (query: URLSearchParams, name: string, fallback: number): number => {
  const raw = query.get(name)
  if (raw === null) return fallback
  // The same notation as ?delay: a leading digit, no exponent, so that what is accepted reads unambiguously.
  const value = /^\d(\.\d{1,9})?$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isNaN(value) || value > 1) {
    throw new BadRequest(`${name} must be a number between 0 and 1, got ${quote(raw)}`)
  }
  return value
}

/**
 * Reads an optional comma-separated list of integers inside `range` (`1,3`) as a set; undefined when absent. An
 * empty list, an empty item or an item out of range is a 400. The request target's size bounds its length.
 *
 * @internal
 */
export const integerSetParam = (
  query: URLSearchParams,
  name: string,
  range: IntegerRange
): ReadonlySet<number> | undefined => {
  const raw = query.get(name)
  if (raw === null) return undefined
  const values = new Set<number>()
  for (const item of raw.split(",")) {
    const value = integerIn(item, range)
    if (value === undefined) {
      throw new BadRequest(
        `${name} must be a comma-separated list of integers between ${range.min} and ${range.max}, got ${quote(raw)}`
      )
    }
    values.add(value)
  }
  return values
}

const maxDelaySeconds = 60

/**
 * Reads `?delay=S`: non-negative decimal seconds up to {@link maxDelaySeconds}, as milliseconds. Absent means 0.
 *
 * @internal
 */
export const delayParam = (query: URLSearchParams): number => {
  const raw = query.get("delay")
  if (raw === null) return 0
  const seconds = /^\d{1,5}(\.\d{1,9})?$/.test(raw) ? Number(raw) : Number.NaN
  if (Number.isNaN(seconds) || seconds > maxDelaySeconds) {
    throw new BadRequest(`delay must be a number of seconds between 0 and ${maxDelaySeconds}, got ${quote(raw)}`)
  }
  return seconds * 1000
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
export const retryAfterParam = (query: URLSearchParams, fallback: RetryAfterChoice): RetryAfterChoice => {
  const seconds = query.get("retryAfter")
  const dateOffset = query.get("retryAfterDate")
  if (seconds !== null && dateOffset !== null) {
    throw new BadRequest("retryAfter and retryAfterDate cannot be combined")
  }
  if (seconds === "none") {
    return omitRetryAfter
  }
  if (seconds !== null) {
    const value = integerIn(seconds, { min: 0, max: oneDaySeconds })
    if (value === undefined) {
      throw new BadRequest(
        `retryAfter must be "none" or an integer number of seconds between 0 and ${oneDaySeconds}, got ${quote(seconds)}`
      )
    }
    return retryAfterSeconds(value)
  }
  if (dateOffset !== null) {
    return {
      _tag: "Date",
      offsetSeconds: parseInteger("retryAfterDate", dateOffset, { min: -oneDaySeconds, max: oneDaySeconds })
    }
  }
  return fallback
}

/**
 * The `Retry-After` header for a choice. Called when the answer is built, so that a date is relative to the
 * moment the response leaves, not the moment the request arrived (they differ under `?delay=`).
 *
 * @internal
 */
export const retryAfterHeader = (choice: RetryAfterChoice): Record<string, string> => {
  switch (choice._tag) {
    case "Omit":
      return {}
    case "Seconds":
      return { "retry-after": String(choice.seconds) }
    case "Date":
      // toUTCString produces the IMF-fixdate form of RFC 9110, e.g. "Sun, 06 Nov 1994 08:49:37 GMT".
      return { "retry-after": new Date(Date.now() + choice.offsetSeconds * 1000).toUTCString() }
  }
}
