/**
 * How long a server asks a client to wait: `Retry-After` (RFC 9110 10.2.3) and the common
 * rate-limit reset headers, read as whole milliseconds. Plain functions of a string (or a header
 * record) and the current time: both libraries wrap them into their `Duration` types.
 *
 * @example
 * ```ts
 * import type { RetryAfter } from "@effect-http-resilience/core"
 *
 * const headers: RetryAfter.HeaderRecord = { "retry-after": "120" }
 * ```
 *
 * @since 0.1.0
 */

import * as StructuredField from "./StructuredField.js"

/**
 * Response headers as both Effect lines keep them: a record of lower-case names.
 *
 * @since 0.1.0
 * @category models
 */
export interface HeaderRecord {
  readonly [name: string]: string | undefined
}

// Beyond this many seconds, milliseconds are no longer exact integers.
const maxDelaySeconds = Math.floor(Number.MAX_SAFE_INTEGER / 1000)

/**
 * The largest delay that can be represented, in milliseconds: what a delay too large to
 * represent is taken as (RFC 9111 1.2.2 says so of delta-seconds). Read as malformed, such a
 * delay would fall back to the backoff and retry within seconds a server that asked for
 * centuries; as the largest delay it is over any cap, like any other very long `Retry-After`.
 *
 * @since 0.1.0
 * @category constants
 */
export const largestDelayMillis: number = Number.MAX_SAFE_INTEGER

const delayOfSeconds = (seconds: number): number => (seconds > maxDelaySeconds ? largestDelayMillis : seconds * 1000)

const monthIndex: Readonly<Record<string, number>> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11
}

// RFC 9110 5.6.7. Names are matched case-insensitively: being lenient here costs nothing.
const imfFixdate =
  /^(?:mon|tue|wed|thu|fri|sat|sun), (\d{2}) (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/i
const rfc850Date =
  /^(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday), (\d{2})-(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/i
const asctimeDate =
  /^(?:mon|tue|wed|thu|fri|sat|sun) (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec) ( \d|\d{2}) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i
const digitsOnly = /^\d+$/

const toEpochMillis = (
  year: number,
  monthName: string,
  day: number,
  hour: number,
  minute: number,
  second: number
): number | undefined => {
  const month = monthIndex[monthName.toLowerCase()]
  if (month === undefined || hour > 23 || minute > 59 || second > 60) return undefined
  const millis = Date.UTC(year, month, day, hour, minute, Math.min(second, 59))
  const date = new Date(millis)
  // Date.UTC silently rolls 31 Feb over into March: such a date is malformed.
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month) return undefined
  return millis
}

// RFC 9110 5.6.7: an RFC 850 timestamp that "appears to be more than 50 years in the future"
// is in the most recent past year with the same last two digits. The whole timestamp is
// compared with the instant 50 calendar years from now, not the year alone: in June 2030,
// "01-Dec-80" is more than 50 years ahead (1980) while "01-Jun-80" is not (2080).
const resolveTwoDigitYear = (
  twoDigits: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nowMillis: number
): number => {
  const now = new Date(nowMillis)
  const currentYear = now.getUTCFullYear()
  const limit = Date.UTC(
    currentYear + 50,
    now.getUTCMonth(),
    now.getUTCDate(),
    now.getUTCHours(),
    now.getUTCMinutes(),
    now.getUTCSeconds(),
    now.getUTCMilliseconds()
  )
  // The latest candidate is in the next century; at most two steps back reach one that is not
  // more than 50 years ahead, since the century before the current one is always past.
  let year = currentYear - (currentYear % 100) + twoDigits + 100
  while (Date.UTC(year, month, day, hour, minute, second) > limit) year -= 100
  return year
}

/**
 * Parses an HTTP-date in any of the three forms a recipient must accept (RFC 9110 5.6.7:
 * IMF-fixdate, RFC 850, asctime) into epoch milliseconds, or `undefined` when malformed. An
 * RFC 850 two-digit year is resolved against `nowMillis` by the whole timestamp: a date more
 * than 50 calendar years ahead is in the previous century.
 */
const parseHttpDate = (value: string, nowMillis: number): number | undefined => {
  let match = imfFixdate.exec(value)
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match
    return toEpochMillis(Number(year), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  match = rfc850Date.exec(value)
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match
    const monthNumber = monthIndex[month!.toLowerCase()]
    if (monthNumber === undefined) return undefined
    const time = [Number(day), Number(hour), Number(minute), Number(second)] as const
    return toEpochMillis(resolveTwoDigitYear(Number(year), monthNumber, ...time, nowMillis), month!, ...time)
  }
  match = asctimeDate.exec(value)
  if (match !== null) {
    const [, month, day, hour, minute, second, year] = match
    return toEpochMillis(Number(year), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  return undefined
}

const parseDelaySeconds = (value: string): number | undefined =>
  digitsOnly.test(value) ? delayOfSeconds(Number(value)) : undefined

const untilEpochMillis = (epochMillis: number, nowMillis: number): number => Math.max(0, epochMillis - nowMillis)

/**
 * Parses a `Retry-After` value into milliseconds: delay-seconds (digits only, surrounding
 * whitespace allowed) or an HTTP-date (see `parseHttpDate`); a date in the past gives 0.
 * Anything malformed (negative, fractional, empty, an impossible date) gives `undefined`; it
 * never throws. Delay-seconds too large to represent give {@link largestDelayMillis}.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (value: string, nowMillis: number): number | undefined => {
  const trimmed = value.trim()
  if (trimmed === "") return undefined
  if (digitsOnly.test(trimmed)) return parseDelaySeconds(trimmed)
  const epochMillis = parseHttpDate(trimmed, nowMillis)
  return epochMillis === undefined ? undefined : untilEpochMillis(epochMillis, nowMillis)
}

// X-RateLimit-Reset is a delta in seconds for some APIs and a Unix timestamp for others
// (GitHub, Twitter). No delta is ever as long as 30 years, so anything that large is a time.
// A time too far ahead to represent is, like an oversized delta, the largest delay.
const unixSecondsThreshold = 1_000_000_000
const unixMillisThreshold = 1_000_000_000_000

// A decimal number of seconds (Discord's `1.234`, `1470173023.123`).
const decimalSeconds = /^\d{1,15}\.\d{1,9}$/
// A Go-style duration, as OpenAI's headers write them: `6m0s`, `1.5s`, `12ms`, `1h2m3s`.
const durationForm =
  /^(?:(\d{1,9}(?:\.\d{1,9})?)h)?(?:(\d{1,9}(?:\.\d{1,9})?)m)?(?:(\d{1,9}(?:\.\d{1,9})?)s)?(?:(\d{1,9}(?:\.\d{1,9})?)ms)?$/
// RFC 3339, as Anthropic's headers write a reset: `2026-12-07T11:22:33Z`, offsets and fractions allowed.
const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:[Zz]|[+-]\d{2}:\d{2})$/

const durationMillis = (value: string): number | undefined => {
  const match = durationForm.exec(value)
  if (match === null || value === "") return undefined
  const [, hours, minutes, seconds, millis] = match
  const part = (text: string | undefined, scale: number): number => (text === undefined ? 0 : Number(text) * scale)
  return Math.ceil(part(hours, 3_600_000) + part(minutes, 60_000) + part(seconds, 1000) + part(millis, 1))
}

// A number of seconds, or a Unix time in seconds (from 10^9) or milliseconds (from 10^12).
const secondsOrUnixTime = (n: number, nowMillis: number): number => {
  if (n >= unixMillisThreshold) return untilEpochMillis(Math.ceil(n), nowMillis)
  if (n >= unixSecondsThreshold) return untilEpochMillis(Math.ceil(n * 1000), nowMillis)
  return Math.ceil(n * 1000)
}

const dateMillis = (value: string, nowMillis: number): number | undefined => {
  if (rfc3339.test(value)) {
    const epochMillis = Date.parse(value.toUpperCase())
    return Number.isNaN(epochMillis) ? undefined : untilEpochMillis(epochMillis, nowMillis)
  }
  const epochMillis = parseHttpDate(value, nowMillis)
  return epochMillis === undefined ? undefined : untilEpochMillis(epochMillis, nowMillis)
}

/**
 * Reads a rate limit's reset into milliseconds from now, in any form the APIs send: a number of seconds, whole or
 * decimal (`30`, `1.234`); a Unix time, told from seconds by its size (the rule: from 10^9, September 2001, a number
 * is a Unix time in seconds, since no delta is ever 30 years; from 10^12 in milliseconds), decimals allowed; a
 * duration (`6m0s`, `1.5s`, `12ms`); an RFC 3339 time (`2026-12-07T11:22:33Z`); or an HTTP-date. A time in the past
 * gives 0, a fraction of a millisecond rounds up. Anything else gives `undefined`; it never throws. Uncapped:
 * callers cap.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parseRateLimitReset = (value: string, nowMillis: number): number | undefined => {
  const trimmed = value.trim()
  if (digitsOnly.test(trimmed)) {
    const n = Number(trimmed)
    if (n >= unixMillisThreshold) return Number.isSafeInteger(n) ? untilEpochMillis(n, nowMillis) : largestDelayMillis
    if (n >= unixSecondsThreshold) return untilEpochMillis(n * 1000, nowMillis)
    return parseDelaySeconds(trimmed)
  }
  if (decimalSeconds.test(trimmed)) return secondsOrUnixTime(Number(trimmed), nowMillis)
  return durationMillis(trimmed) ?? dateMillis(trimmed, nowMillis)
}

/**
 * Reads a delay that is only ever a delay (Discord's `X-RateLimit-Reset-After: 1.234`): seconds, whole or decimal,
 * into milliseconds rounded up, never a Unix time; anything else gives `undefined`. Uncapped: callers cap.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseResetAfter = (value: string): number | undefined => {
  const trimmed = value.trim()
  if (digitsOnly.test(trimmed)) return parseDelaySeconds(trimmed)
  return decimalSeconds.test(trimmed) ? Math.ceil(Number(trimmed) * 1000) : undefined
}

// The IETF RateLimit field: `"policy";r=0;t=30, "other";r=5;t=2`. The policy that is
// exhausted (r=0) is the one that blocks; without r, the longest reset is the safe answer. Read
// as a 200's is (RateLimitHeaders): its first members only, however many a 429 lists.
const parseRateLimitField = (value: string): number | undefined => {
  let exhaustedReset: number | undefined
  let anyReset: number | undefined
  for (const text of StructuredField.split(value, ",")) {
    const member = StructuredField.parseMember(text)
    const reset = member.params.get("t")
    if (reset === undefined || !digitsOnly.test(reset)) continue
    const seconds = Number(reset)
    anyReset = Math.max(anyReset ?? 0, seconds)
    const remaining = member.params.get("r")
    if (remaining !== undefined && digitsOnly.test(remaining) && Number(remaining) === 0) {
      exhaustedReset = Math.max(exhaustedReset ?? 0, seconds)
    }
  }
  const seconds = exhaustedReset ?? anyReset
  return seconds === undefined ? undefined : delayOfSeconds(seconds)
}

// ---------------------------------------------------------------------------------------------
// Vendor retry hints

/**
 * The header names of the vendor retry hints, lower case: a wait in milliseconds read before `Retry-After`
 * (`retry-after-ms`, OpenAI's and every SDK generated as its are), and a server's word on whether to retry
 * (`x-should-retry`, `stripe-should-retry`: `true` or `false`). The first name present with a valid value speaks.
 *
 * @since 0.3.0
 * @category models
 */
export interface HintNames {
  readonly retryAfterMillis: ReadonlyArray<string>
  readonly shouldRetry: ReadonlyArray<string>
}

/**
 * The default hint names: `retry-after-ms`; `x-should-retry`, then `stripe-should-retry`.
 *
 * @since 0.3.0
 * @category defaults
 */
export const defaultHintNames: HintNames = {
  retryAfterMillis: ["retry-after-ms"],
  shouldRetry: ["x-should-retry", "stripe-should-retry"]
}

// Milliseconds with an optional fraction (`1234`, `12.5`), as OpenAI's SDK reads them with parseFloat.
const decimalMillis = /^\d{1,15}(?:\.\d{1,9})?$/

/**
 * Parses a `retry-after-ms` value into whole milliseconds, a fraction rounded up (never shorter than asked), or
 * `undefined` when it is not a non-negative decimal number; it never throws. Uncapped: the policy caps it as it caps
 * `Retry-After`.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseMillis = (value: string): number | undefined => {
  const trimmed = value.trim()
  return decimalMillis.test(trimmed) ? Math.ceil(Number(trimmed)) : undefined
}

/**
 * What the response says of retrying it: `true` or `false` from the first of `names` present with either value
 * (case-insensitive), or `undefined` when none says.
 *
 * @since 0.3.0
 * @category parsing
 */
export const shouldRetry = (
  headers: HeaderRecord,
  names: ReadonlyArray<string> = defaultHintNames.shouldRetry
): boolean | undefined => {
  for (const name of names) {
    const value = headers[name]?.trim().toLowerCase()
    if (value === "true") return true
    if (value === "false") return false
  }
  return undefined
}

/**
 * The delay of `retry-after-ms` (or the names given) when valid, else of `retry-after`, in milliseconds, or
 * `undefined`.
 */
const fromRetryAfterHeader = (
  headers: HeaderRecord,
  nowMillis: number,
  millisNames: ReadonlyArray<string> = defaultHintNames.retryAfterMillis
): number | undefined => {
  const precise = fromMillisHeaders(headers, millisNames)
  if (precise !== undefined) return precise
  const value = headers["retry-after"]
  return value === undefined ? undefined : parse(value, nowMillis)
}

const fromMillisHeaders = (headers: HeaderRecord, millisNames: ReadonlyArray<string>): number | undefined => {
  for (const name of millisNames) {
    const millis = headers[name]
    const parsed = millis === undefined ? undefined : parseMillis(millis)
    if (parsed !== undefined) return parsed
  }
  return undefined
}

// What a 429 asking for 0 in whole seconds (`Retry-After: 0`, a reset now) waits: a server counting whole seconds
// rounds the rest of its window down (Spotify's does), so 0 means under a second; at once would hit the same window.
const zeroSecondsOn429Millis = 1000

/**
 * The delay a response asks for, in milliseconds. `retry-after-ms` (or `millisNames`), then `Retry-After`, always
 * win; when both are absent or malformed, the rate-limit reset headers are read in this order: `RateLimit-Reset`
 * (seconds), `X-RateLimit-Reset` (seconds, or a Unix timestamp in seconds or milliseconds), and
 * the `t` parameter of the IETF `RateLimit` field (of the exhausted policy, `r=0`, when one is
 * named). Header names must be lower case.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromHeaders = (
  headers: HeaderRecord,
  nowMillis: number,
  millisNames: ReadonlyArray<string> = defaultHintNames.retryAfterMillis
): number | undefined => {
  const retryAfter = fromRetryAfterHeader(headers, nowMillis, millisNames)
  if (retryAfter !== undefined) return retryAfter
  const resetSeconds = headers["ratelimit-reset"]
  if (resetSeconds !== undefined) {
    const parsed = parseDelaySeconds(resetSeconds.trim())
    if (parsed !== undefined) return parsed
  }
  const xReset = headers["x-ratelimit-reset"]
  if (xReset !== undefined) {
    const parsed = parseRateLimitReset(xReset, nowMillis)
    if (parsed !== undefined) return parsed
  }
  const field = headers.ratelimit
  return field === undefined ? undefined : parseRateLimitField(field)
}

/**
 * The delay a transient response asks for, in milliseconds, or `undefined`. Rate-limit reset
 * headers describe a quota, so they mean "wait" only on a 429; any other status is read for
 * `retry-after-ms` (or `millisNames`) and `Retry-After` alone. A 429's whole-second 0 waits 1 s
 * (a window's rest rounded down); a precise `retry-after-ms: 0` stays 0; a 429 asking for nothing gets
 * `undefined`: the backoff decides.
 *
 * @since 0.1.0
 * @category parsing
 */
export const ofTransientResponse = (
  status: number,
  headers: HeaderRecord,
  nowMillis: number,
  millisNames: ReadonlyArray<string> = defaultHintNames.retryAfterMillis
): number | undefined => {
  if (status !== 429) return fromRetryAfterHeader(headers, nowMillis, millisNames)
  const precise = fromMillisHeaders(headers, millisNames)
  if (precise !== undefined) return precise
  const delay = fromHeaders(headers, nowMillis, [])
  return delay === 0 ? zeroSecondsOn429Millis : delay
}
