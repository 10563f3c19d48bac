import { Headers } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Duration, FastCheck as fc, Option } from "effect"
import * as RetryAfter from "../src/RetryAfter.js"

const now = Date.UTC(1994, 10, 6, 8, 49, 30) // Sun, 06 Nov 1994 08:49:30 GMT
const seconds = (n: number) => Option.some(Duration.seconds(n))
// What a delay too large to represent reads as: the largest safe number of milliseconds.
const largest = Option.some(Duration.millis(Number.MAX_SAFE_INTEGER))

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
    ["999999999", seconds(999_999_999)],
    ["9007199254740", seconds(9_007_199_254_740)],
    ["9007199254741", largest],
    ["99999999999999999999", largest],
    ["9".repeat(400), largest],
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
    const label = value.length > 30 ? `${value.length} nines` : JSON.stringify(value)
    it(`${label} -> ${Option.match(expected, { onNone: () => "None", onSome: Duration.format })}`, () => {
      expect(RetryAfter.parse(value, now)).toEqual(expected)
    })
  }

  it("compares the whole RFC 850 timestamp, not the year, with 50 years from now", () => {
    const midday2030 = Date.UTC(2030, 5, 15, 12, 0, 0)
    const from2030 = (year: number, month: number, day: number, h: number, m: number, s: number) =>
      Option.some(Duration.millis(Date.UTC(year, month, day, h, m, s) - midday2030))
    // Exactly 50 years ahead is not "more than 50 years in the future"; one second before, neither.
    expect(RetryAfter.parse("Saturday, 15-Jun-80 12:00:00 GMT", midday2030)).toEqual(from2030(2080, 5, 15, 12, 0, 0))
    expect(RetryAfter.parse("Saturday, 15-Jun-80 11:59:59 GMT", midday2030)).toEqual(from2030(2080, 5, 15, 11, 59, 59))
    // One second later, in the same year 2080, it is: the date is 1980's, long past.
    expect(RetryAfter.parse("Saturday, 15-Jun-80 12:00:01 GMT", midday2030)).toEqual(seconds(0))
    expect(RetryAfter.parse("Sunday, 01-Dec-80 00:00:00 GMT", midday2030)).toEqual(seconds(0))
    // Late in a century the next one is the candidate: in mid-2050, "00" is 2100 until 50 years have passed.
    const midday2050 = Date.UTC(2050, 5, 15, 12, 0, 0)
    expect(RetryAfter.parse("Monday, 14-Jun-00 12:00:00 GMT", midday2050)).toEqual(
      Option.some(Duration.millis(Date.UTC(2100, 5, 14, 12) - midday2050))
    )
    expect(RetryAfter.parse("Wednesday, 16-Jun-00 12:00:00 GMT", midday2050)).toEqual(seconds(0))
  })

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

  const rfc850 = (target: Date) =>
    `${longDays[target.getUTCDay()]}, ${pad(target.getUTCDate())}-${months[target.getUTCMonth()]}-${pad(target.getUTCFullYear() % 100)} ${time(target)} GMT`
  const yearsLater = (date: Date, years: number) => {
    const later = new Date(date.getTime())
    later.setUTCFullYear(later.getUTCFullYear() + years)
    return later.getTime()
  }

  it.prop(
    "an RFC 850 date from 49 years ago to 50 years ahead round-trips to the exact delay",
    [dateArbitrary, fc.double({ min: 0, max: 1, noNaN: true })],
    ([clock, position]) => {
      const earliest = yearsLater(clock, -49)
      const target = new Date(earliest + Math.floor(position * (yearsLater(clock, 50) - earliest)))
      const expected = Math.max(0, wholeSeconds(target) - clock.getTime())
      expect(RetryAfter.parse(rfc850(target), clock.getTime())).toEqual(Option.some(Duration.millis(expected)))
    }
  )

  it.prop(
    "an RFC 850 date more than 50 years ahead is a century earlier, so past: zero",
    [dateArbitrary, fc.double({ min: 0, max: 1, noNaN: true })],
    ([clock, position]) => {
      // Whole seconds strictly after the 50-year mark, up to 99 years ahead.
      const first = Math.floor(yearsLater(clock, 50) / 1000) * 1000 + 1000
      const target = new Date(first + Math.floor((position * (yearsLater(clock, 99) - first)) / 1000) * 1000)
      expect(RetryAfter.parse(rfc850(target), clock.getTime())).toEqual(seconds(0))
    }
  )

  it.prop("delay-seconds round-trip", [fc.integer({ min: 0, max: 10_000_000 })], ([n]) => {
    expect(RetryAfter.parse(String(n), now)).toEqual(seconds(n))
  })

  it.prop(
    "a longer delay-seconds never reads as a shorter wait, however many digits",
    [
      fc.bigInt({ min: BigInt(0), max: BigInt(10) ** BigInt(30) }),
      fc.bigInt({ min: BigInt(0), max: BigInt(10) ** BigInt(30) })
    ],
    ([a, b]) => {
      const [low, high] = a <= b ? [a, b] : [b, a]
      const read = (n: bigint) => Duration.toMillis(Option.getOrThrow(RetryAfter.parse(String(n), now)))
      expect(read(low)).toBeLessThanOrEqual(read(high))
    }
  )

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

  it("a rate-limit delay too large to represent is the largest delay, not malformed", () => {
    const huge = "99999999999999999999"
    expect(read({ "ratelimit-reset": huge })).toEqual(largest)
    expect(read({ "x-ratelimit-reset": huge })).toEqual(largest)
    expect(read({ ratelimit: `"daily";r=0;t=${huge}` })).toEqual(largest)
    expect(read({ ratelimit: `"burst";r=0;t=5, "daily";r=3;t=${huge}` })).toEqual(seconds(5))
  })

  it("nothing usable is None", () => {
    expect(read({})).toEqual(Option.none())
    expect(read({ "x-ratelimit-reset": "-5", ratelimit: "garbage", "ratelimit-reset": "1.5" })).toEqual(Option.none())
  })
})
