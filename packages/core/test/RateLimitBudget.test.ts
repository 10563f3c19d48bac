import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Budgets, type Ending, ended, isIdle, make, type State, take, waitMillis } from "../src/RateLimitBudget.js"

const answered = (remaining: number, untilMillis: number, sentAtMillis = 0): Ending => ({
  _tag: "Answered",
  remaining,
  untilMillis,
  sentAtMillis
})

const fresh = Number.NEGATIVE_INFINITY

const taken = (count: number, state: State = make()): State => {
  let current = state
  for (let i = 0; i < count; i++) current = take(current)
  return current
}

describe("the budget of one key", () => {
  it("admits while the attempts in flight fit in the lowest remaining heard, then waits for the reset", () => {
    // Three in flight; the first answered says 3 left: the two still in flight are two of them.
    let state = ended(taken(3), answered(3, 1000), 10)
    expect(state).toEqual({
      inFlight: 2,
      lost: 0,
      lostBefore: 0,
      view: { remaining: 3, untilMillis: 1000 },
      fromMillis: fresh
    })
    expect(waitMillis(state, 10)).toBe(0)
    state = take(state)
    expect(waitMillis(state, 10)).toBe(990)
    expect(waitMillis(state, 999)).toBe(1)
    // The reset forgets the view.
    expect(waitMillis(state, 1000)).toBe(0)
  })

  it("keeps the lowest remaining, whatever order the answers come in, and the soonest reset", () => {
    // Each reset is the window's end rounded up: the soonest is the closest.
    let state = ended(taken(4), answered(6, 1000), 0)
    state = ended(state, answered(8, 2000), 0)
    expect(state.view).toEqual({ remaining: 6, untilMillis: 1000 })
    state = ended(state, answered(5, 900), 0)
    expect(state.view).toEqual({ remaining: 5, untilMillis: 900 })
    expect(state.inFlight).toBe(1)
  })

  it("an attempt that ends unanswered stays spent until a reset has passed twice, unless it was never sent", () => {
    let state = ended(taken(3), answered(2, 1000), 0)
    state = ended(state, { _tag: "Unanswered", sent: true }, 0)
    expect([state.inFlight, state.lost, waitMillis(state, 0)]).toEqual([1, 1, 1000])
    state = ended(take(ended(state, { _tag: "Silent" }, 0)), { _tag: "Unanswered", sent: false }, 0)
    expect([state.inFlight, state.lost, waitMillis(state, 0)]).toEqual([0, 1, 0])
    // Past the reset, it may count in the window that began: one of the next view's two.
    state = ended(take(state), answered(2, 2000, 1000), 1000)
    expect(state).toEqual({
      inFlight: 0,
      lost: 0,
      lostBefore: 1,
      view: { remaining: 2, untilMillis: 2000 },
      fromMillis: 1000
    })
    expect(waitMillis(take(state), 1000)).toBe(1000)
    // Past the next reset, it is forgotten.
    expect(ended(take(state), answered(1, 3000, 2000), 2000).lostBefore).toBe(0)
  })

  it("hears the next window once the view's soonest reset has passed; a late answer of the last window is stale", () => {
    // Window 1 answered at 99 and 151 ms, its resets rounded up to 1099 and 1151: all 10 spent until 1099.
    let state = ended(taken(10), answered(9, 1099, 13), 99)
    for (let i = 0; i < 9; i++) state = ended(state, answered(8 - i, 1151, 13), 151)
    expect([state.view, waitMillis(take(state), 151)]).toEqual([{ remaining: 0, untilMillis: 1099 }, 948])
    // Sent at 1100, in the next window: its answer (9 left) is heard, not dropped for being higher than 0.
    state = ended(taken(10, state), answered(9, 2100, 1100), 1150)
    expect(state.view).toEqual({ remaining: 9, untilMillis: 2100 })
    expect(waitMillis(state, 1150)).toBe(950)
    // An answer of an attempt sent in window 1, late, teaches nothing of window 2, but may have counted there.
    const late = ended(state, answered(0, 2200, 500), 1200)
    expect([late.view, late.lost]).toEqual([{ remaining: 9, untilMillis: 2100 }, 1])
  })

  it("ignores an announcement whose reset is already over", () => {
    expect(ended(taken(1), answered(0, 100), 100).view).toBe(undefined)
  })

  it("is idle, as good as fresh, with nothing in flight and no view in force", () => {
    expect(isIdle(make(), 0)).toBe(true)
    expect(isIdle(taken(1), 0)).toBe(false)
    const viewed = ended(taken(1), answered(1, 1000), 0)
    expect([isIdle(viewed, 999), isIdle(viewed, 1000)]).toEqual([false, true])
  })

  it("a remaining of 0 holds every attempt until the reset, as a block does", () => {
    expect(waitMillis(ended(taken(1), answered(0, 500), 0), 0)).toBe(500)
  })
})

describe("Budgets", () => {
  it("counts a key it does not hold only when asked to hold it", () => {
    const budgets = new Budgets()
    expect(budgets.takeIfHeld("a", 0)).toBe(undefined)
    expect(budgets.size).toBe(0)
    const generation = budgets.take("a", 0)
    expect(budgets.takeIfHeld("a", 0)).toBe(generation)
    budgets.ended("a", generation, answered(1, 1000), 0)
    expect(budgets.waitMillis("a", 0)).toBe(1000)
    expect(budgets.waitMillis("b", 0)).toBe(0)
  })

  it("is bounded: idle keys go first, and an attempt of a dropped entry does not touch the key's next one", () => {
    const budgets = new Budgets(2)
    const a = budgets.take("a", 0)
    budgets.ended("a", a, { _tag: "Silent" }, 0)
    const b = budgets.take("b", 0)
    budgets.ended("b", b, answered(0, 1000), 0)
    const stale = budgets.take("b", 0)
    // "a" is idle: it goes to make room; "b" has a view and an attempt in flight.
    budgets.take("c", 0)
    expect(budgets.size).toBe(2)
    expect(budgets.waitMillis("b", 0)).toBe(1000)
    // Past the capacity with nothing idle, the key used longest ago ("b") goes; its attempt's end is ignored.
    const a2 = budgets.take("a", 0)
    expect(budgets.size).toBe(2)
    const b2 = budgets.take("b", 0)
    expect(b2).not.toBe(stale)
    budgets.ended("b", stale, answered(0, 5000), 0)
    expect(budgets.waitMillis("b", 0)).toBe(0)
    expect(a2).not.toBe(a)
  })
})

/**
 * A fixed-window server, as the chaos server's: each window starts at the first request after the previous one
 * ended, and lets `limit` requests through; it answers what is left and when the window ends.
 */
const fixedWindowServer = (limit: number, windowMillis: number) => {
  let start = Number.NEGATIVE_INFINITY
  let allowed = 0
  return (nowMillis: number) => {
    if (nowMillis >= start + windowMillis) {
      start = nowMillis
      allowed = 0
    }
    const admitted = allowed < limit
    if (admitted) allowed++
    return { admitted, remaining: limit - allowed, endMillis: start + windowMillis }
  }
}

type Event =
  | { readonly _tag: "Send" }
  | { readonly _tag: "Arrive" | "Respond" | "Lose" | "Drop"; readonly pick: number }
  | { readonly _tag: "Tick"; readonly millis: number }

interface Attempt {
  readonly whileKnown: boolean
  readonly sentAt: number
  answer?: { readonly admitted: boolean; readonly remaining: number; readonly endMillis: number }
}

const pickFrom = <A>(list: Array<A>, pick: number): A | undefined =>
  list.length === 0 ? undefined : list.splice(pick % list.length, 1)[0]

/**
 * Plays `events` against the server: an attempt goes when the budget admits it now (always, when not `gated`);
 * the server takes the attempts sent in any order, answers them in any order, and some answers never come back
 * (a timeout after the server counted it) or some attempts never reach it. Counts the attempts the server refused
 * that were admitted while a view was known.
 */
const refusedOnceKnown = (
  limit: number,
  windowMillis: number,
  lateReset: number,
  events: ReadonlyArray<Event>,
  gated = true
) => {
  const server = fixedWindowServer(limit, windowMillis)
  let state = make()
  const sent: Array<Attempt> = []
  const counted: Array<Attempt> = []
  let now = 0
  let refused = 0
  const end = (ending: Ending) => {
    state = ended(state, ending, now)
  }
  for (const step of events) {
    switch (step._tag) {
      case "Tick":
        now += step.millis
        break
      case "Send": {
        if (gated && waitMillis(state, now) > 0) break
        const whileKnown = state.view !== undefined && now < state.view.untilMillis
        state = take(state)
        sent.push({ whileKnown, sentAt: now })
        break
      }
      case "Arrive": {
        const attempt = pickFrom(sent, step.pick)
        if (attempt === undefined) break
        attempt.answer = server(now)
        if (!attempt.answer.admitted && attempt.whileKnown) refused++
        counted.push(attempt)
        break
      }
      case "Respond": {
        const attempt = pickFrom(counted, step.pick)
        const answer = attempt?.answer
        // A reset announced late (rounded up to whole seconds, say), by as much as `lateReset`, each its own.
        const late = (lateReset * (step.pick % 4)) / 3
        if (attempt !== undefined && answer !== undefined) {
          end(answered(answer.remaining, answer.endMillis + late, attempt.sentAt))
        }
        break
      }
      case "Lose":
        if (pickFrom(counted, step.pick) !== undefined) end({ _tag: "Unanswered", sent: true })
        break
      case "Drop":
        if (pickFrom(sent, step.pick) !== undefined) end({ _tag: "Unanswered", sent: true })
        break
    }
  }
  return refused
}

const pick = fc.nat(7)
const event: fc.Arbitrary<Event> = fc.oneof(
  { arbitrary: fc.constant({ _tag: "Send" } as const), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constant("Arrive" as const), pick }), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constant("Respond" as const), pick }), weight: 4 },
  { arbitrary: fc.record({ _tag: fc.constant("Lose" as const), pick }), weight: 1 },
  { arbitrary: fc.record({ _tag: fc.constant("Drop" as const), pick }), weight: 1 },
  { arbitrary: fc.record({ _tag: fc.constant("Tick" as const), millis: fc.integer({ min: 1, max: 100 }) }), weight: 1 }
)

describe("against a fixed-window server", () => {
  it("no attempt admitted while a view is known is refused, whatever order the server takes and answers them in", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 500, max: 5000 }),
        fc.integer({ min: 0, max: 1000 }),
        fc.array(event, { minLength: 100, maxLength: 300 }),
        (limit, windowMillis, lateReset, events) => refusedOnceKnown(limit, windowMillis, lateReset, events) === 0
      ),
      { numRuns: 500 }
    )
  })

  it("the measure sees what the budget prevents: 5 in flight, ungated, taken out of order, meet refusals", () => {
    const send: Event = { _tag: "Send" }
    // Five in flight against a limit of 10; the server takes the newest first, as a faster connection would.
    const round: ReadonlyArray<Event> = [{ _tag: "Arrive", pick: 4 }, { _tag: "Respond", pick: 0 }, send]
    const events = [send, send, send, send, send, ...Array.from({ length: 20 }, () => round).flat()]
    expect(refusedOnceKnown(10, 1000, 0, events, false)).toBeGreaterThan(0)
    expect(refusedOnceKnown(10, 1000, 0, events)).toBe(0)
  })
})
