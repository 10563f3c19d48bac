import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  check,
  defaults,
  delayMillis,
  histogram,
  type Input,
  LatencyWindow,
  makeLatencyTable,
  maxCopiesLimit,
  type Resolved,
  resolve,
  windowDefaults
} from "../src/Hedging.js"
import * as Settings from "../src/Settings.js"

// Milliseconds as the duration type: numbers, and "<n> millis" strings.
const millis: Settings.DurationCodec<number> = {
  decode: (input) => {
    if (typeof input === "number") return input
    const match = typeof input === "string" ? /^(-?\d+) millis$/.exec(input) : null
    return match === null ? undefined : Number(match[1])
  },
  infinity: Number.POSITIVE_INFINITY,
  toMillis: (duration) => duration
}

const problemOf = (checked: Settings.Checked<unknown>) => (checked._tag === "Invalid" ? checked.problem : undefined)

/** The nearest-rank percentile of the samples: what the window estimates. */
const exactPercentile = (samples: ReadonlyArray<number>, p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b)
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p * sorted.length) / 100)))
  return sorted[rank - 1] ?? Number.NaN
}

const withinHistogramError = (estimate: number, exact: number): boolean =>
  Math.abs(estimate - exact) <= Math.max(exact * histogram.relativeError, histogram.absoluteErrorMillis) + 1e-9

const latency = fc.double({ min: 0, max: histogram.maxLatencyMillis, noNaN: true })
const percentile = fc.double({ min: 0, max: 100, minExcluded: true, noNaN: true })

const percentileSettings = (floorMillis: number, fallbackMillis: number, p = 95): Resolved => ({
  maxCopies: 2,
  delay: { _tag: "Percentile", percentile: p, floorMillis, fallbackMillis }
})

describe("resolve", () => {
  it("applies the defaults: 2 copies; for a percentile a 1 ms floor and a 2 s fallback", () => {
    expect(resolve({ delayMillis: 50 })).toEqual(Settings.valid({ maxCopies: 2, delay: { _tag: "Fixed", millis: 50 } }))
    expect(resolve({ percentile: 95 })).toEqual(
      Settings.valid({
        maxCopies: 2,
        delay: { _tag: "Percentile", percentile: 95, floorMillis: 1, fallbackMillis: 2000 }
      })
    )
    expect(defaults).toEqual({ maxCopies: 2, floorMillis: 1, fallbackMillis: 2000 })
  })

  it("keeps what is given, at the edges of every range", () => {
    expect(resolve({ delayMillis: 0, maxCopies: 1 })).toEqual(
      Settings.valid({ maxCopies: 1, delay: { _tag: "Fixed", millis: 0 } })
    )
    // A floor above the fallback is allowed: the fallback then reads as the floor.
    expect(resolve({ percentile: 100, floorMillis: 500, fallbackMillis: 0, maxCopies: 5 })).toEqual(
      Settings.valid({
        maxCopies: 5,
        delay: { _tag: "Percentile", percentile: 100, floorMillis: 500, fallbackMillis: 0 }
      })
    )
    expect(resolve({ percentile: 0.001, floorMillis: 0 })._tag).toBe("Valid")
  })

  it("accepts every value in range", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: maxCopiesLimit }),
        latency,
        percentile,
        latency,
        latency,
        (maxCopies, delay, p, floor, fallback) => {
          expect(resolve({ delayMillis: delay, maxCopies })).toEqual(
            Settings.valid({ maxCopies, delay: { _tag: "Fixed", millis: delay } })
          )
          const learnt = resolve({ percentile: p, floorMillis: floor, fallbackMillis: fallback, maxCopies })
          expect(learnt).toEqual(
            Settings.valid({
              maxCopies,
              delay: { _tag: "Percentile", percentile: p, floorMillis: floor, fallbackMillis: fallback }
            })
          )
        }
      )
    )
  })

  // Each bad value as a line passes it (milliseconds) and as a user writes it.
  const bad: ReadonlyArray<{
    readonly option: string
    readonly value: unknown
    readonly reason: string
    readonly millis: Input
    readonly written: unknown
  }> = [
    ...[0, -1, 1.5, 6, Number.POSITIVE_INFINITY].map((value) => ({
      option: "hedging.maxCopies",
      value,
      reason: "must be a whole number from 1 to 5",
      millis: { delayMillis: 10, maxCopies: value },
      written: { delay: 10, maxCopies: value }
    })),
    {
      option: "hedging.maxCopies",
      value: Number.NaN,
      reason: "is not a number",
      millis: { delayMillis: 10, maxCopies: Number.NaN },
      written: { delay: 10, maxCopies: Number.NaN }
    },
    ...[
      [-1, "must not be negative"],
      [Number.NaN, "is not a duration"],
      [Number.POSITIVE_INFINITY, "must be finite"]
    ].map(([value, reason]) => ({
      option: "hedging.delay",
      value,
      reason: String(reason),
      millis: { delayMillis: Number(value) },
      written: { delay: value }
    })),
    ...[0, -5, 100.5, Number.POSITIVE_INFINITY].map((value) => ({
      option: "hedging.delay.percentile",
      value,
      reason: "must be a number above 0 and at most 100",
      millis: { percentile: value },
      written: { delay: { percentile: value } }
    })),
    {
      option: "hedging.delay.percentile",
      value: Number.NaN,
      reason: "is not a number",
      millis: { percentile: Number.NaN },
      written: { delay: { percentile: Number.NaN } }
    },
    ...(["floor", "fallback"] as const).flatMap((field) =>
      [
        [-1, "must not be negative"],
        [Number.NaN, "is not a duration"],
        [Number.POSITIVE_INFINITY, "must be finite"]
      ].map(([value, reason]) => ({
        option: `hedging.delay.${field}`,
        value,
        reason: String(reason),
        millis: { percentile: 95, [`${field}Millis`]: Number(value) },
        written: { delay: { percentile: 95, [field]: value } }
      }))
    )
  ]

  it.each(bad)("names $option for $value", ({ option, value, reason, millis: input, written }) => {
    for (const checked of [resolve(input), check(written, millis)]) {
      const problem = problemOf(checked)
      expect(problem?.option).toBe(option)
      expect(problem?.reason).toContain(reason)
      expect(Object.is(problem?.value, value)).toBe(true)
    }
  })

  it("says why maxCopies stops at 5 and why percentile 0 is refused", () => {
    const tooMany = problemOf(resolve({ delayMillis: 10, maxCopies: 6 }))
    expect(tooMany === undefined ? "" : Settings.invalidMessage(tooMany)).toBe(
      'Invalid retry policy option "hedging.maxCopies": must be a whole number from 1 to 5: it counts the first copy (1 sends no hedge), and gRPC A6 caps hedging at 5 attempts (got 6)'
    )
    expect(problemOf(resolve({ percentile: 0 }))?.reason).toContain("to send every copy at once, use delay: 0")
  })

  it("checks the delay before maxCopies", () => {
    expect(problemOf(resolve({ delayMillis: -1, maxCopies: 0 }))?.option).toBe("hedging.delay")
  })
})

describe("check (the option as users write it)", () => {
  it("undefined is hedging off; durations are read by the codec", () => {
    expect(check(undefined, millis)).toEqual(Settings.valid(undefined))
    expect(check({ delay: "150 millis" }, millis)).toEqual(
      Settings.valid({ maxCopies: 2, delay: { _tag: "Fixed", millis: 150 } })
    )
    expect(check({ delay: { percentile: 99, floor: "5 millis", fallback: 800 }, maxCopies: 3 }, millis)).toEqual(
      Settings.valid({
        maxCopies: 3,
        delay: { _tag: "Percentile", percentile: 99, floorMillis: 5, fallbackMillis: 800 }
      })
    )
    expect(check({ delay: { percentile: 90 } }, millis)).toEqual(resolve({ percentile: 90 }))
  })

  it.each([
    [{ dealy: 10 }, "hedging.dealy", "is not an option (the options are delay, maxCopies)"],
    [{ delay: { percentile: 95, flor: 1 } }, "hedging.delay.flor", "is not an option"],
    [{ delay: { percentil: 95 } }, "hedging.delay.percentil", "is not an option"],
    [{ maxCopies: 3 }, "hedging.delay", "is required"],
    [{ delay: "soon" }, "hedging.delay", "is not a duration"],
    [{ delay: "-5 millis" }, "hedging.delay", "must not be negative"],
    [{ delay: { floor: 1 } }, "hedging.delay.percentile", "must be a number above 0"],
    [{ delay: { percentile: "95" } }, "hedging.delay.percentile", "must be a number above 0"],
    [{ delay: 10, maxCopies: "3" }, "hedging.maxCopies", "must be a whole number"],
    [{ delay: 10, maxCopies: null }, "hedging.maxCopies", "must be a whole number"],
    [null, "hedging", "must be an options object"],
    [[10], "hedging", "must be an options object"],
    [new Map([["delay", 10]]), "hedging", "must be an options object"],
    [100, "hedging", "must be an options object"]
  ])("%o: %s %s", (input, option, reason) => {
    const problem = problemOf(check(input, millis))
    expect(problem?.option).toBe(option)
    expect(problem?.reason).toContain(reason)
  })

  it("reports the value as the user wrote it", () => {
    expect(problemOf(check({ delay: { percentile: 95, fallback: "-3 millis" } }, millis))?.value).toBe("-3 millis")
    expect(problemOf(check({ delay: 10, maxCopies: "3" }, millis))?.value).toBe("3")
  })
})

describe("LatencyWindow", () => {
  it("answers nothing until it holds minSamples (20 by default)", () => {
    const window = new LatencyWindow()
    expect(window.minSamples).toBe(windowDefaults.minSamples)
    for (let i = 0; i < 19; i++) window.record(100, i)
    expect(window.percentile(50, 19)).toBeUndefined()
    window.record(100, 19)
    expect(withinHistogramError(window.percentile(50, 20) ?? Number.NaN, 100)).toBe(true)
  })

  it("is within the histogram's error of the exact nearest-rank percentile", () => {
    fc.assert(
      fc.property(fc.array(latency, { minLength: 1, maxLength: 300 }), percentile, (samples, p) => {
        const window = new LatencyWindow({ minSamples: 1 })
        for (const sample of samples) window.record(sample, 0)
        const estimate = window.percentile(p, 0)
        expect(estimate).toBeDefined()
        const exact = exactPercentile(samples, p)
        expect(withinHistogramError(estimate ?? Number.NaN, exact), `estimate ${estimate}, exact ${exact}`).toBe(true)
      })
    )
  })

  it("is within 1/32 of the exact value from 2 ms up, 1/16 ms below", () => {
    expect(histogram.relativeError).toBe(1 / 32)
    expect(histogram.absoluteErrorMillis).toBe(1 / 16)
    // The worst case of a bucket: its lowest value, read as its midpoint.
    for (const value of [0, 0.1, 1.99, 2, 3.999, 4, 4.25, 100, 1000.5, 59_999]) {
      const window = new LatencyWindow({ minSamples: 1 })
      window.record(value, 0)
      expect(withinHistogramError(window.percentile(50, 0) ?? Number.NaN, value), String(value)).toBe(true)
    }
  })

  it("is monotone in p", () => {
    fc.assert(
      fc.property(fc.array(latency, { minLength: 1, maxLength: 200 }), percentile, percentile, (samples, p, q) => {
        const window = new LatencyWindow({ minSamples: 1 })
        for (const sample of samples) window.record(sample, 0)
        const [low, high] = p <= q ? [p, q] : [q, p]
        expect(window.percentile(low, 0) ?? Number.NaN).toBeLessThanOrEqual(window.percentile(high, 0) ?? Number.NaN)
      })
    )
  })

  it("clamps latencies to [0, 60 s] and ignores NaN", () => {
    const window = new LatencyWindow({ minSamples: 1 })
    window.record(Number.NaN, 0)
    expect(window.count(0)).toBe(0)
    window.record(600_000, 0)
    window.record(Number.POSITIVE_INFINITY, 0)
    expect(window.percentile(100, 0)).toBe(histogram.maxLatencyMillis)
    window.record(-5, 0)
    expect(window.percentile(1, 0)).toBeLessThanOrEqual(histogram.absoluteErrorMillis)
    expect(window.count(0)).toBe(3)
  })

  it("forgets a sample once its slice is 10 slices old: kept at least 27 s, gone by 30 s", () => {
    const window = new LatencyWindow({ minSamples: 1 })
    window.record(10, 0)
    expect(window.count(29_999)).toBe(1)
    expect(window.count(30_000)).toBe(0)
    expect(window.percentile(50, 30_000)).toBeUndefined()

    const late = new LatencyWindow({ minSamples: 1 })
    late.record(10, 2_999)
    expect(late.count(29_999)).toBe(1)
    expect(late.count(30_000)).toBe(0)
  })

  it("counts exactly the samples of its span, whatever the times", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 200_000 }), fc.boolean()), { minLength: 1, maxLength: 200 }),
        (events) => {
          const window = new LatencyWindow({ minSamples: 1 })
          const times = events.map(([time]) => time).sort((a, b) => a - b)
          const recorded: Array<number> = []
          times.forEach((time, index) => {
            // Every other event, chosen at random, is a query instead of a sample.
            if (events[index]?.[1] === true) {
              const kept = window.count(time)
              expect(kept).toBeGreaterThanOrEqual(recorded.filter((at) => at > time - 27_000).length)
              expect(kept).toBeLessThanOrEqual(recorded.filter((at) => at > time - 30_000).length)
            } else {
              window.record(1, time)
              recorded.push(time)
            }
          })
          const end = (times[times.length - 1] ?? 0) + windowDefaults.spanMillis
          expect(window.count(end)).toBe(0)
        }
      )
    )
  })

  it("follows a change of latency as the old slices expire", () => {
    const window = new LatencyWindow()
    for (let i = 0; i < 60; i++) window.record(10, i)
    for (let i = 0; i < 40; i++) window.record(500, 15_000 + i)
    expect(window.percentile(50, 15_100)).toBeCloseTo(10, -1)
    expect(window.percentile(50, 30_000)).toBeCloseTo(500, -1)
    expect(window.count(30_000)).toBe(40)
  })

  it("keeps writing the current slice when the clock goes back", () => {
    const window = new LatencyWindow({ minSamples: 1 })
    window.record(10, 10_000)
    window.record(20, 5_000)
    expect(window.count(10_000)).toBe(2)
    expect(window.count(39_999)).toBe(0)
  })

  it("holds the same counters whatever it records", () => {
    const fresh = new LatencyWindow().countersHeld
    expect(fresh).toBeLessThanOrEqual((windowDefaults.slices + 2) * histogram.bucketCount)
    fc.assert(
      fc.property(fc.array(fc.tuple(latency, fc.integer({ min: 0, max: 100 })), { maxLength: 2000 }), (samples) => {
        const window = new LatencyWindow()
        let now = 0
        for (const [sample, step] of samples) {
          now += step
          window.record(sample, now)
        }
        expect(window.countersHeld).toBe(fresh)
      }),
      { numRuns: 20 }
    )
  })
})

describe("makeLatencyTable", () => {
  it("holds at most maxOrigins (1000 by default) windows", () => {
    expect(makeLatencyTable().maxOrigins).toBe(1000)
    const table = makeLatencyTable({ maxOrigins: 2 })
    for (const origin of ["http://a:80", "http://b:80", "http://c:80"]) table.get(origin, 0).record(5, 0)
    expect(table.size).toBe(2)
    expect(table.peek("http://a:80")).toBeUndefined()
  })

  it("drops windows that have emptied, keeps those with recent samples", () => {
    const table = makeLatencyTable({ minSamples: 3 })
    expect(table.get("http://a:80", 0).minSamples).toBe(3)
    table.get("http://a:80", 0).record(5, 0)
    table.get("http://b:80", 0).record(5, 0)
    table.get("http://b:80", 90_000).record(5, 90_000)
    table.get("http://c:80", 100_000)
    expect(table.peek("http://a:80")).toBeUndefined()
    expect(table.peek("http://b:80")?.count(100_000)).toBe(1)
  })
})

describe("delayMillis", () => {
  it("is the fixed delay, whatever was learnt", () => {
    const window = new LatencyWindow({ minSamples: 1 })
    window.record(900, 0)
    expect(delayMillis({ delay: { _tag: "Fixed", millis: 75 } }, window, 0)).toBe(75)
  })

  it("falls back until the window holds minSamples, then follows the percentile", () => {
    const settings = percentileSettings(1, 2000)
    expect(delayMillis(settings, undefined, 0)).toBe(2000)
    const window = new LatencyWindow()
    for (let i = 0; i < windowDefaults.minSamples - 1; i++) window.record(120, i)
    expect(delayMillis(settings, window, 100)).toBe(2000)
    window.record(120, 100)
    expect(withinHistogramError(delayMillis(settings, window, 100), 120)).toBe(true)
  })

  it("is never below the floor, learnt or fallen back", () => {
    const window = new LatencyWindow({ minSamples: 1 })
    window.record(0.2, 0)
    expect(delayMillis(percentileSettings(1, 2000), window, 0)).toBe(1)
    expect(delayMillis(percentileSettings(300, 100), undefined, 0)).toBe(300)
    fc.assert(
      fc.property(fc.array(latency, { maxLength: 40 }), latency, latency, percentile, (samples, floor, fallback, p) => {
        const learnt = new LatencyWindow()
        for (const sample of samples) learnt.record(sample, 0)
        const delay = delayMillis(percentileSettings(floor, fallback, p), learnt, 0)
        expect(delay).toBeGreaterThanOrEqual(floor)
        if (samples.length < windowDefaults.minSamples) expect(delay).toBe(Math.max(floor, fallback))
        else expect(withinHistogramError(delay, Math.max(floor, exactPercentile(samples, p)))).toBe(true)
      })
    )
  })
})
