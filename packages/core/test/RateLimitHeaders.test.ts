import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as CoolDown from "../src/CoolDown.js"
import { check, maxExtra, read } from "../src/RateLimitHeaders.js"
import type * as Settings from "../src/Settings.js"

const now = Date.parse("2026-12-04T12:00:00Z")
const problemOf = (checked: Settings.Checked<unknown>) => (checked._tag === "Invalid" ? checked.problem : undefined)

describe("read: the IETF fields", () => {
  it("reads the latest draft's RateLimit with its policy's quota", () => {
    const headers = { ratelimit: '"default";r=50;t=30', "ratelimit-policy": '"default";q=100;w=60' }
    expect(read(headers, now)).toEqual({ remaining: 50, resetMillis: 30_000, limit: 100 })
  })

  it("takes the policy's window as the reset when RateLimit has no t", () => {
    const headers = { ratelimit: '"default";r=0', "ratelimit-policy": '"default";q=100;w=60' }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 60_000, limit: 100 })
  })

  it("reads RateLimit alone, without a policy", () => {
    expect(read({ ratelimit: '"burst";r=3;t=1' }, now)).toEqual({ remaining: 3, resetMillis: 1_000, limit: undefined })
    expect(read({ ratelimit: "burst;r=3" }, now)).toEqual({ remaining: 3, resetMillis: undefined, limit: undefined })
  })

  it("of several policies, the exhausted one that resets last blocks", () => {
    const headers = {
      ratelimit: '"second";r=4;t=1, "hour";r=0;t=1200, "day";r=0;t=3600',
      "ratelimit-policy": '"second";q=5;w=1, "hour";q=1000;w=3600, "day";q=5000;w=86400'
    }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 3_600_000, limit: 5000 })
  })

  it("of several policies none exhausted, the one with the fewest left speaks", () => {
    const headers = { ratelimit: '"a";r=40;t=10, "b";r=7;t=50, "c";r=9;t=5' }
    expect(read(headers, now)).toEqual({ remaining: 7, resetMillis: 50_000, limit: undefined })
  })

  it("keeps quoted commas and semicolons inside a policy's name", () => {
    const headers = { ratelimit: '"a,b;c";r=2;t=9', "ratelimit-policy": '"a,b;c";q=10;w=60' }
    expect(read(headers, now)).toEqual({ remaining: 2, resetMillis: 9_000, limit: 10 })
  })

  it("reads an intermediate draft's dictionary", () => {
    expect(read({ ratelimit: "limit=100, remaining=0, reset=30" }, now)).toEqual({
      remaining: 0,
      resetMillis: 30_000,
      limit: 100
    })
  })

  it("reads the earlier draft's RateLimit-Limit, -Remaining and -Reset", () => {
    const headers = { "ratelimit-limit": "100, 100;w=60", "ratelimit-remaining": "0", "ratelimit-reset": "45" }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 45_000, limit: 100 })
  })
})

describe("read: X-RateLimit and a server's own names", () => {
  it("reads X-RateLimit-Reset as seconds from now", () => {
    const headers = { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "12", "x-ratelimit-reset": "30" }
    expect(read(headers, now)).toEqual({ remaining: 12, resetMillis: 30_000, limit: 60 })
  })

  it("reads X-RateLimit-Reset as a Unix time in seconds, as GitHub sends it", () => {
    const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 90) }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 90_000, limit: undefined })
  })

  it("reads a Unix time in the past as a reset now", () => {
    const headers = { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 - 90) }
    expect(read(headers, now)?.resetMillis).toBe(0)
  })

  it("reads names a user adds", () => {
    const extra = [{ remaining: "x-app-remaining", reset: "x-app-reset", limit: "x-app-limit" }]
    const headers = { "x-app-remaining": "0", "x-app-reset": "20", "x-app-limit": "5" }
    expect(read(headers, now, extra)).toEqual({ remaining: 0, resetMillis: 20_000, limit: 5 })
    expect(read(headers, now)).toBeUndefined()
  })

  it("of several forms, the most restrictive wins", () => {
    const headers = {
      ratelimit: '"default";r=5;t=10',
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "40"
    }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 40_000, limit: undefined })
  })
})

describe("read: each API's dialect, as its documentation shows it", () => {
  it("OpenAI: the request quota, its reset a duration; the token quota is never read", () => {
    const headers = {
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "59",
      "x-ratelimit-reset-requests": "1s",
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-tokens": "0",
      "x-ratelimit-reset-tokens": "6m0s"
    }
    expect(read(headers, now)).toEqual({ remaining: 59, resetMillis: 1_000, limit: 60, quota: undefined })
    for (const [reset, millis] of [
      ["6m0s", 360_000],
      ["1.5s", 1_500],
      ["12ms", 12],
      ["1h2m3.5s", 3_723_500],
      ["0.4ms", 1]
    ] as const) {
      expect(read({ ...headers, "x-ratelimit-reset-requests": reset }, now)?.resetMillis).toBe(millis)
    }
    // The tokens alone say nothing of requests.
    expect(read({ "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s" }, now)).toBeUndefined()
  })

  it("Anthropic: the request quota, its reset an RFC 3339 time; the tokens are never read", () => {
    const headers = {
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": "2026-12-04T12:00:30Z",
      "anthropic-ratelimit-tokens-remaining": "0",
      "anthropic-ratelimit-tokens-reset": "2026-12-04T13:00:00Z",
      "anthropic-ratelimit-input-tokens-remaining": "0"
    }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 30_000, limit: 50, quota: undefined })
    expect(
      read({ ...headers, "anthropic-ratelimit-requests-reset": "2026-12-04T13:00:30.25+01:00" }, now)?.resetMillis
    ).toBe(30_250)
  })

  it("Discord: Reset-After in decimal seconds first, the reset an epoch with decimals, the bucket its quota", () => {
    const headers = {
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": String(now / 1000 + 1.234),
      "x-ratelimit-reset-after": "1.234",
      "x-ratelimit-bucket": "abcd1234"
    }
    expect(read(headers, now)).toEqual({ remaining: 0, resetMillis: 1_234, limit: 5, quota: "abcd1234" })
    const { "x-ratelimit-reset-after": _after, ...epochOnly } = headers
    expect(read(epochOnly, now)?.resetMillis).toBe(1_234)
    // Reset-After is a delay only: never a Unix time, however large (capped at a day).
    expect(read({ ...headers, "x-ratelimit-reset-after": "1700000000" }, now)?.resetMillis).toBe(CoolDown.maxMillis)
  })

  it("GitHub: the resource is the quota; Unix seconds and Unix milliseconds told apart by size", () => {
    const headers = {
      "x-ratelimit-limit": "5000",
      "x-ratelimit-remaining": "4999",
      "x-ratelimit-used": "1",
      "x-ratelimit-reset": String(now / 1000 + 60),
      "x-ratelimit-resource": "core"
    }
    expect(read(headers, now)).toEqual({ remaining: 4999, resetMillis: 60_000, limit: 5000, quota: "core" })
    expect(read({ ...headers, "x-ratelimit-reset": String(now + 60_000) }, now)?.resetMillis).toBe(60_000)
    // A hostile quota name is ignored, not kept.
    expect(read({ ...headers, "x-ratelimit-resource": "x".repeat(65) }, now)?.quota).toBeUndefined()
  })

  it("IETF (Cloudflare): a policy of another unit is not read; pk names the quota", () => {
    const headers = {
      ratelimit: '"bytes";r=0;t=60, "default";r=7;t=30;pk=:dXNlcjE=:',
      "ratelimit-policy": '"bytes";q=1000;w=60;qu="content-bytes", "default";q=50;w=60;qu="requests"'
    }
    expect(read(headers, now)).toEqual({ remaining: 7, resetMillis: 30_000, limit: 50, quota: ":dXNlcjE=:" })
    const concurrent = { ...headers, "ratelimit-policy": '"default";q=50;w=60;qu="concurrent-requests"' }
    expect(read({ ...concurrent, ratelimit: '"default";r=0;t=30' }, now)).toBeUndefined()
  })

  it("any Go-style duration reads as its milliseconds, rounded up", () =>
    fc.assert(
      fc.property(fc.nat({ max: 23 }), fc.nat({ max: 59 }), fc.nat({ max: 59_999 }), (hours, minutes, millis) => {
        const text = `${hours}h${minutes}m${millis / 1000}s`
        const headers = { "x-ratelimit-remaining-requests": "1", "x-ratelimit-reset-requests": text }
        expect(read(headers, now)?.resetMillis).toBe(hours * 3_600_000 + minutes * 60_000 + millis)
      })
    ))
})

describe("read: bad values", () => {
  it("announces nothing without a remaining count", () => {
    expect(read({}, now)).toBeUndefined()
    expect(read({ "x-ratelimit-reset": "30" }, now)).toBeUndefined()
    expect(read({ ratelimit: '"default";t=30' }, now)).toBeUndefined()
  })

  it("ignores values that are not non-negative integers", () => {
    for (const bad of ["-1", "1.5", "", "ten", "1e3", "0x10", "1234567890123456"]) {
      expect(read({ "x-ratelimit-remaining": bad }, now)).toBeUndefined()
      expect(read({ ratelimit: `"p";r=${bad}` }, now)).toBeUndefined()
    }
    expect(read({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "soon" }, now)).toEqual({
      remaining: 0,
      resetMillis: undefined,
      limit: undefined
    })
    expect(read({ ratelimit: '"p";r=1;t=-5' }, now)).toEqual({ remaining: 1, resetMillis: undefined, limit: undefined })
  })

  it("caps a reset at a day, as a Retry-After cool-down", () => {
    expect(read({ ratelimit: '"p";r=0;t=999999999999999' }, now)?.resetMillis).toBe(CoolDown.maxMillis)
    expect(read({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "172800" }, now)?.resetMillis).toBe(
      CoolDown.maxMillis
    )
  })

  it("never throws, and never answers a negative count or a reset beyond the cap", () => {
    const names = [
      "ratelimit",
      "ratelimit-policy",
      "ratelimit-remaining",
      "ratelimit-reset",
      "x-ratelimit-remaining",
      "x-ratelimit-reset-after",
      "x-ratelimit-remaining-requests",
      "x-ratelimit-reset-requests",
      "anthropic-ratelimit-requests-remaining",
      "anthropic-ratelimit-requests-reset"
    ]
    const value = fc.oneof(
      fc.string(),
      fc.stringMatching(/^("[a-z,;]*"|[a-z]+)(;[rtqw]=-?\d{0,17})*(, ?("[a-z]*"|[a-z]+)(;[rtqw]=\d{0,17})*)*$/),
      fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }).map(String),
      fc.stringMatching(/^(\d{1,12}(\.\d{1,12})?(h|m|s|ms)){0,4}$/),
      fc.date({ noInvalidDate: true }).map((date) => date.toISOString())
    )
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names, "x-ratelimit-reset"), value),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (headers, nowMillis) => {
          const announced = read(headers, nowMillis)
          if (announced === undefined) return
          expect(Number.isSafeInteger(announced.remaining) && announced.remaining >= 0).toBe(true)
          if (announced.resetMillis !== undefined) {
            expect(announced.resetMillis).toBeGreaterThanOrEqual(0)
            expect(announced.resetMillis).toBeLessThanOrEqual(CoolDown.maxMillis)
          }
        }
      )
    )
  })
})

describe("check: the rateLimitHeaders option", () => {
  it("is off by default and with false; true reads the standard headers", () => {
    expect(check(undefined)).toEqual({ _tag: "Valid", value: undefined })
    expect(check(false)).toEqual({ _tag: "Valid", value: undefined })
    expect(check(true)).toEqual({ _tag: "Valid", value: { extra: [] } })
    expect(check({})).toEqual({ _tag: "Valid", value: { extra: [] } })
  })

  it("lower-cases the extra names", () => {
    expect(check({ extra: [{ remaining: "X-App-Remaining", reset: "X-App-Reset" }] })).toEqual({
      _tag: "Valid",
      value: { extra: [{ remaining: "x-app-remaining", reset: "x-app-reset", limit: undefined }] }
    })
  })

  it("names a bad option in full", () => {
    expect(problemOf(check("yes"))).toEqual({
      option: "rateLimitHeaders",
      reason: "must be true, false or { extra: [{ remaining, reset? }] }",
      value: "yes"
    })
    expect(problemOf(check({ extras: [] }))?.option).toBe("rateLimitHeaders.extras")
    expect(problemOf(check({ extra: "x-remaining" }))?.option).toBe("rateLimitHeaders.extra")
    expect(problemOf(check({ extra: [{ reset: "x-reset" }] }))?.option).toBe("rateLimitHeaders.extra[0].remaining")
    expect(problemOf(check({ extra: [{ remaining: "ok" }, { remaining: "a b" }] }))).toEqual({
      option: "rateLimitHeaders.extra[1].remaining",
      reason: "must be a header name (letters, digits and !#$%&'*+-.^_`|~)",
      value: "a b"
    })
    expect(problemOf(check({ extra: [{ remaining: "r", limt: "l" }] }))?.option).toBe("rateLimitHeaders.extra[0].limt")
    const tooMany = Array.from({ length: maxExtra + 1 }, () => ({ remaining: "r" }))
    expect(problemOf(check({ extra: tooMany }))?.reason).toBe(
      `must be a list of at most ${maxExtra} { remaining, reset?, limit? }`
    )
  })
})
