/**
 * What a response announces of its rate limit before a `429`: how many requests are left and when the quota
 * resets, read from the IETF fields (`RateLimit` with `RateLimit-Policy`, draft-ietf-httpapi-ratelimit-headers;
 * the earlier drafts' `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`), the common
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`, and header names a user adds. Plain
 * functions of a header record and the current time: a value that is not a non-negative integer is ignored,
 * never thrown on, and a reset is capped at a day as a `Retry-After` cool-down is.
 *
 * @example
 * ```ts
 * import { RateLimitHeaders } from "@effect-http-resilience/core"
 *
 * const headers = { ratelimit: '"default";r=0;t=30', "ratelimit-policy": '"default";q=100;w=60' }
 * RateLimitHeaders.read(headers, Date.now()) // { remaining: 0, resetMillis: 30000, limit: 100 }
 * ```
 *
 * @since 0.2.0
 */
import * as CoolDown from "./CoolDown.js"
import { type HeaderRecord, parseRateLimitReset, parseResetAfter } from "./RetryAfter.js"
import * as Settings from "./Settings.js"
import * as StructuredField from "./StructuredField.js"

/**
 * What a response says of its rate limit: the most restrictive of the forms it carries.
 *
 * @since 0.2.0
 * @category models
 */
export interface Announcement {
  /** Requests the server still allows in its current window; 0: none until the reset. */
  readonly remaining: number
  /** Milliseconds until the quota resets, at most {@link CoolDown.maxMillis}; `undefined` when not said. */
  readonly resetMillis: number | undefined
  /** The quota of the window, when announced. */
  readonly limit: number | undefined
  /**
   * Which of the origin's quotas this is, when the server names it (IETF `pk`, Discord's `X-RateLimit-Bucket`,
   * GitHub's `x-ratelimit-resource`): separate quotas keep separate budgets.
   */
  readonly quota?: string | undefined
}

/**
 * A set of header names that a server uses instead of the common ones, lower case. `reset` is read as
 * `X-RateLimit-Reset` is: seconds from now, or a Unix time.
 *
 * @since 0.2.0
 * @category models
 */
export interface HeaderNames {
  readonly remaining: string
  readonly reset?: string | undefined
  readonly limit?: string | undefined
}

// Structured-field integers have at most 15 digits (RFC 8941 3.3.1), so they stay exact.
const wholeNumber = /^\d{1,15}$/

const integerOf = (value: string | undefined): number | undefined => {
  const trimmed = value?.trim()
  return trimmed !== undefined && wholeNumber.test(trimmed) ? Number(trimmed) : undefined
}

const cappedSeconds = (seconds: number): number => Math.min(CoolDown.maxMillis, seconds * 1000)

const capped = (millis: number | undefined): number | undefined =>
  millis === undefined ? undefined : Math.min(CoolDown.maxMillis, millis)

// A quota's name as a key: at most 64 visible ASCII characters (a hostile one is ignored, not kept).
const quotaName = /^[\x21-\x7e]{1,64}$/

const quotaOf = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed !== undefined && quotaName.test(trimmed) ? trimmed : undefined
}

// A quota unit other than requests (`qu="content-bytes"`, `"concurrent-requests"`) counts something else.
const countsRequests = (unit: string | undefined): boolean =>
  unit === undefined || unit === '"requests"' || unit === "requests"

// The latest draft: `RateLimit: "default";r=50;t=30` names a policy of `RateLimit-Policy: "default";q=100;w=60`.
// Without `t`, the policy's window `w` bounds when the quota resets. A policy of another unit (`qu`) is not read;
// a partition key (`pk`) names the quota.
const ietfReadings = (field: string, policyField: string | undefined): Array<Announcement> => {
  const policies = new Map<string, StructuredField.Member>()
  for (const member of StructuredField.split(policyField ?? "", ",").map(StructuredField.parseMember))
    policies.set(member.item, member)
  const readings: Array<Announcement> = []
  for (const member of StructuredField.split(field, ",").map(StructuredField.parseMember)) {
    const remaining = integerOf(member.params.get("r"))
    if (remaining === undefined) continue
    const policy = policies.get(member.item)
    if (!countsRequests(member.params.get("qu") ?? policy?.params.get("qu"))) continue
    const resetSeconds = integerOf(member.params.get("t")) ?? integerOf(policy?.params.get("w"))
    readings.push({
      remaining,
      resetMillis: resetSeconds === undefined ? undefined : cappedSeconds(resetSeconds),
      limit: integerOf(policy?.params.get("q")),
      quota: quotaOf(member.params.get("pk") ?? policy?.params.get("pk"))
    })
  }
  return readings
}

// An intermediate draft's dictionary: `RateLimit: limit=100, remaining=50, reset=30`.
const dictionaryReading = (field: string): Announcement | undefined => {
  const entries = new Map<string, string>()
  for (const member of StructuredField.split(field, ",")) {
    const equals = member.indexOf("=")
    entries.set(
      (equals === -1 ? member : member.slice(0, equals)).trim(),
      equals === -1 ? "" : member.slice(equals + 1)
    )
  }
  const remaining = integerOf(entries.get("remaining"))
  if (remaining === undefined) return undefined
  const reset = integerOf(entries.get("reset"))
  return {
    remaining,
    resetMillis: reset === undefined ? undefined : cappedSeconds(reset),
    limit: integerOf(entries.get("limit"))
  }
}

// The first quota of a list such as `100, 100;w=60`.
const firstQuota = (value: string | undefined): number | undefined =>
  value === undefined
    ? undefined
    : integerOf(StructuredField.parseMember(StructuredField.split(value, ",")[0] ?? "").item)

// The earliest draft: `RateLimit-Remaining: 50`, `RateLimit-Reset: 30` (seconds only).
const draftReading = (headers: HeaderRecord): Announcement | undefined => {
  const remaining = integerOf(headers["ratelimit-remaining"])
  if (remaining === undefined) return undefined
  const reset = integerOf(headers["ratelimit-reset"])
  return {
    remaining,
    resetMillis: reset === undefined ? undefined : cappedSeconds(reset),
    limit: firstQuota(headers["ratelimit-limit"])
  }
}

// A dialect's names: a user's, or one the library knows, with a delay-only reset and the names of its quota.
interface Dialect extends HeaderNames {
  readonly resetAfter?: string | undefined
  readonly quota?: ReadonlyArray<string> | undefined
}

const headerOf = (headers: HeaderRecord, name: string | undefined): string | undefined =>
  name === undefined ? undefined : headers[name]

// `X-RateLimit-*`, the dialects below and a user's names: the reset in any form RetryAfter.parseRateLimitReset reads.
const namedReading = (headers: HeaderRecord, names: Dialect, nowMillis: number): Announcement | undefined => {
  const remaining = integerOf(headers[names.remaining])
  if (remaining === undefined) return undefined
  const after = headerOf(headers, names.resetAfter)
  const reset = headerOf(headers, names.reset)
  const resetMillis =
    (after === undefined ? undefined : parseResetAfter(after)) ??
    (reset === undefined ? undefined : parseRateLimitReset(reset, nowMillis))
  let quota: string | undefined
  for (const name of names.quota ?? []) quota ??= quotaOf(headers[name])
  return {
    remaining,
    resetMillis: capped(resetMillis),
    limit: firstQuota(headerOf(headers, names.limit)),
    quota
  }
}

// GitHub's (`x-ratelimit-resource` names the quota) and Discord's (`X-RateLimit-Bucket`, `-Reset-After`).
const xRateLimit: Dialect = {
  remaining: "x-ratelimit-remaining",
  reset: "x-ratelimit-reset",
  resetAfter: "x-ratelimit-reset-after",
  limit: "x-ratelimit-limit",
  quota: ["x-ratelimit-bucket", "x-ratelimit-resource"]
}

// The request quotas of OpenAI (and every SDK generated as its are) and Anthropic; their `-tokens` twins count
// tokens, not requests, and are never read.
const vendorDialects: ReadonlyArray<Dialect> = [
  {
    remaining: "x-ratelimit-remaining-requests",
    reset: "x-ratelimit-reset-requests",
    limit: "x-ratelimit-limit-requests"
  },
  {
    remaining: "anthropic-ratelimit-requests-remaining",
    reset: "anthropic-ratelimit-requests-reset",
    limit: "anthropic-ratelimit-requests-limit"
  }
]

// Exhausted quotas block until the last of them resets; otherwise the quota with the fewest left speaks.
const mostRestrictive = (readings: ReadonlyArray<Announcement>): Announcement | undefined => {
  let chosen: Announcement | undefined
  for (const reading of readings) {
    if (chosen === undefined || reading.remaining < chosen.remaining) chosen = reading
    else if (reading.remaining === 0 && (reading.resetMillis ?? 0) > (chosen.resetMillis ?? 0)) chosen = reading
  }
  return chosen
}

/**
 * Reads what a response announces of its rate limit, or `undefined` when it announces no remaining count. Every
 * form present is read and the most restrictive wins: when a quota is exhausted (`remaining` 0), the one that
 * resets last; otherwise the one with the fewest requests left. A remaining count of 0 without any reset says
 * nothing of when: the caller decides. Header names must be lower case; `extra` adds a server's own names.
 *
 * @since 0.2.0
 * @category parsing
 */
export const read = (
  headers: HeaderRecord,
  nowMillis: number,
  extra: ReadonlyArray<HeaderNames> = []
): Announcement | undefined => {
  const readings: Array<Announcement> = []
  const field = headers.ratelimit
  if (field !== undefined) {
    const ietf = ietfReadings(field, headers["ratelimit-policy"])
    if (ietf.length > 0) readings.push(...ietf)
    else {
      const dictionary = dictionaryReading(field)
      if (dictionary !== undefined) readings.push(dictionary)
    }
  }
  for (const reading of [draftReading(headers), namedReading(headers, xRateLimit, nowMillis)]) {
    if (reading !== undefined) readings.push(reading)
  }
  for (const names of [...vendorDialects, ...extra]) {
    const reading = namedReading(headers, names, nowMillis)
    if (reading !== undefined) readings.push(reading)
  }
  return mostRestrictive(readings)
}

// ---------------------------------------------------------------------------------------------
// The `rateLimitHeaders` option

/**
 * The `rateLimitHeaders` option checked: the extra header names to read besides the standard ones.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resolved {
  readonly extra: ReadonlyArray<HeaderNames>
}

/**
 * The most sets of extra names: each is read on every response.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxExtra = 8

// RFC 9110 5.6.2 token characters.
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

const nameOf = (option: string, value: unknown): Settings.Checked<string> =>
  typeof value === "string" && headerName.test(value)
    ? Settings.valid(value.toLowerCase())
    : Settings.invalid(option, "must be a header name (letters, digits and !#$%&'*+-.^_`|~)", value)

const optionalNameOf = (option: string, value: unknown): Settings.Checked<string | undefined> =>
  value === undefined ? Settings.valid(undefined) : nameOf(option, value)

const extraNamesOf = (option: string, input: unknown): Settings.Checked<HeaderNames> =>
  Settings.andThen(Settings.optionsRecord(option, input, ["remaining", "reset", "limit"]), (given) =>
    Settings.all({
      remaining: nameOf(`${option}.remaining`, given.remaining),
      reset: optionalNameOf(`${option}.reset`, given.reset),
      limit: optionalNameOf(`${option}.limit`, given.limit)
    })
  )

const extraOf = (input: unknown): Settings.Checked<ReadonlyArray<HeaderNames>> => {
  const option = "rateLimitHeaders.extra"
  if (input === undefined) return Settings.valid([])
  if (!Array.isArray(input) || input.length > maxExtra) {
    return Settings.invalid(option, `must be a list of at most ${maxExtra} { remaining, reset?, limit? }`, input)
  }
  const names: Array<HeaderNames> = []
  for (const [index, entry] of input.entries()) {
    const checked = extraNamesOf(`${option}[${index}]`, entry)
    if (checked._tag === "Invalid") return checked
    names.push(checked.value)
  }
  return Settings.valid(names)
}

/**
 * Checks the `rateLimitHeaders` option: `undefined` or `false` (the default: off), `true` (the standard headers),
 * or `{ extra? }`, a list of at most {@link maxExtra} `{ remaining, reset?, limit? }` header names read besides
 * them. Names are lower-cased; a bad one is named in full (`rateLimitHeaders.extra[0].reset`).
 *
 * @since 0.2.0
 * @category checks
 */
export const check = (input: unknown): Settings.Checked<Resolved | undefined> => {
  if (input === undefined || input === false) return Settings.valid(undefined)
  if (input === true) return Settings.valid({ extra: [] })
  if (!Settings.isPlainObject(input)) {
    return Settings.invalid("rateLimitHeaders", "must be true, false or { extra: [{ remaining, reset? }] }", input)
  }
  return Settings.andThen(Settings.optionsRecord("rateLimitHeaders", input, ["extra"]), (given) =>
    Settings.andThen(extraOf(given.extra), (extra): Settings.Checked<Resolved> => Settings.valid({ extra }))
  )
}
