import type * as Headers from "@effect/platform/Headers"
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

// Larger delays would lose precision as milliseconds (and no server means them).
const maxDelaySeconds = Math.floor(Number.MAX_SAFE_INTEGER / 1000)

const monthIndex: Record<string, number> = {
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

// RFC 9110: a two-digit year more than 50 years in the future is the most recent past year
// with the same last two digits.
const expandTwoDigitYear = (twoDigits: number, nowMillis: number): number => {
  const currentYear = new Date(nowMillis).getUTCFullYear()
  const year = currentYear - (currentYear % 100) + twoDigits
  if (year > currentYear + 50) return year - 100
  return year + 100 <= currentYear + 50 ? year + 100 : year
}

/** @internal */
export const parseHttpDate = (value: string, nowMillis: number): number | undefined => {
  let match = imfFixdate.exec(value)
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match
    return toEpochMillis(Number(year), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  match = rfc850Date.exec(value)
  if (match !== null) {
    const [, day, month, year, hour, minute, second] = match
    return toEpochMillis(
      expandTwoDigitYear(Number(year), nowMillis),
      month!,
      Number(day),
      Number(hour),
      Number(minute),
      Number(second)
    )
  }
  match = asctimeDate.exec(value)
  if (match !== null) {
    const [, month, day, hour, minute, second, year] = match
    return toEpochMillis(Number(year), month!, Number(day), Number(hour), Number(minute), Number(second))
  }
  return undefined
}

const parseDelaySeconds = (value: string): Option.Option<Duration.Duration> => {
  if (!digitsOnly.test(value)) return Option.none()
  const seconds = Number(value)
  return seconds > maxDelaySeconds ? Option.none() : Option.some(Duration.seconds(seconds))
}

const untilEpochMillis = (epochMillis: number, nowMillis: number): Duration.Duration =>
  Duration.millis(Math.max(0, epochMillis - nowMillis))

/** @internal */
export const parse = (value: string, nowMillis: number): Option.Option<Duration.Duration> => {
  const trimmed = value.trim()
  if (trimmed === "") return Option.none()
  if (digitsOnly.test(trimmed)) return parseDelaySeconds(trimmed)
  const epochMillis = parseHttpDate(trimmed, nowMillis)
  return epochMillis === undefined ? Option.none() : Option.some(untilEpochMillis(epochMillis, nowMillis))
}

// X-RateLimit-Reset is a delta in seconds for some APIs and a Unix timestamp for others
// (GitHub, Twitter). No delta is ever as long as 30 years, so anything that large is a time.
const unixSecondsThreshold = 1_000_000_000
const unixMillisThreshold = 1_000_000_000_000

const parseRateLimitReset = (value: string, nowMillis: number): Option.Option<Duration.Duration> => {
  const trimmed = value.trim()
  if (!digitsOnly.test(trimmed)) return Option.none()
  const n = Number(trimmed)
  if (n >= unixMillisThreshold)
    return Number.isSafeInteger(n) ? Option.some(untilEpochMillis(n, nowMillis)) : Option.none()
  if (n >= unixSecondsThreshold) return Option.some(untilEpochMillis(n * 1000, nowMillis))
  return parseDelaySeconds(trimmed)
}

const rateLimitItem = /(?:^|;)\s*(r|t)\s*=\s*(\d+)\s*(?=;|$)/g

// The IETF RateLimit field: `"policy";r=0;t=30, "other";r=5;t=2`. The policy that is
// exhausted (r=0) is the one that blocks; without r, the longest reset is the safe answer.
const parseRateLimitField = (value: string): Option.Option<Duration.Duration> => {
  let exhaustedReset: number | undefined
  let anyReset: number | undefined
  for (const item of value.split(",")) {
    let remaining: number | undefined
    let reset: number | undefined
    for (const match of item.matchAll(rateLimitItem)) {
      const n = Number(match[2])
      if (match[1] === "r") remaining = n
      else reset = n
    }
    if (reset === undefined || reset > maxDelaySeconds) continue
    anyReset = Math.max(anyReset ?? 0, reset)
    if (remaining === 0) exhaustedReset = Math.max(exhaustedReset ?? 0, reset)
  }
  const seconds = exhaustedReset ?? anyReset
  return seconds === undefined ? Option.none() : Option.some(Duration.seconds(seconds))
}

/** @internal */
export const fromRetryAfterHeader = (headers: Headers.Headers, nowMillis: number): Option.Option<Duration.Duration> => {
  const value = headers["retry-after"]
  return value === undefined ? Option.none() : parse(value, nowMillis)
}

/** @internal */
export const fromHeaders = (headers: Headers.Headers, nowMillis: number): Option.Option<Duration.Duration> => {
  const retryAfter = fromRetryAfterHeader(headers, nowMillis)
  if (Option.isSome(retryAfter)) return retryAfter
  const resetSeconds = headers["ratelimit-reset"]
  if (resetSeconds !== undefined) {
    const parsed = parseDelaySeconds(resetSeconds.trim())
    if (Option.isSome(parsed)) return parsed
  }
  const xReset = headers["x-ratelimit-reset"]
  if (xReset !== undefined) {
    const parsed = parseRateLimitReset(xReset, nowMillis)
    if (Option.isSome(parsed)) return parsed
  }
  const field = headers.ratelimit
  return field === undefined ? Option.none() : parseRateLimitField(field)
}
