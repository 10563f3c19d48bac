import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Budgets, heard, make, take, waitMillis } from "../src/RateLimitBudget.js"

describe("the budget of one key", () => {
  it("admits while fewer than takenAt + remaining were taken, then waits for the reset", () => {
    let state = make()
    const numbers: Array<number> = []
    for (let i = 0; i < 3; i++) {
      const counted = take(state)
      numbers.push(counted.takenAt)
      state = counted.state
    }
    expect(numbers).toEqual([1, 2, 3])
    // After attempt 1 the server had 3 left: attempts 2 and 3 are two of them, one is left.
    state = heard(state, 1, 3, 1000, 10)
    expect(waitMillis(state, 10)).toBe(0)
    state = take(state).state
    expect(waitMillis(state, 10)).toBe(990)
    expect(waitMillis(state, 999)).toBe(1)
    // The reset forgets the view.
    expect(waitMillis(state, 1000)).toBe(0)
  })

  it("keeps the freshest view: an older response is ignored, a fresher one replaces", () => {
    let state = make()
    for (let i = 0; i < 4; i++) state = take(state).state
    state = heard(state, 3, 1, 1000, 0)
    expect(state.view).toEqual({ ceiling: 4, viewAt: 3, untilMillis: 1000 })
    expect(heard(state, 2, 9, 1000, 0)).toBe(state)
    state = heard(state, 4, 2, 2000, 0)
    expect(state.view).toEqual({ ceiling: 6, viewAt: 4, untilMillis: 2000 })
  })

  it("ignores a view already over, and one of an attempt it did not number", () => {
    const state = take(make(5)).state
    expect(heard(state, 6, 0, 100, 100)).toBe(state)
    expect(heard(state, 5, 0, 1000, 0)).toBe(state)
    expect(heard(state, 7, 0, 1000, 0)).toBe(state)
    expect(heard(state, 6, 0, 1000, 0).view).toEqual({ ceiling: 6, viewAt: 6, untilMillis: 1000 })
  })

  it("a remaining of 0 holds every attempt until the reset, as a block does", () => {
    const state = heard(take(make()).state, 1, 0, 500, 0)
    expect(waitMillis(state, 0)).toBe(500)
  })
})

describe("Budgets", () => {
  it("counts a key it does not hold only when asked to hold it", () => {
    const budgets = new Budgets()
    expect(budgets.takeIfHeld("a", 0)).toBe(undefined)
    expect(budgets.size).toBe(0)
    expect(budgets.take("a", 0)).toBe(1)
    expect(budgets.takeIfHeld("a", 0)).toBe(2)
    budgets.heard("a", 1, 1, 1000, 0)
    expect(budgets.waitMillis("a", 0)).toBe(1000)
    expect(budgets.waitMillis("b", 0)).toBe(0)
  })

  it("is bounded: idle keys go first, and a dropped key's late response is ignored", () => {
    const budgets = new Budgets(2)
    const a = budgets.take("a", 0)
    const b = budgets.take("b", 0)
    budgets.heard("b", b, 0, 1000, 0)
    // "a" has no view: it goes to make room; "b" is held.
    budgets.take("c", 0)
    expect(budgets.size).toBe(2)
    expect(budgets.waitMillis("b", 0)).toBe(1000)
    // "a" again: its numbers follow every number given, so attempt `a`'s answer is not this entry's.
    expect(budgets.take("a", 0)).toBeGreaterThan(a)
    budgets.heard("a", a, 0, 1000, 0)
    expect(budgets.waitMillis("a", 0)).toBe(0)
  })
})

/**
 * A fixed-window server, as the chaos server's: each window starts at the first request after the previous one
 * ended, and lets `limit` requests through; it answers what is left and when the window ends.
 */
const fixedWindowServer = (limit: number, windowMillis: number) => {
  let start = Number.NEGATIVE_INFINITY
  let allowed = 0
  let window = 0
  return (nowMillis: number) => {
    if (nowMillis >= start + windowMillis) {
      start = nowMillis
      allowed = 0
      window++
    }
    const admitted = allowed < limit
    if (admitted) allowed++
    return { admitted, remaining: limit - allowed, endMillis: start + windowMillis, window }
  }
}

type Event =
  | { readonly _tag: "Send" }
  | { readonly _tag: "Respond" }
  | { readonly _tag: "Tick"; readonly millis: number }

/**
 * Plays `events` against the server: an attempt goes when the budget admits it now (always, when not `gated`), a
 * response comes back in the order the server answered. Counts the attempts the server refused in a window the
 * client had already heard a response from.
 */
const refusedOnceKnown = (
  limit: number,
  windowMillis: number,
  lateReset: number,
  events: ReadonlyArray<Event>,
  gated = true
) => {
  const server = fixedWindowServer(limit, windowMillis)
  const budgets = new Budgets()
  const inFlight: Array<{ takenAt: number; remaining: number; untilMillis: number; window: number }> = []
  let now = 0
  let known = 0 // the latest window a response was heard from
  let refused = 0
  for (const step of events) {
    if (step._tag === "Tick") now += step.millis
    else if (step._tag === "Send") {
      if (gated && budgets.waitMillis("key", now) > 0) continue
      const takenAt = budgets.take("key", now)
      const answer = server(now)
      if (!answer.admitted && answer.window === known) refused++
      // A reset announced late (rounded up to whole seconds, say) only makes the client wait longer.
      inFlight.push({
        takenAt,
        remaining: answer.remaining,
        untilMillis: answer.endMillis + lateReset,
        window: answer.window
      })
    } else {
      const response = inFlight.shift()
      if (response === undefined) continue
      budgets.heard("key", response.takenAt, response.remaining, response.untilMillis, now)
      known = Math.max(known, response.window)
    }
  }
  return refused
}

const event: fc.Arbitrary<Event> = fc.oneof(
  fc.constant({ _tag: "Send" } as const),
  fc.constant({ _tag: "Respond" } as const),
  fc.record({ _tag: fc.constant("Tick" as const), millis: fc.integer({ min: 1, max: 400 }) })
)

describe("against a fixed-window server", () => {
  it("once a response of the current window is heard, no attempt the budget admits is refused, whatever the interleaving", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 100, max: 2000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.array(event, { maxLength: 300 }),
        (limit, windowMillis, lateReset, events) => refusedOnceKnown(limit, windowMillis, lateReset, events) === 0
      ),
      { numRuns: 300 }
    )
  })

  it("the measure sees what the budget prevents: 5 in flight, ungated, meet refusals after the first response", () => {
    const send: Event = { _tag: "Send" }
    const respond: Event = { _tag: "Respond" }
    // Five in flight against a limit of 10: each response lets one more go, as a concurrent client does.
    const events = [send, send, send, send, send, ...Array.from({ length: 20 }, () => [respond, send]).flat()]
    expect(refusedOnceKnown(10, 1000, 0, events, false)).toBe(15)
    expect(refusedOnceKnown(10, 1000, 0, events)).toBe(0)
  })
})
