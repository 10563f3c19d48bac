/**
 * `/api/chaos/rate-limit/:key`: a server that enforces `limit` requests per `window` per key and says so before it
 * refuses, in the IETF fields, the `X-RateLimit-*` ones, both, neither, or a real API's dialect (OpenAI, Anthropic,
 * Discord, GitHub); beyond the limit, `429` with `Retry-After` (rounded up, or down as Spotify's, or left out).
 * Windows are fixed, each starting at the first request after the previous one ended, as GitHub's; or, with
 * `algorithm=sliding`, a sliding log (Spotify's rolling window): a request is let through when fewer than `limit`
 * were let through in the `window` before it.
 *
 * @internal
 */
import { BadRequest, quote } from "./errors.js"
import { type Answer, type Exchange, json } from "./exchange.js"
import { integerParam } from "./params.js"
import { setRecent } from "./recent.js"
import type { ChaosState } from "./state.js"

const rateLimitDefaults = {
  limit: 10,
  windowSeconds: 1,
  headers: "both",
  xReset: "unix",
  algorithm: "fixed",
  retryAfter: "ceil"
} as const

const algorithms = ["fixed", "sliding"] as const
type Algorithm = (typeof algorithms)[number]

const headerForms = ["ietf", "x", "both", "none", "openai", "anthropic", "discord", "github"] as const
type HeaderForm = (typeof headerForms)[number]

// `ceil`: the seconds to the window's end rounded up; `floor`: rounded down, 0 in its last second (Spotify's);
// `none`: no Retry-After; `floor-or-none`: rounded down on the server's odd 429s, left out on its even ones.
const retryAfterForms = ["ceil", "floor", "none", "floor-or-none"] as const
type RetryAfterForm = (typeof retryAfterForms)[number]

const xResetForms = ["unix", "seconds"] as const
type XResetForm = (typeof xResetForms)[number]

const maxKeyLength = 128

/** One key's current window: when it started (monotonic milliseconds) and the requests it let through. */
interface Window {
  readonly startedAt: number
  readonly allowed: number
}

/**
 * The rate-limited keys of every namespace and what they counted, within `maxKeys` (the least recently used
 * forgotten first).
 *
 * @internal
 */
export interface RateLimitState {
  /**
   * Counts a request for the key and answers whether it is within the limit, what is left, the milliseconds to the
   * window's end, and the 429s the server answered so far (every key), this one included.
   */
  readonly admit: (
    id: string,
    limit: number,
    windowMillis: number,
    nowMillis: number,
    algorithm?: Algorithm
  ) => { readonly allowed: boolean; readonly remaining: number; readonly resetMillis: number; readonly limited: number }
  readonly forget: (belongs: (id: string) => boolean) => void
  readonly reset: () => void
  readonly snapshot: () => { readonly allowed: number; readonly limited: number }
}

/** @internal */
export const makeRateLimitState = (maxKeys: number): RateLimitState => {
  const windows = new Map<string, Window>()
  // The sliding logs: each key's times let through within its last window, oldest first.
  const logs = new Map<string, ReadonlyArray<number>>()
  let allowed = 0
  let limited = 0
  const slide = (id: string, limit: number, windowMillis: number, nowMillis: number) => {
    const recent = (logs.get(id) ?? []).filter((at) => at > nowMillis - windowMillis)
    const admitted = recent.length < limit
    const next = admitted ? [...recent, nowMillis] : recent
    setRecent(logs, id, next, maxKeys)
    if (admitted) allowed++
    else limited++
    const oldest = next[0] ?? nowMillis
    return {
      allowed: admitted,
      remaining: limit - next.length,
      resetMillis: oldest + windowMillis - nowMillis,
      limited
    }
  }
  return {
    admit: (id, limit, windowMillis, nowMillis, algorithm = "fixed") => {
      if (algorithm === "sliding") return slide(id, limit, windowMillis, nowMillis)
      const known = windows.get(id)
      const current =
        known === undefined || nowMillis >= known.startedAt + windowMillis
          ? { startedAt: nowMillis, allowed: 0 }
          : known
      const admitted = current.allowed < limit
      const next = admitted ? { ...current, allowed: current.allowed + 1 } : current
      setRecent(windows, id, next, maxKeys)
      if (admitted) allowed++
      else limited++
      return {
        allowed: admitted,
        remaining: limit - next.allowed,
        // Elapsed first: (start + window) - now on fractional times can come out a hair over the window.
        resetMillis: windowMillis - (nowMillis - next.startedAt),
        limited
      }
    },
    forget: (belongs) => {
      for (const id of windows.keys()) if (belongs(id)) windows.delete(id)
      for (const id of logs.keys()) if (belongs(id)) logs.delete(id)
    },
    reset: () => {
      windows.clear()
      logs.clear()
      allowed = 0
      limited = 0
    },
    snapshot: () => ({ allowed, limited })
  }
}

const choiceParam = <A extends string>(
  query: URLSearchParams,
  name: string,
  allowed: ReadonlyArray<A>,
  fallback: A
): A => {
  const raw = query.get(name)
  if (raw === null) return fallback
  const found = allowed.find((candidate) => candidate === raw)
  if (found === undefined) throw new BadRequest(`${name} must be one of ${allowed.join(", ")}, got ${quote(raw)}`)
  return found
}

interface Quota {
  readonly limit: number
  readonly windowSeconds: number
  readonly remaining: number
  /** Seconds to the window's end, rounded up so that a client never comes early. */
  readonly reset: number
  /** Milliseconds to the window's end, rounded up. */
  readonly resetMillis: number
  /** Milliseconds to the window's end, unrounded: what Spotify's rounding down reads. */
  readonly exactResetMillis: number
}

// Seconds with three decimals (Discord's form), from whole milliseconds.
const decimalSeconds = (millis: number): string => (millis / 1000).toFixed(3)

// OpenAI's Go-style duration: `850ms`, `1.5s`, `6m0s`.
const duration = (millis: number): string => {
  if (millis < 1000) return `${millis}ms`
  const minutes = Math.floor(millis / 60_000)
  const seconds = `${(millis % 60_000) / 1000}s`
  return minutes > 0 ? `${minutes}m${seconds}` : seconds
}

// Each API's documented headers, its request quota the route's; a token quota, where the API has one, never binding.
const dialectHeaders = (form: HeaderForm, quota: Quota): Record<string, string> | undefined => {
  const resetAt = Date.now() + quota.resetMillis
  switch (form) {
    case "openai":
      return {
        "x-ratelimit-limit-requests": String(quota.limit),
        "x-ratelimit-remaining-requests": String(quota.remaining),
        "x-ratelimit-reset-requests": duration(quota.resetMillis),
        "x-ratelimit-limit-tokens": "150000",
        "x-ratelimit-remaining-tokens": "149000",
        "x-ratelimit-reset-tokens": "6m0s"
      }
    case "anthropic": {
      // RFC 3339 to the second, as Anthropic sends it, rounded up.
      const at = new Date(Math.ceil(resetAt / 1000) * 1000).toISOString().replace(".000Z", "Z")
      return {
        "anthropic-ratelimit-requests-limit": String(quota.limit),
        "anthropic-ratelimit-requests-remaining": String(quota.remaining),
        "anthropic-ratelimit-requests-reset": at,
        "anthropic-ratelimit-tokens-limit": "80000",
        "anthropic-ratelimit-tokens-remaining": "79000",
        "anthropic-ratelimit-tokens-reset": at
      }
    }
    case "discord":
      return {
        "x-ratelimit-limit": String(quota.limit),
        "x-ratelimit-remaining": String(quota.remaining),
        "x-ratelimit-reset": decimalSeconds(Math.ceil(resetAt)),
        "x-ratelimit-reset-after": decimalSeconds(quota.resetMillis),
        "x-ratelimit-bucket": "chaos-bucket"
      }
    case "github":
      return {
        "x-ratelimit-limit": String(quota.limit),
        "x-ratelimit-remaining": String(quota.remaining),
        "x-ratelimit-used": String(quota.limit - quota.remaining),
        "x-ratelimit-reset": String(Math.ceil(resetAt / 1000)),
        "x-ratelimit-resource": "core"
      }
    default:
      return undefined
  }
}

/** The headers of the chosen forms; `reset` in whole seconds, rounded up so that a client never comes early. */
const announce = (form: HeaderForm, xReset: XResetForm, quota: Quota): Record<string, string> => {
  const dialect = dialectHeaders(form, quota)
  if (dialect !== undefined) return dialect
  const ietf = {
    ratelimit: `"default";r=${quota.remaining};t=${quota.reset}`,
    "ratelimit-policy": `"default";q=${quota.limit};w=${quota.windowSeconds}`
  }
  const x = {
    "x-ratelimit-limit": String(quota.limit),
    "x-ratelimit-remaining": String(quota.remaining),
    "x-ratelimit-reset": String(xReset === "unix" ? Math.ceil(Date.now() / 1000) + quota.reset : quota.reset)
  }
  switch (form) {
    case "ietf":
      return ietf
    case "x":
      return x
    case "none":
      return {}
    default:
      return { ...ietf, ...x }
  }
}

// A 429's Retry-After in the chosen form; `limited`, the server's 429s so far, this one included.
const retryAfterOf = (form: RetryAfterForm, quota: Quota, limited: number): Record<string, string> => {
  // From the unrounded time: a second request within a millisecond of the first is 999.x ms from the end, "0".
  const floor = { "retry-after": String(Math.floor(quota.exactResetMillis / 1000)) }
  switch (form) {
    case "ceil":
      return { "retry-after": String(quota.reset) }
    case "floor":
      return floor
    case "none":
      return {}
    case "floor-or-none":
      return limited % 2 === 1 ? floor : {}
  }
}

/**
 * `/api/chaos/rate-limit/:key?limit=10&window=1&headers=both&xReset=unix&algorithm=fixed&retryAfter=ceil`: at most
 * `limit` requests per `window` seconds for the key (in its namespace), in fixed windows or (`algorithm=sliding`) in
 * any window before a request (a key's fixed and sliding counts are apart). Every answer announces the quota in the
 * chosen `headers`; within it, `200` `{ key, limit, remaining, reset }`; beyond, `429` with `Retry-After` (the
 * seconds to the window's end, in the chosen `retryAfter` form).
 *
 * @internal
 */
export const rateLimitRoute =
  (state: ChaosState) =>
  ({ namespace, query }: Exchange, params: Readonly<Record<string, string>>): Answer => {
    const key = params.key ?? ""
    if (key.length === 0 || key.length > maxKeyLength) {
      throw new BadRequest(`rate-limit key must have 1 to ${maxKeyLength} characters`)
    }
    const limit = integerParam(query, "limit", { min: 1, max: 1_000_000 }, rateLimitDefaults.limit)
    const windowSeconds = integerParam(query, "window", { min: 1, max: 86_400 }, rateLimitDefaults.windowSeconds)
    const form = choiceParam(query, "headers", headerForms, rateLimitDefaults.headers)
    const xReset = choiceParam(query, "xReset", xResetForms, rateLimitDefaults.xReset)
    const algorithm = choiceParam(query, "algorithm", algorithms, rateLimitDefaults.algorithm)
    const retryAfter = choiceParam(query, "retryAfter", retryAfterForms, rateLimitDefaults.retryAfter)
    const admitted = state.admitRateLimited(namespace, key, limit, windowSeconds * 1000, algorithm)
    const resetMillis = Math.max(1, Math.ceil(admitted.resetMillis))
    const reset = Math.max(1, Math.ceil(admitted.resetMillis / 1000))
    const quota = {
      limit,
      windowSeconds,
      remaining: admitted.remaining,
      reset,
      resetMillis,
      exactResetMillis: admitted.resetMillis
    }
    const headers = announce(form, xReset, quota)
    if (admitted.allowed) return json({ key, limit, remaining: admitted.remaining, reset }, 200, headers)
    return json(
      {
        status: 429,
        error: "Too Many Requests",
        message: `Key ${quote(key)} allows ${limit} requests per ${windowSeconds} s`,
        reset
      },
      429,
      { ...headers, ...retryAfterOf(retryAfter, quota, admitted.limited) }
    )
  }
