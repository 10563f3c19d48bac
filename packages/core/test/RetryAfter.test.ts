import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as RateLimitHeaders from "../src/RateLimitHeaders.js"
import * as RetryAfter from "../src/RetryAfter.js"
import { maxMembers } from "../src/StructuredField.js"

const now = Date.parse("Sun, 06 Nov 1994 08:49:30 GMT")

describe("RetryAfter (milliseconds)", () => {
  it("reads delay-seconds and the three HTTP-date forms as milliseconds", () => {
    expect(RetryAfter.parse(" 120 ", now)).toBe(120_000)
    expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now)).toBe(7_000)
    expect(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now)).toBe(7_000)
    expect(RetryAfter.parse("Sun Nov  6 08:49:37 1994", now)).toBe(7_000)
  })

  it("a past date is 0; anything malformed is undefined", () => {
    expect(RetryAfter.parse("Sun, 06 Nov 1994 08:49:00 GMT", now)).toBe(0)
    for (const value of ["", "-1", "1.5", "1e3", "soon", "Sun, 31 Feb 1994 08:49:37 GMT"]) {
      expect(RetryAfter.parse(value, now)).toBeUndefined()
    }
  })

  it("delay-seconds too large to represent are the largest delay", () => {
    expect(RetryAfter.parse("99999999999999999999", now)).toBe(RetryAfter.largestDelayMillis)
    expect(RetryAfter.parse(String(Math.floor(Number.MAX_SAFE_INTEGER / 1000)), now)).toBeLessThanOrEqual(
      RetryAfter.largestDelayMillis
    )
  })

  it("any whole number of seconds is that many thousand milliseconds, exactly", () =>
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Math.floor(Number.MAX_SAFE_INTEGER / 1000) }), (seconds) => {
        expect(RetryAfter.parse(String(seconds), now)).toBe(seconds * 1000)
      })
    ))

  it("Retry-After wins over the rate-limit headers, which are read in order", () => {
    expect(RetryAfter.fromHeaders({ "retry-after": "1", "ratelimit-reset": "2" }, now)).toBe(1_000)
    expect(RetryAfter.fromHeaders({ "retry-after": "bad", "ratelimit-reset": "2" }, now)).toBe(2_000)
    // X-RateLimit-Reset: a delta, or (from 2001 on) a Unix time in seconds or milliseconds.
    const later = Date.parse("2025-01-01T00:00:00Z")
    expect(RetryAfter.fromHeaders({ "x-ratelimit-reset": "30" }, later)).toBe(30_000)
    expect(RetryAfter.fromHeaders({ "x-ratelimit-reset": String(later / 1000 + 30) }, later)).toBe(30_000)
    expect(RetryAfter.fromHeaders({ "x-ratelimit-reset": String(later + 4_000) }, later)).toBe(4_000)
    expect(RetryAfter.fromHeaders({ ratelimit: '"minute";r=5;t=2, "day";r=0;t=60' }, now)).toBe(60_000)
    expect(RetryAfter.fromHeaders({}, now)).toBeUndefined()
  })

  describe("the RateLimit field, read to its first maxMembers members as a 200's is", () => {
    const open = (i: number) => `"p${i}";r=5;t=1`
    const field = (members: ReadonlyArray<string>) => ({ ratelimit: members.join(", ") })
    const filler = Array.from({ length: maxMembers - 1 }, (_, i) => open(i))

    it("reads an exhausted policy as the last member within the cap, and not past it", () => {
      expect(RetryAfter.fromHeaders(field([...filler, '"day";r=0;t=60']), now)).toBe(60_000)
      expect(RetryAfter.ofTransientResponse(429, field([...filler, '"day";r=0;t=60']), now)).toBe(60_000)
      // One member more, and the exhausted policy is past the cap: the open ones' reset speaks.
      expect(RetryAfter.fromHeaders(field([...filler, open(99), '"day";r=0;t=60']), now)).toBe(1_000)
      expect(RetryAfter.ofTransientResponse(429, field([...filler, open(99), '"day";r=0;t=60']), now)).toBe(1_000)
      // The 200 path (RateLimitHeaders) has the same bound: the policy past it is not read either.
      expect(RateLimitHeaders.read(field([...filler, open(99), '"day";r=0;t=60']), now)?.remaining).toBe(5)
    })

    it("reads a member's parameters to the same bound", () => {
      const params = Array.from({ length: maxMembers - 1 }, (_, i) => `x${i}=1`).join(";")
      expect(RetryAfter.fromHeaders({ ratelimit: `"day";r=0;t=60;${params}` }, now)).toBe(60_000)
      expect(RetryAfter.fromHeaders({ ratelimit: `"day";${params};r=0;t=60` }, now)).toBeUndefined()
    })

    it("whatever follows the first maxMembers members changes nothing, however long", () =>
      fc.assert(
        fc.property(
          fc.array(
            fc
              .record({ r: fc.integer({ min: 0, max: 3 }), t: fc.integer({ min: 0, max: 100 }) })
              .map(({ r, t }) => `"p";r=${r};t=${t}`),
            { minLength: maxMembers, maxLength: maxMembers }
          ),
          fc.array(
            fc.integer({ min: 101, max: 10 ** 6 }).map((t) => `"late";r=0;t=${t}`),
            { maxLength: 200 }
          ),
          (read, past) => {
            expect(RetryAfter.fromHeaders(field([...read, ...past]), now)).toBe(
              RetryAfter.fromHeaders(field(read), now)
            )
          }
        )
      ))
  })

  it("retry-after-ms: whole or decimal milliseconds, rounded up, read before Retry-After on any status", () => {
    expect(RetryAfter.parseMillis("1500")).toBe(1_500)
    expect(RetryAfter.parseMillis(" 12.2 ")).toBe(13)
    expect(RetryAfter.parseMillis("0")).toBe(0)
    for (const value of ["", "-1", "1e3", "1.", ".5", "soon", "1234567890123456"]) {
      expect(RetryAfter.parseMillis(value)).toBeUndefined()
    }
    const both = { "retry-after": "2", "retry-after-ms": "1500" }
    expect(RetryAfter.ofTransientResponse(503, both, now)).toBe(1_500)
    expect(RetryAfter.ofTransientResponse(429, { ...both, "ratelimit-reset": "9" }, now)).toBe(1_500)
    expect(RetryAfter.fromHeaders(both, now)).toBe(1_500)
    // Malformed, it is as if absent; other names read in its place when given.
    expect(RetryAfter.ofTransientResponse(503, { ...both, "retry-after-ms": "soon" }, now)).toBe(2_000)
    expect(RetryAfter.ofTransientResponse(503, both, now, [])).toBe(2_000)
    expect(RetryAfter.ofTransientResponse(503, { "x-wait-ms": "40" }, now, ["x-wait-ms"])).toBe(40)
  })

  it("retry-after-ms: any decimal up to 15 digits reads as its ceiling", () =>
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999_999_999 }),
        fc.integer({ min: 0, max: 999 }),
        (whole, fraction) => {
          const text = fraction === 0 ? String(whole) : `${whole}.${String(fraction).padStart(3, "0")}`
          expect(RetryAfter.parseMillis(text)).toBe(Math.ceil(Number(text)))
        }
      )
    ))

  it("shouldRetry: the first name saying true or false, in any case; anything else says nothing", () => {
    expect(RetryAfter.shouldRetry({ "x-should-retry": "false" })).toBe(false)
    expect(RetryAfter.shouldRetry({ "stripe-should-retry": " TRUE " })).toBe(true)
    expect(RetryAfter.shouldRetry({ "x-should-retry": "true", "stripe-should-retry": "false" })).toBe(true)
    expect(RetryAfter.shouldRetry({ "x-should-retry": "maybe", "stripe-should-retry": "false" })).toBe(false)
    expect(RetryAfter.shouldRetry({ "x-should-retry": "1" })).toBeUndefined()
    expect(RetryAfter.shouldRetry({})).toBeUndefined()
    expect(RetryAfter.shouldRetry({ "x-should-retry": "false" }, [])).toBeUndefined()
  })

  it("parseRateLimitReset: every form a reset takes, and the rule telling Unix seconds from milliseconds", () => {
    const at = Date.parse("2026-12-04T12:00:00Z")
    expect(RetryAfter.parseRateLimitReset("30", at)).toBe(30_000)
    expect(RetryAfter.parseRateLimitReset("1.5", at)).toBe(1_500)
    expect(RetryAfter.parseRateLimitReset(String(at / 1000 + 2.5), at)).toBe(2_500)
    expect(RetryAfter.parseRateLimitReset(String(at + 2_500), at)).toBe(2_500)
    expect(RetryAfter.parseRateLimitReset("999999999", at)).toBe(999_999_999_000)
    expect(RetryAfter.parseRateLimitReset("6m0s", at)).toBe(360_000)
    expect(RetryAfter.parseRateLimitReset("2026-12-04T12:00:03Z", at)).toBe(3_000)
    expect(RetryAfter.parseRateLimitReset("Fri, 04 Dec 2026 12:00:04 GMT", at)).toBe(4_000)
    expect(RetryAfter.parseRateLimitReset("2026-12-04T11:00:00Z", at)).toBe(0)
    for (const value of ["", "-1", "1e3", "soon", "6x", "2026-12-04", "1.5.5", "m"]) {
      expect(RetryAfter.parseRateLimitReset(value, at)).toBeUndefined()
    }
    expect(RetryAfter.parseResetAfter("1.234")).toBe(1_234)
    expect(RetryAfter.parseResetAfter("1700000000")).toBe(1_700_000_000_000)
    expect(RetryAfter.parseResetAfter("6m0s")).toBeUndefined()
  })

  it("parseRateLimitReset: a decimal below 10^9 is seconds from now, from 10^9 Unix seconds, never negative", () =>
    fc.assert(
      fc.property(fc.double({ min: 0, max: 4e12, noNaN: true }), fc.integer({ min: 0, max: 4e12 }), (n, at) => {
        const text = n.toFixed(3)
        const millis = RetryAfter.parseRateLimitReset(text, at)
        expect(millis).toBeGreaterThanOrEqual(0)
        const value = Number(text)
        if (value < 1e9) expect(millis).toBe(Math.ceil(value * 1000))
        else if (value < 1e12) expect(millis).toBe(Math.max(0, Math.ceil(value * 1000) - at))
        else expect(millis).toBe(Math.max(0, Math.ceil(value) - at))
      })
    ))

  it("a 429 asking for 0 in whole seconds waits 1 s; in milliseconds, 0; a 503's 0 stays 0; nothing stays nothing", () => {
    expect(RetryAfter.ofTransientResponse(429, { "retry-after": "0" }, now)).toBe(1_000)
    expect(RetryAfter.ofTransientResponse(429, { "retry-after": "Sun, 06 Nov 1994 08:49:00 GMT" }, now)).toBe(1_000)
    expect(RetryAfter.ofTransientResponse(429, { "x-ratelimit-reset": "0" }, now)).toBe(1_000)
    expect(RetryAfter.ofTransientResponse(429, { "retry-after": "0", "retry-after-ms": "0" }, now)).toBe(0)
    expect(RetryAfter.ofTransientResponse(429, { "retry-after": "2" }, now)).toBe(2_000)
    expect(RetryAfter.ofTransientResponse(503, { "retry-after": "0" }, now)).toBe(0)
    expect(RetryAfter.ofTransientResponse(429, {}, now)).toBeUndefined()
  })

  it("rate-limit reset headers count on a 429 only", () => {
    const headers = { "ratelimit-reset": "9" }
    expect(RetryAfter.ofTransientResponse(429, headers, now)).toBe(9_000)
    expect(RetryAfter.ofTransientResponse(503, headers, now)).toBeUndefined()
    expect(RetryAfter.ofTransientResponse(503, { "retry-after": "3" }, now)).toBe(3_000)
  })
})
