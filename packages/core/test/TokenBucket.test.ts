import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type * as Settings from "../src/Settings.js"
import {
  available,
  Buckets,
  block,
  bounds,
  check,
  isFull,
  type Limit,
  make,
  refund,
  type State,
  take
} from "../src/TokenBucket.js"

// A bucket of 10 tokens (a burst of 10), and the default: one call every 100 ms.
const tenPerSecond: Limit = { limit: 10, windowMillis: 1000, burst: 10 }
const paced: Limit = { limit: 10, windowMillis: 1000, burst: 1 }

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

/** Takes `count` tokens at `nowMillis`, each waiting at most `maxWait`; the answers' waits and the last state. */
const takeMany = (limit: Limit, state: State, nowMillis: number, count: number, maxWait = 0) => {
  const waits: Array<number | string> = []
  let current = state
  for (let i = 0; i < count; i++) {
    const answer = take(limit, current, nowMillis, maxWait)
    waits.push(answer._tag === "Granted" ? answer.waitMillis : `refused ${answer.waitMillis}`)
    current = answer.state
  }
  return { waits, state: current }
}

describe("take", () => {
  it("grants a full bucket's burst at once, then refuses with the wait until the next token", () => {
    const { waits, state } = takeMany(tenPerSecond, make(tenPerSecond, 0), 0, 11)
    expect(waits).toEqual([...Array.from({ length: 10 }, () => 0), "refused 100"])
    expect(available(tenPerSecond, state, 0)).toBe(0)
    expect(available(tenPerSecond, state, 350)).toBe(3)
  })

  it("refills continuously, a token per window / limit", () => {
    const drained = takeMany(tenPerSecond, make(tenPerSecond, 0), 0, 10).state
    expect(take(tenPerSecond, drained, 99)._tag).toBe("Refused")
    expect(take(tenPerSecond, drained, 99).waitMillis).toBe(1)
    const at100 = take(tenPerSecond, drained, 100)
    expect(at100).toEqual({ _tag: "Granted", waitMillis: 0, state: { units: 0, updatedMillis: 100 } })
  })

  it("reserves tokens ahead for calls that wait, in the order they took", () => {
    const drained = takeMany(tenPerSecond, make(tenPerSecond, 0), 0, 10).state
    expect(takeMany(tenPerSecond, drained, 0, 4, 300).waits).toEqual([100, 200, 300, "refused 400"])
  })

  it("never refills above the capacity", () => {
    const state = make(tenPerSecond, 0)
    expect(available(tenPerSecond, state, 1_000_000)).toBe(10)
    expect(isFull(tenPerSecond, state, 1_000_000)).toBe(true)
  })

  it("reads a clock that went back as no time passed", () => {
    const drained = takeMany(tenPerSecond, make(tenPerSecond, 1000), 1000, 10).state
    expect(take(tenPerSecond, drained, 500)).toEqual({
      _tag: "Refused",
      waitMillis: 600,
      state: { units: 0, updatedMillis: 1000 }
    })
  })

  it("with a burst of 1, spaces calls window / limit apart: never limit + 1 in one window", () => {
    const { waits } = takeMany(paced, make(paced, 0), 0, 12, 5000)
    expect(waits).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100])
    expect(takeMany(paced, make(paced, 0), 0, 2).waits).toEqual([0, "refused 100"])
  })

  it("floors fractional milliseconds", () => {
    expect(make(tenPerSecond, 12.9)).toEqual({ units: 10_000, updatedMillis: 12 })
  })
})

describe("block, refund", () => {
  it("gives no token until the reset the server announced, then refills from there", () => {
    const blocked = block(tenPerSecond, make(tenPerSecond, 0), 0, 30_000)
    expect(isFull(tenPerSecond, blocked, 0)).toBe(false)
    expect(take(tenPerSecond, blocked, 10_000).waitMillis).toBe(20_100)
    expect(available(tenPerSecond, blocked, 30_000)).toBe(0)
    expect(available(tenPerSecond, blocked, 30_500)).toBe(5)
    expect(take(tenPerSecond, blocked, 30_100)._tag).toBe("Granted")
  })

  it("never shortens a block", () => {
    const blocked = block(tenPerSecond, make(tenPerSecond, 0), 0, 30_000)
    expect(block(tenPerSecond, blocked, 1000, 5_000)).toEqual(blocked)
  })

  it("gives back a reserved token", () => {
    const drained = takeMany(tenPerSecond, make(tenPerSecond, 0), 0, 10).state
    const reserved = take(tenPerSecond, drained, 0, 1000).state
    expect(take(tenPerSecond, reserved, 0, 1000).waitMillis).toBe(200)
    expect(take(tenPerSecond, refund(tenPerSecond, reserved, 0, 100), 0, 1000).waitMillis).toBe(100)
    expect(refund(tenPerSecond, make(tenPerSecond, 0), 0).units).toBe(10_000)
  })

  it("keeps a reserved token when a later one is reserved: two calls would share its successor's time", () => {
    // Sends at 0, 100 and 200; the one at 100 gives up. Given back, the next take would go at 200 too.
    const { state } = takeMany(paced, make(paced, 0), 0, 3, 1000)
    expect(refund(paced, state, 0, 100)).toEqual(state)
    expect(take(paced, refund(paced, state, 0, 100), 0, 1000).waitMillis).toBe(300)
    expect(take(paced, refund(paced, state, 0, 200), 0, 1000).waitMillis).toBe(200)
  })

  it("keeps a reserved token when a later one is reserved after a block: no refill before the block ends", () => {
    // Blocked until 100, then sends at 200 and 300; the one at 200 gives up (fast-check's counterexample, scaled).
    const blocked = block(paced, make(paced, 0), 0, 100)
    const { state } = takeMany(paced, blocked, 0, 2, 1000)
    expect(refund(paced, state, 0, 200)).toEqual(state)
    expect(take(paced, refund(paced, state, 0, 200), 0, 1000).waitMillis).toBe(400)
    expect(take(paced, refund(paced, state, 0, 300), 0, 1000).waitMillis).toBe(300)
  })
})

const limitArbitrary: fc.Arbitrary<Limit> = fc
  .record({
    limit: fc.integer({ min: 1, max: 20 }),
    windowMillis: fc.integer({ min: 1, max: 5_000 }),
    burstShare: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1, noNaN: true }))
  })
  .map(({ limit, windowMillis, burstShare }) => ({
    limit,
    windowMillis,
    burst: 1 + Math.floor(burstShare * (limit - 1))
  }))

type Step =
  | { readonly _tag: "Take"; readonly advance: number; readonly maxWait: number }
  | { readonly _tag: "Block"; readonly advance: number; readonly forMillis: number }
  | { readonly _tag: "Refund"; readonly advance: number; readonly pick: number }

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ _tag: fc.constant("Take" as const), advance: fc.nat(300), maxWait: fc.nat(5_000) })
  },
  {
    weight: 1,
    arbitrary: fc.record({ _tag: fc.constant("Block" as const), advance: fc.nat(300), forMillis: fc.nat(10_000) })
  },
  {
    weight: 2,
    arbitrary: fc.record({ _tag: fc.constant("Refund" as const), advance: fc.nat(300), pick: fc.nat(1_000) })
  }
)

/**
 * Plays the steps on a fresh bucket: takes, blocks, and refunds of a call still waiting (one of the grants
 * not sent yet, picked by `pick`, which then never goes). Answers the send times, sorted.
 */
const play = (limit: Limit, steps: ReadonlyArray<Step>): Array<number> => {
  let state = make(limit, 0)
  let now = 0
  const sends: Array<number> = []
  for (const step of steps) {
    now += step.advance
    if (step._tag === "Block") {
      state = block(limit, state, now, now + step.forMillis)
      continue
    }
    if (step._tag === "Refund") {
      const waiting = sends.flatMap((sendAt, index) => (sendAt > now ? [index] : []))
      const index = waiting[step.pick % Math.max(1, waiting.length)]
      if (index === undefined) continue
      state = refund(limit, state, now, sends[index]! - now)
      sends.splice(index, 1)
      continue
    }
    const answer = take(limit, state, now, step.maxWait)
    expect(answer.waitMillis).toBeGreaterThanOrEqual(0)
    if (answer._tag === "Granted") {
      expect(answer.waitMillis).toBeLessThanOrEqual(step.maxWait)
      sends.push(now + answer.waitMillis)
    } else {
      expect(answer.waitMillis).toBeGreaterThan(step.maxWait)
    }
    state = answer.state
  }
  return sends.sort((a, b) => a - b)
}

/** The most sends in any span `[t, t + window)`. */
const mostInAnyWindow = (sends: ReadonlyArray<number>, windowMillis: number): number =>
  Math.max(0, ...sends.map((start, index) => sends.slice(index).filter((sent) => sent < start + windowMillis).length))

describe("the bound", () => {
  it("sends at most limit calls in any window with a burst of 1, and limit + burst - 1 with a larger one", () => {
    fc.assert(
      fc.property(limitArbitrary, fc.array(stepArbitrary, { maxLength: 300 }), (limit, steps) => {
        expect(mostInAnyWindow(play(limit, steps), limit.windowMillis)).toBeLessThanOrEqual(
          limit.limit + limit.burst - 1
        )
      }),
      { numRuns: 300 }
    )
  })

  it("sends at most limit calls in any window with the default burst: many at once, some giving up as they wait", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.array(
          fc.record({
            advance: fc.nat(50),
            count: fc.integer({ min: 1, max: 30 }),
            giveUps: fc.array(fc.nat(1_000), { maxLength: 5 })
          }),
          { maxLength: 20 }
        ),
        (count, windowMillis, bursts) => {
          const limit: Limit = { limit: count, windowMillis, burst: 1 }
          const steps = bursts.flatMap(
            ({ advance, count: calls, giveUps }): Array<Step> => [
              ...Array.from(
                { length: calls },
                (_, index): Step => ({
                  _tag: "Take",
                  advance: index === 0 ? advance : 0,
                  maxWait: 1_000_000
                })
              ),
              ...giveUps.map((pick): Step => ({ _tag: "Refund", advance: 0, pick }))
            ]
          )
          expect(mostInAnyWindow(play(limit, steps), windowMillis)).toBeLessThanOrEqual(count)
        }
      )
    )
  })

  it("sends at most burst + limit × elapsed / window calls from the start", () => {
    fc.assert(
      fc.property(limitArbitrary, fc.array(stepArbitrary, { maxLength: 300 }), (limit, steps) => {
        const sends = play(limit, steps)
        const sent = sends.length
        const lastSend = sends.at(-1) ?? 0
        expect(sent).toBeLessThanOrEqual(limit.burst + Math.floor((lastSend * limit.limit) / limit.windowMillis))
      })
    )
  })

  it("stays exact in whole numbers at the largest limit and window", () => {
    const largest: Limit = { limit: bounds.maxLimit, windowMillis: bounds.maxWindowMillis, burst: bounds.maxLimit }
    const drained = block(largest, make(largest, 0), 0, 0)
    // A token is 86,400,000 units, refilled at 1,000,000 a millisecond: 86.4 ms, rounded up.
    const answer = take(largest, drained, 0, 100)
    expect(answer).toEqual({
      _tag: "Granted",
      waitMillis: 87,
      state: { units: -largest.windowMillis, updatedMillis: 0 }
    })
    expect(Number.isSafeInteger(make(largest, 0).units)).toBe(true)
    expect(take(largest, answer.state, 0, 1000).waitMillis).toBe(173)
  })
})

describe("check: the rateLimit option", () => {
  it("is off by default, and per origin without a key", () => {
    expect(check(undefined, millis)).toEqual({ _tag: "Valid", value: undefined })
    expect(check({ limit: 10, window: 1000 }, millis)).toEqual({
      _tag: "Valid",
      value: { limit: 10, windowMillis: 1000, burst: 1, key: { _tag: "Origin" } }
    })
  })

  it("takes a named key or a key per request", () => {
    expect(check({ limit: 10, window: "1000 millis", key: "api-key-1" }, millis)).toEqual({
      _tag: "Valid",
      value: { limit: 10, windowMillis: 1000, burst: 1, key: { _tag: "Named", name: "api-key-1" } }
    })
    const perRequest = check({ limit: 1, window: 1, key: (request: { readonly url: string }) => request.url }, millis)
    expect(perRequest).toEqual({
      _tag: "Valid",
      value: { limit: 1, windowMillis: 1, burst: 1, key: { _tag: "PerRequest" } }
    })
  })

  it("takes a burst from 1 to the limit, and names a bad one", () => {
    expect(check({ limit: 10, window: 1000, burst: 10 }, millis)).toMatchObject({ value: { burst: 10 } })
    for (const burst of [0, 11, 2.5, -1, "2", Number.NaN, null]) {
      expect(problemOf(check({ limit: 10, window: 1000, burst }, millis))).toEqual({
        option: "rateLimit.burst",
        reason: "must be a whole number from 1 to the limit (10): calls that may go at once",
        value: burst
      })
    }
  })

  it("names a bad option in full", () => {
    expect(problemOf(check(10, millis))?.option).toBe("rateLimit")
    expect(problemOf(check({ limit: 10, windw: 1000 }, millis))?.option).toBe("rateLimit.windw")
    expect(problemOf(check({ window: 1000 }, millis))).toEqual({
      option: "rateLimit.limit",
      reason: "must be a whole number from 1 to 1000000: calls per window",
      value: undefined
    })
    for (const limit of [0, 1.5, -1, Number.NaN, "10", 1_000_001]) {
      expect(problemOf(check({ limit, window: 1000 }, millis))?.option).toBe("rateLimit.limit")
    }
    expect(problemOf(check({ limit: 10 }, millis))).toEqual({
      option: "rateLimit.window",
      reason: "is required: a duration such as 1 second",
      value: undefined
    })
    expect(problemOf(check({ limit: 10, window: 0 }, millis))?.reason).toBe("must be greater than zero")
    expect(problemOf(check({ limit: 10, window: -5 }, millis))?.reason).toBe("must not be negative")
    expect(problemOf(check({ limit: 10, window: 86_400_001 }, millis))?.reason).toBe(
      "must be whole milliseconds, at most 1 day"
    )
    expect(problemOf(check({ limit: 10, window: 1000, key: "" }, millis))?.option).toBe("rateLimit.key")
    expect(problemOf(check({ limit: 10, window: 1000, key: 42 }, millis))?.reason).toBe(
      "must be a name of 1 to 256 characters or a function of the request"
    )
  })
})

describe("Buckets", () => {
  it("keeps a bucket per key: one key's takes leave another's full", () => {
    const buckets = new Buckets({ limit: 2, windowMillis: 1000, burst: 2 })
    expect(buckets.take("a", 0, 0)._tag).toBe("Granted")
    expect(buckets.take("a", 0, 0)._tag).toBe("Granted")
    expect(buckets.take("a", 0, 0)).toMatchObject({ _tag: "Refused", waitMillis: 500 })
    expect(buckets.take("b", 0, 0)._tag).toBe("Granted")
    buckets.refund("a", 0)
    expect(buckets.take("a", 0, 0)._tag).toBe("Granted")
  })

  it("holds at most its capacity of keys, dropping full buckets first, then the one used longest ago", () => {
    const buckets = new Buckets({ limit: 1, windowMillis: 1000, burst: 1 }, 2)
    buckets.take("a", 0, 0)
    buckets.take("b", 0, 0)
    buckets.take("c", 0, 0) // a and b are empty: a, used longest ago, goes
    expect(buckets.size).toBe(2)
    expect(buckets.take("b", 0, 0)._tag).toBe("Refused")
    expect(buckets.take("a", 0, 0)._tag).toBe("Granted") // a fresh bucket: a was forgotten
  })

  it("sends a key's attempts no faster than its limit: by any send time t, at most limit + the refill since the first take", () =>
    fc.assert(
      fc.property(
        limitArbitrary,
        fc.array(fc.record({ advance: fc.nat(300), maxWait: fc.nat(5_000) }), { minLength: 1, maxLength: 60 }),
        (limit, steps) => {
          const buckets = new Buckets(limit)
          let now = 0
          const firstTake = steps[0]!.advance
          const sendTimes: Array<number> = []
          for (const step of steps) {
            now += step.advance
            const taken = buckets.take("a", now, step.maxWait)
            if (taken._tag === "Granted") sendTimes.push(now + taken.waitMillis)
            else expect(taken.waitMillis).toBeGreaterThan(step.maxWait)
          }
          for (const t of sendTimes) {
            const sentBy = sendTimes.filter((time) => time <= t).length
            expect(sentBy).toBeLessThanOrEqual(
              limit.burst + Math.floor(((t - firstTake) * limit.limit) / limit.windowMillis)
            )
          }
        }
      )
    ))
})
