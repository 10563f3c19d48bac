import { Headers } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, FastCheck as fc, Option } from "effect"
import * as RetryAfter from "../src/RetryAfter.js"

const now = Date.UTC(1994, 10, 6, 8, 49, 30) // Sun, 06 Nov 1994 08:49:30 GMT
const seconds = (n: number) => Option.some(Duration.seconds(n))

describe("RetryAfter.parse", () => {
  const cases: ReadonlyArray<readonly [string, Option.Option<Duration.Duration>]> = [
    ["0", seconds(0)],
    ["5", seconds(5)],
    ["  120  ", seconds(120)],
    ["007", seconds(7)],
    ["Sun, 06 Nov 1994 08:49:37 GMT", seconds(7)],
    ["Sunday, 06-Nov-94 08:49:37 GMT", seconds(7)],
    ["Sun Nov  6 08:49:37 1994", seconds(7)],
    ["Sun Nov 06 08:49:37 1994", seconds(7)],
    ["sun, 06 nov 1994 08:49:37 gmt", seconds(7)],
    ["Sun, 06 Nov 1994 08:49:00 GMT", seconds(0)],
    ["Thu, 01 Jan 1970 00:00:00 GMT", seconds(0)],
    ["", Option.none()],
    ["   ", Option.none()],
    ["-1", Option.none()],
    ["1.5", Option.none()],
    ["+5", Option.none()],
    ["1e3", Option.none()],
    ["5 seconds", Option.none()],
    ["99999999999999999999", Option.none()],
    ["Sun, 31 Feb 1994 08:49:37 GMT", Option.none()],
    ["Sun, 06 Nov 1994 24:00:00 GMT", Option.none()],
    ["Sun, 06 Nov 1994 08:49:37 PST", Option.none()],
    ["Sun, 6 Nov 1994 08:49:37 GMT", Option.none()],
    ["Funday, 06-Nov-94 08:49:37 GMT", Option.none()],
    ["garbage", Option.none()],
    ["NaN", Option.none()],
    ["Infinity", Option.none()]
  ]
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value)} -> ${Option.match(expected, { onNone: () => "None", onSome: Duration.format })}`, () => {
      expect(RetryAfter.parse(value, now)).toEqual(expected)
    })
  }

  it("reads an RFC 850 two-digit year more than 50 years ahead as the past century", () => {
    const in2030 = Date.UTC(2030, 0, 1)
    // "81" would be 2081, more than 50 years after 2030: it means 1981, long past.
    expect(RetryAfter.parse("Thursday, 01-Jan-81 00:00:00 GMT", in2030)).toEqual(seconds(0))
    // In 1975, "10" is 2010 (35 years ahead), not 1910.
    const in1975 = Date.UTC(1975, 0, 1)
    expect(RetryAfter.parse("Friday, 01-Jan-10 00:00:00 GMT", in1975)).toEqual(
      Option.some(Duration.millis(Date.UTC(2010, 0, 1) - in1975))
    )
    // "31" is 2031, within 50 years: one year ahead.
    expect(RetryAfter.parse("Wednesday, 01-Jan-31 00:00:00 GMT", in2030)).toEqual(
      Option.some(Duration.millis(Date.UTC(2031, 0, 1) - in2030))
    )
  })

  const dateArbitrary = fc.date({
    min: new Date(Date.UTC(1971, 0, 1)),
    max: new Date(Date.UTC(2400, 0, 1)),
    noInvalidDate: true
  })
  const wholeSeconds = (date: Date) => Math.floor(date.getTime() / 1000) * 1000
  const days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
  const longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
  const pad = (n: number) => String(n).padStart(2, "0")
  const time = (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`

  it.prop("an IMF-fixdate round-trips to the exact delay", [dateArbitrary, dateArbitrary], ([target, clock]) => {
    const expected = Math.max(0, wholeSeconds(target) - clock.getTime())
    expect(RetryAfter.parse(target.toUTCString(), clock.getTime())).toEqual(Option.some(Duration.millis(expected)))
  })

  it.prop("an asctime date round-trips to the exact delay", [dateArbitrary, dateArbitrary], ([target, clock]) => {
    const day = String(target.getUTCDate()).padStart(2, " ")
    const value = `${days[target.getUTCDay()]} ${months[target.getUTCMonth()]} ${day} ${time(target)} ${target.getUTCFullYear()}`
    const expected = Math.max(0, wholeSeconds(target) - clock.getTime())
    expect(RetryAfter.parse(value, clock.getTime())).toEqual(Option.some(Duration.millis(expected)))
  })

  it.prop(
    "an RFC 850 date within 50 years round-trips to the exact delay",
    [dateArbitrary, fc.integer({ min: -40 * 365, max: 40 * 365 })],
    ([clock, offsetDays]) => {
      const target = new Date(clock.getTime() + offsetDays * 86_400_000)
      const value = `${longDays[target.getUTCDay()]}, ${pad(target.getUTCDate())}-${months[target.getUTCMonth()]}-${pad(target.getUTCFullYear() % 100)} ${time(target)} GMT`
      const expected = Math.max(0, wholeSeconds(target) - clock.getTime())
      expect(RetryAfter.parse(value, clock.getTime())).toEqual(Option.some(Duration.millis(expected)))
    }
  )

  it.prop("delay-seconds round-trip", [fc.integer({ min: 0, max: 10_000_000 })], ([n]) => {
    expect(RetryAfter.parse(String(n), now)).toEqual(seconds(n))
  })

  it.prop("no string throws, and every answer is None or a finite, non-negative delay", [fc.string()], ([value]) => {
    const parsed = RetryAfter.parse(value, now)
    if (Option.isSome(parsed)) {
      expect(Duration.isFinite(parsed.value)).toBe(true)
      expect(Number.isNaN(Duration.toMillis(parsed.value))).toBe(false)
      expect(Duration.toMillis(parsed.value)).toBeGreaterThanOrEqual(0)
    }
  })
})

describe("RetryAfter.fromHeaders", () => {
  const read = (headers: Record<string, string>) => RetryAfter.fromHeaders(Headers.fromInput(headers), now)

  it("Retry-After wins over every rate-limit header", () => {
    expect(
      read({ "retry-after": "3", "ratelimit-reset": "9", "x-ratelimit-reset": "9", ratelimit: '"a";r=0;t=9' })
    ).toEqual(seconds(3))
  })

  it("a malformed Retry-After falls back to the rate-limit headers", () => {
    expect(read({ "retry-after": "soon", "ratelimit-reset": "9" })).toEqual(seconds(9))
  })

  it("RateLimit-Reset is seconds", () => {
    expect(read({ "RateLimit-Reset": "42" })).toEqual(seconds(42))
  })

  it("X-RateLimit-Reset is seconds, a Unix time in seconds, or in milliseconds", () => {
    const in2026 = Date.UTC(2026, 10, 30, 12, 0, 0)
    const at = (value: number) =>
      RetryAfter.fromHeaders(Headers.fromInput({ "x-ratelimit-reset": String(value) }), in2026)
    expect(at(60)).toEqual(seconds(60))
    expect(at(in2026 / 1000 + 90)).toEqual(seconds(90))
    expect(at(in2026 + 1500)).toEqual(Option.some(Duration.millis(1500)))
    expect(at(in2026 / 1000 - 90)).toEqual(seconds(0))
  })

  it("the IETF RateLimit field's t of the exhausted policy", () => {
    expect(read({ ratelimit: '"default";r=0;t=30' })).toEqual(seconds(30))
    expect(read({ ratelimit: '"burst";r=5;t=2, "daily";r=0;t=600' })).toEqual(seconds(600))
    expect(read({ ratelimit: '"a";t=4, "b";t=7' })).toEqual(seconds(7))
  })

  it("nothing usable is None", () => {
    expect(read({})).toEqual(Option.none())
    expect(read({ "x-ratelimit-reset": "-5", ratelimit: "garbage", "ratelimit-reset": "1.5" })).toEqual(Option.none())
  })
})
