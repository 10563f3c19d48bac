import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type AdaptiveState,
  algorithmDefaults,
  type Algorithm,
  type Bounds,
  bounds,
  check,
  defaults,
  initialState,
  limitOf,
  makeBulkhead,
  type Sample,
  update
} from "../src/ConcurrencyLimit.js"
import type * as Settings from "../src/Settings.js"
import { type Shape, simulateCapacityDrop } from "./support/capacityModel.js"

const problemOf = (checked: Settings.Checked<unknown>) => (checked._tag === "Invalid" ? checked.problem : undefined)

describe("makeBulkhead", () => {
  it("grants up to the limit, queues up to the queue, rejects beyond", () => {
    const bulkhead = makeBulkhead<string>({ limit: 2, queue: 1 })
    expect(["a", "b", "c", "d"].map(bulkhead.acquire)).toEqual(["granted", "granted", "queued", "rejected"])
    expect([bulkhead.inFlight(), bulkhead.queued()]).toEqual([2, 1])
  })

  it("hands a released permit to the first waiter", () => {
    const bulkhead = makeBulkhead<string>({ limit: 1, queue: 3 })
    for (const waiter of ["a", "b", "c", "d"]) bulkhead.acquire(waiter)
    expect([bulkhead.release(), bulkhead.release(), bulkhead.release(), bulkhead.release()]).toEqual([
      "b",
      "c",
      "d",
      undefined
    ])
    expect([bulkhead.inFlight(), bulkhead.queued()]).toEqual([0, 0])
  })

  it("takes a cancelled waiter out of the queue, and nothing else", () => {
    const bulkhead = makeBulkhead<string>({ limit: 1, queue: 3 })
    for (const waiter of ["a", "b", "c"]) bulkhead.acquire(waiter)
    expect(bulkhead.cancel("b")).toBe(true)
    expect(bulkhead.cancel("b")).toBe(false)
    expect(bulkhead.cancel("a")).toBe(false)
    expect(bulkhead.release()).toBe("c")
  })

  it("with no queue, fails a call beyond the limit at once", () => {
    const bulkhead = makeBulkhead<string>({ limit: 1, queue: 0 })
    expect(["a", "b"].map(bulkhead.acquire)).toEqual(["granted", "rejected"])
  })

  it("grants waiters when the limit grows, and lets permits drain when it shrinks", () => {
    const bulkhead = makeBulkhead<string>({ limit: 1, queue: 5 })
    for (const waiter of ["a", "b", "c", "d"]) bulkhead.acquire(waiter)
    expect(bulkhead.setLimit(3)).toEqual(["b", "c"])
    expect(bulkhead.setLimit(1)).toEqual([])
    expect(bulkhead.inFlight()).toBe(3)
    expect([bulkhead.release(), bulkhead.release(), bulkhead.release()]).toEqual([undefined, undefined, "d"])
  })
})

type Op =
  | { readonly _tag: "Acquire" }
  | { readonly _tag: "Release" }
  | { readonly _tag: "Cancel"; readonly pick: number }
  | { readonly _tag: "SetLimit"; readonly limit: number }

const opArbitrary = (withSetLimit: boolean): fc.Arbitrary<Op> =>
  fc.oneof(
    fc.constant<Op>({ _tag: "Acquire" }),
    fc.constant<Op>({ _tag: "Acquire" }),
    fc.constant<Op>({ _tag: "Release" }),
    fc.nat(50).map((pick): Op => ({ _tag: "Cancel", pick })),
    ...(withSetLimit ? [fc.integer({ min: 1, max: 8 }).map((limit): Op => ({ _tag: "SetLimit", limit }))] : [])
  )

type Fate = "granted" | "rejected" | "cancelled"

/** Plays the operations, checking the invariants after each, then releases everything; each waiter's fate. */
const play = (limit: number, queue: number, ops: ReadonlyArray<Op>) => {
  const bulkhead = makeBulkhead<number>({ limit, queue })
  const fates = new Map<number, Fate>()
  const queued: Array<number> = []
  let held = 0
  let lowered = false
  const granted = (waiter: number | undefined) => {
    if (waiter === undefined) return
    expect(fates.has(waiter)).toBe(false)
    fates.set(waiter, "granted")
    queued.splice(queued.indexOf(waiter), 1)
    held++
    expect(bulkhead.inFlight()).toBeLessThanOrEqual(bulkhead.limit())
  }
  for (const [waiter, op] of ops.entries()) {
    if (op._tag === "Acquire") {
      const answer = bulkhead.acquire(waiter)
      if (answer === "queued") queued.push(waiter)
      else fates.set(waiter, answer)
      if (answer === "granted") {
        held++
        expect(bulkhead.inFlight()).toBeLessThanOrEqual(bulkhead.limit())
      }
    } else if (op._tag === "Release" && held > 0) {
      held--
      granted(bulkhead.release())
    } else if (op._tag === "Cancel" && queued.length > 0) {
      const waiterToCancel = queued[op.pick % queued.length] ?? -1
      expect(bulkhead.cancel(waiterToCancel)).toBe(true)
      queued.splice(queued.indexOf(waiterToCancel), 1)
      fates.set(waiterToCancel, "cancelled")
    } else if (op._tag === "SetLimit") {
      // Permits held beyond a lowered limit drain as they are released.
      lowered ||= op.limit < bulkhead.limit()
      for (const waiter of bulkhead.setLimit(op.limit)) granted(waiter)
    }
    expect(bulkhead.inFlight()).toBe(held)
    expect(bulkhead.queued()).toBe(queued.length)
    expect(bulkhead.queued()).toBeLessThanOrEqual(queue)
    if (!lowered) expect(bulkhead.inFlight()).toBeLessThanOrEqual(bulkhead.limit())
    // Nobody waits while a permit is free.
    if (bulkhead.queued() > 0) expect(bulkhead.inFlight()).toBeGreaterThanOrEqual(bulkhead.limit())
  }
  while (held > 0) {
    held--
    granted(bulkhead.release())
  }
  return { bulkhead, fates, acquired: ops.filter((op) => op._tag === "Acquire").length }
}

describe("makeBulkhead's invariants", () => {
  it("never holds more permits than its fixed limit, nor more waiters than its queue", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.nat(6),
        fc.array(opArbitrary(false), { maxLength: 200 }),
        (limit, queue, ops) => {
          const { bulkhead } = play(limit, queue, ops)
          expect(bulkhead.inFlight()).toBe(0)
        }
      )
    )
  })

  it("loses no waiter: each is granted, rejected or cancelled, once, whatever the limit does", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.nat(6),
        fc.array(opArbitrary(true), { maxLength: 200 }),
        (limit, queue, ops) => {
          const { bulkhead, fates, acquired } = play(limit, queue, ops)
          expect(bulkhead.queued()).toBe(0)
          expect(fates.size).toBe(acquired)
        }
      )
    )
  })
})

const aimdBounds: Bounds = { min: 1, max: 200, initial: 10 }

/** Runs the samples from the start, or from past slow start (`settled`), as after a first cut. */
const run = (
  algorithm: Algorithm,
  bounds: Bounds,
  samples: ReadonlyArray<Sample>,
  baselineRttMillis?: number,
  settled = true
): AdaptiveState =>
  samples.reduce(
    (state, sample) => update(bounds, state, sample, () => baselineRttMillis),
    settled ? { ...initialState(algorithm, bounds), slowStart: false } : initialState(algorithm, bounds)
  )

type Answer = Omit<Sample, "endedAtMillis">

/**
 * `windows` windows of ten samples each, one every `spacing` ms: a window of 10 ms RTTs 3 ms apart
 * spans 37 ms, past twice its shortest RTT, so each closes on its tenth sample.
 */
const windows = (windows: number, answer: Answer | ((index: number) => Answer), from = 0, spacing = 3): Array<Sample> =>
  Array.from({ length: windows * 10 }, (_, index) => ({
    ...(typeof answer === "function" ? answer(index) : answer),
    endedAtMillis: from + index * spacing
  }))

/** The limit after each of `samples`, from `state`. */
const limitsAfter = (bounds: Bounds, state: AdaptiveState, samples: ReadonlyArray<Sample>): Array<number> => {
  const limits: Array<number> = []
  samples.reduce((current, sample) => {
    const next = update(bounds, current, sample)
    limits.push(limitOf(next))
    return next
  }, state)
  return limits
}

describe("the sampling window", () => {
  it("has concurrency-limits' constants, TCP's cut by half and HyStart's rise of an eighth", () => {
    expect(algorithmDefaults).toEqual({
      aimd: { timeoutMillis: 5000 },
      gradient2: { smoothing: 0.2, queueSize: 4, longWindow: 600, warmup: 10, rttTolerance: 1 },
      window: { minSamples: 10, rttMultiple: 2 },
      dropCut: 0.5,
      slowStartRttRise: 1.125
    })
  })

  it("moves the limit once per window, not once per sample", () => {
    const busy: Answer = { rttMillis: 10, inFlight: 10, dropped: false }
    expect(limitOf(run("aimd", aimdBounds, windows(1, busy).slice(0, 9)))).toBe(10)
    expect(limitOf(run("aimd", aimdBounds, windows(1, busy)))).toBe(11)
    expect(limitOf(run("aimd", aimdBounds, windows(3, busy)))).toBe(13)
  })

  it("lasts at least twice its shortest RTT, however many samples it holds", () => {
    const slow = Array.from(
      { length: 30 },
      (_, index): Sample => ({
        rttMillis: 100,
        inFlight: 10,
        dropped: false,
        endedAtMillis: 100 + index
      })
    )
    // Started at 0 (the first sample's send); 30 samples by 129 ms, short of 200 ms.
    expect(limitOf(run("aimd", aimdBounds, slow))).toBe(10)
    expect(limitOf(run("aimd", aimdBounds, [...slow, { ...slow[0]!, endedAtMillis: 200 }]))).toBe(11)
  })

  it("ignores a sample whose RTT or time is not a number", () => {
    const state = initialState("aimd", aimdBounds)
    const bad: Sample = { rttMillis: Number.NaN, inFlight: 10, dropped: true, endedAtMillis: 1 }
    expect(update(aimdBounds, state, bad)).toBe(state)
    expect(update(aimdBounds, state, { ...bad, rttMillis: 1, endedAtMillis: Number.NaN })).toBe(state)
  })
})

describe("slow start", () => {
  const busy: Answer = { rttMillis: 10, inFlight: 200, dropped: false }

  it("doubles a limit the caller fills once per window, until the first drop", () => {
    const state = initialState("aimd", aimdBounds)
    const limits = limitsAfter(aimdBounds, state, [
      ...windows(3, busy),
      { rttMillis: 1, inFlight: 80, dropped: true, endedAtMillis: 100 },
      ...windows(1, busy, 200)
    ])
    // Then halfway back to the 80 it dropped at, per window (BIC's binary search).
    expect([limits[9], limits[19], limits[29], limits[30], limits[40]]).toEqual([20, 40, 80, 40, 60])
    // A limit the caller does not fill grows as after slow start: by one per window that used half of it.
    expect(limitOf(run("aimd", aimdBounds, windows(3, { ...busy, inFlight: 9 }), undefined, false))).toBe(13)
  })

  it("Gradient2: doubles while latency holds, and ends at a rise of an eighth", () => {
    const bounds: Bounds = { min: 1, max: 200, initial: 20 }
    const held = run("gradient2", bounds, windows(2, busy), undefined, false)
    expect(held).toMatchObject({ estimate: 80, slowStart: true })
    // 12 ms over a long RTT of 10: slow start ends, and the gradient takes over.
    const risen = run(
      "gradient2",
      bounds,
      [...windows(2, busy), ...windows(1, { ...busy, rttMillis: 12 }, 70)],
      10,
      false
    )
    expect(risen).toMatchObject({ slowStart: false })
    expect(risen._tag === "Gradient2" && risen.estimate).toBeCloseTo(80 * 0.8 + (80 * (10 / 12) + 4) * 0.2, 9)
    const noisy = run(
      "gradient2",
      bounds,
      [...windows(2, busy), ...windows(1, { ...busy, rttMillis: 11 }, 70)],
      10,
      false
    )
    expect(noisy).toMatchObject({ estimate: 160, slowStart: true })
  })
})

describe("a drop", () => {
  const settled = (algorithm: Algorithm, limit: number): AdaptiveState => ({
    ...initialState(algorithm, { ...aimdBounds, initial: limit }),
    slowStart: false
  })

  it("cuts to what the server served at once over the last windows (Little's law), by one at least", () => {
    // A server taking 8 at once for 20 ms: an answer every 2.5 ms. The limit grows to 17 over two windows of
    // answers; one 503 of an attempt sent at 16 in flight cuts it to 8, the answered RTTs over the time.
    const eight = windows(2, { rttMillis: 20, inFlight: 17, dropped: false }, 20, 2.5)
    const shed: Sample = { rttMillis: 1, inFlight: 16, dropped: true, endedAtMillis: 70 }
    for (const algorithm of ["aimd", "gradient2"] as const) {
      const limits = limitsAfter(aimdBounds, settled(algorithm, 16), [...eight, shed])
      expect(limits.at(-2)).toBe(algorithm === "aimd" ? 17 : 16)
      expect(limits.at(-1)).toBe(8)
    }
  })

  it("with nothing answered, halves; once per limit, not per drop of an attempt sent before the cut", () => {
    const drop = (endedAtMillis: number, rttMillis = 1, inFlight = 10): Sample => ({
      rttMillis,
      inFlight,
      dropped: true,
      endedAtMillis
    })
    for (const algorithm of ["aimd", "gradient2"] as const) {
      // Sent at 0, 0.5 (before the cut at 1), 4 with 10 in flight (more than the limit of 5 allows: sent under
      // the last), then 5 with 5 in flight: cut from what was in flight, 5 after the first, 2 after the last.
      const drops = [drop(1), drop(2, 1.5), drop(5), drop(6, 1, 5)]
      expect(limitsAfter(aimdBounds, settled(algorithm, 10), drops)).toEqual([5, 5, 5, 2])
    }
  })

  it("is also an RTT over 5 s: one 20 s after the last answers halves", () => {
    const answered = windows(1, { rttMillis: 10, inFlight: 10, dropped: false })
    const sample = (rttMillis: number): Sample => ({ rttMillis, inFlight: 10, dropped: false, endedAtMillis: 20_000 })
    expect(limitOf(run("aimd", aimdBounds, [...answered, sample(5001)]))).toBe(5)
    expect(limitOf(run("aimd", aimdBounds, [...answered, sample(5000)]))).toBe(11)
  })
})

describe("AIMD", () => {
  it("adds one per window that used half of the limit", () => {
    // 5 in flight: half of 10, not of 11.
    expect(limitOf(run("aimd", aimdBounds, windows(3, { rttMillis: 10, inFlight: 5, dropped: false })))).toBe(11)
  })

  it("does not grow while the caller uses less than half of it", () => {
    expect(limitOf(run("aimd", aimdBounds, windows(3, { rttMillis: 10, inFlight: 4, dropped: false })))).toBe(10)
  })

  it("stays within its bounds", () => {
    const limits = { min: 5, max: 11, initial: 6 }
    expect(limitOf(run("aimd", limits, windows(3, { rttMillis: 10, inFlight: 1, dropped: true })))).toBe(5)
    expect(limitOf(run("aimd", limits, windows(20, { rttMillis: 10, inFlight: 100, dropped: false })))).toBe(11)
  })
})

describe("Gradient2", () => {
  const g2Bounds: Bounds = { min: 1, max: 200, initial: 20 }
  const steady: Answer = { rttMillis: 10, inFlight: 20, dropped: false }

  it("grows by the queue it allows while latency holds", () => {
    // estimate * 0.8 + (estimate * 1 + 4) * 0.2 = estimate + 0.8, once per window
    const state = run("gradient2", g2Bounds, windows(2, steady))
    expect(state).toMatchObject({ _tag: "Gradient2", estimate: 21.6, longRttMillis: 10, longSamples: 2 })
    expect(limitOf(state)).toBe(21)
  })

  it("shrinks when the window's shortest RTT rises over the long RTT, at most by half a step", () => {
    const warmed = run("gradient2", g2Bounds, windows(10, steady))
    expect(limitOf(warmed)).toBe(28)
    const slow = run("gradient2", g2Bounds, [
      ...windows(10, steady),
      ...windows(1, { ...steady, rttMillis: 100 }, 400, 12)
    ])
    if (slow._tag !== "Gradient2" || warmed._tag !== "Gradient2") throw new Error("not Gradient2")
    // The long RTT moves by 2/601 of the step; the gradient is held at 0.5.
    expect(slow.longRttMillis).toBeCloseTo(10 + (90 * 2) / 601, 9)
    expect(slow.estimate).toBeCloseTo(warmed.estimate * 0.8 + (warmed.estimate * 0.5 + 4) * 0.2, 9)
  })

  it("reads the window's shortest RTT: a busy client's delays on some answers are no queue", () => {
    const warmed = run("gradient2", g2Bounds, windows(10, steady))
    const noisy = run("gradient2", g2Bounds, [
      ...windows(10, steady),
      ...windows(1, (index) => ({ ...steady, rttMillis: index % 2 === 0 ? 10 : 30 }), 400, 12)
    ])
    if (noisy._tag !== "Gradient2" || warmed._tag !== "Gradient2") throw new Error("not Gradient2")
    expect(noisy.estimate).toBeCloseTo(warmed.estimate + 0.8, 9)
  })

  it("reads the origin's usual RTT when it is below its own long average", () => {
    // A queue that lasts pulls the average up to 20 ms; the baseline of 10 ms still reads it as a queue.
    const queued = { ...steady, rttMillis: 20 }
    const withBaseline = run("gradient2", g2Bounds, windows(1, queued), 10)
    expect(withBaseline._tag === "Gradient2" && withBaseline.estimate).toBeCloseTo(20 * 0.8 + (20 * 0.5 + 4) * 0.2, 9)
    expect(limitOf(run("gradient2", g2Bounds, windows(1, queued)))).toBe(20)
    // A baseline above the average changes nothing.
    expect(run("gradient2", g2Bounds, windows(1, queued), 40)).toEqual(run("gradient2", g2Bounds, windows(1, queued)))
  })

  it("does not move the limit while the caller uses less than half of it", () => {
    const state = run("gradient2", g2Bounds, windows(1, { rttMillis: 10, inFlight: 9, dropped: false }))
    expect(state).toMatchObject({ _tag: "Gradient2", estimate: 20, longRttMillis: 10, longSamples: 1 })
  })

  it("reads an RTT of 0 as no queueing", () => {
    const zero = Array.from({ length: 10 }, (_, index): Sample => ({ ...steady, rttMillis: 0, endedAtMillis: index }))
    const state = run("gradient2", g2Bounds, zero)
    expect(state._tag === "Gradient2" && state.estimate).toBeCloseTo(20.8, 9)
  })
})

describe("adaptive limits' invariant", () => {
  it("keep the limit a whole number within the bounds, whatever the samples", () => {
    const boundsArbitrary = fc
      .tuple(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 100 }), fc.nat(100))
      .map(([min, span, at]): Bounds => ({ min, max: min + span, initial: min + (at % (span + 1)) }))
    const sampleArbitrary = fc.record({
      rttMillis: fc.oneof(fc.double({ min: -10, max: 100_000, noNaN: false }), fc.constant(0)),
      inFlight: fc.nat(400),
      dropped: fc.boolean(),
      endedAtMillis: fc.double({ min: 0, max: 1e9, noNaN: false })
    })
    fc.assert(
      fc.property(
        fc.constantFrom<Algorithm>("aimd", "gradient2"),
        boundsArbitrary,
        fc.array(sampleArbitrary, { maxLength: 300 }),
        fc.option(fc.double({ min: 0, max: 1000 }), { nil: undefined }),
        (algorithm, limits, samples, baseline) => {
          let state = initialState(algorithm, limits)
          for (const sample of samples) {
            state = update(limits, state, sample, () => baseline)
            const limit = limitOf(state)
            expect(Number.isSafeInteger(limit)).toBe(true)
            expect(limit).toBeGreaterThanOrEqual(limits.min)
            expect(limit).toBeLessThanOrEqual(limits.max)
          }
        }
      )
    )
  })

  it("a drop never raises the limit, nor cuts it below half of what was in flight when it was sent", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Algorithm>("aimd", "gradient2"),
        fc.integer({ min: 2, max: 200 }),
        fc.array(
          fc.record({
            rttMillis: fc.double({ min: 0, max: 100, noNaN: true }),
            gap: fc.double({ min: 0, max: 10, noNaN: true })
          }),
          { maxLength: 40 }
        ),
        fc.integer({ min: 1, max: 400 }),
        (algorithm, limit, answers, inFlight) => {
          const bounds: Bounds = { min: 1, max: 200, initial: limit }
          let at = 0
          const samples = answers.map(({ rttMillis, gap }): Sample => {
            at += gap
            return { rttMillis, inFlight, dropped: false, endedAtMillis: at }
          })
          const before = samples.reduce(
            (state, sample) => update(bounds, state, sample),
            initialState(algorithm, bounds)
          )
          const window = before.window
          const sentAt = Math.max(at, Number.isFinite(window.startedAtMillis) ? window.startedAtMillis : at)
          // Sent under the limit in force: a drop sent with more in flight was the last limit's.
          const sent = Math.min(inFlight, limitOf(before))
          const after = update(bounds, before, { rttMillis: 0, inFlight: sent, dropped: true, endedAtMillis: sentAt })
          expect(limitOf(after)).toBeLessThanOrEqual(Math.max(1, limitOf(before) - 1))
          expect(limitOf(after)).toBeGreaterThanOrEqual(Math.max(1, Math.floor(sent / 2)))
        }
      )
    )
  })
})

describe("adaptive limits against a server whose capacity drops", () => {
  // The chaos server's capacity route, simulated: see test/support/capacityModel.ts.
  const instant = (before: number, after: number): Shape => ({ before, after, shedAt: 1, callers: before * 1.5 })

  it("on a healthy server (64 at once, 96 callers), each serves at least 0.9x of what no limit does", () => {
    const none = simulateCapacityDrop("none").before.wholeGoodputOfCapacity
    for (const algorithm of ["aimd", "gradient2"] as const) {
      expect(simulateCapacityDrop(algorithm).before.wholeGoodputOfCapacity / none).toBeGreaterThan(0.9)
      expect(simulateCapacityDrop(algorithm, 12).before.wholeGoodputOfCapacity / none).toBeGreaterThan(0.9)
    }
  })

  it("after a drop to a server that sheds at once (32 to 8, 64 to 16): under a tenth of no limit's 503s", () => {
    for (const shape of [instant(32, 8), instant(64, 16)]) {
      const none = simulateCapacityDrop("none", 0, shape).after.shed
      for (const algorithm of ["aimd", "gradient2"] as const) {
        const { after } = simulateCapacityDrop(algorithm, 0, shape)
        expect(after.shed / none).toBeLessThan(0.1)
        expect(after.goodputOfCapacity).toBeGreaterThan(0.9)
      }
    }
  })

  it("Gradient2 comes down to what the server takes after a slow-then-shed drop, p99 at most 2x", () => {
    const { medianLimit, p99Ratio, shedShare, goodputOfCapacity } = simulateCapacityDrop("gradient2").after
    expect(medianLimit).toBeGreaterThanOrEqual(16)
    expect(medianLimit).toBeLessThanOrEqual(26)
    expect(p99Ratio).toBeLessThanOrEqual(2)
    expect(shedShare).toBeLessThan(0.05)
    expect(goodputOfCapacity).toBeGreaterThan(0.9)
  })

  it("Gradient2 on a busy client (0 to 12 ms of its own on each answer) still takes what the server can", () => {
    // A low percentile of the window would read the client's own delays as queueing: 0.24x before the drop.
    const { before, after } = simulateCapacityDrop("gradient2", 12)
    expect(before.goodputOfCapacity).toBeGreaterThan(0.9)
    expect(after.goodputOfCapacity).toBeGreaterThan(0.9)
    expect(after.shedShare).toBeLessThan(0.05)
  })

  it("AIMD comes down to where the server sheds, and no further than half", () => {
    const { medianLimit, shedShare, goodputOfCapacity } = simulateCapacityDrop("aimd").after
    expect(medianLimit).toBeGreaterThanOrEqual(16)
    expect(medianLimit).toBeLessThanOrEqual(33)
    // It finds the limit by probing past it: the server sheds some, as it does not for Gradient2.
    expect(shedShare).toBeLessThan(0.25)
    expect(goodputOfCapacity).toBeGreaterThan(0.9)
  })
})

describe("check: the concurrency option", () => {
  it("is off by default; a fixed limit has no queue unless asked", () => {
    expect(check(undefined)).toEqual({ _tag: "Valid", value: undefined })
    expect(check({ limit: 32 })).toEqual({ _tag: "Valid", value: { _tag: "Fixed", limit: 32, queue: 0 } })
    expect(check({ limit: 32, queue: 100 })).toEqual({ _tag: "Valid", value: { _tag: "Fixed", limit: 32, queue: 100 } })
  })

  it("gives an adaptive limit its documented defaults", () => {
    expect(defaults).toEqual({ queue: 0, algorithm: "gradient2", initial: 20, min: 1, max: 200 })
    expect(check({ adaptive: true })).toEqual({
      _tag: "Valid",
      value: { _tag: "Adaptive", algorithm: "gradient2", queue: 0, min: 1, max: 200, initial: 20 }
    })
    expect(check({ adaptive: true, algorithm: "aimd", min: 4, max: 8, queue: 16 })).toEqual({
      _tag: "Valid",
      value: { _tag: "Adaptive", algorithm: "aimd", queue: 16, min: 4, max: 8, initial: 8 }
    })
    expect(check({ adaptive: true, min: 300 })).toEqual({
      _tag: "Valid",
      value: { _tag: "Adaptive", algorithm: "gradient2", queue: 0, min: 300, max: 300, initial: 300 }
    })
  })

  it("names a bad option in full", () => {
    expect(problemOf(check(32))?.option).toBe("concurrencyLimit")
    expect(problemOf(check({}))).toEqual({
      option: "concurrencyLimit.limit",
      reason: `must be a whole number from 1 to ${bounds.maxLimit}: attempts in flight at once`,
      value: undefined
    })
    for (const limit of [0, 2.5, -1, Number.NaN, "8", bounds.maxLimit + 1]) {
      expect(problemOf(check({ limit }))?.option).toBe("concurrencyLimit.limit")
    }
    expect(problemOf(check({ limit: 8, queue: -1 }))?.option).toBe("concurrencyLimit.queue")
    expect(problemOf(check({ limit: 8, min: 2 }))?.option).toBe("concurrencyLimit.min")
    expect(problemOf(check({ adaptive: false }))?.option).toBe("concurrencyLimit.adaptive")
    expect(problemOf(check({ adaptive: true, limit: 8 }))?.reason).toBe(
      "is for a fixed limit: with adaptive: true, give initial, min and max"
    )
    expect(problemOf(check({ adaptive: true, algorithm: "vegas" }))?.option).toBe("concurrencyLimit.algorithm")
    expect(problemOf(check({ adaptive: true, min: 0 }))?.option).toBe("concurrencyLimit.min")
    expect(problemOf(check({ adaptive: true, min: 10, max: 5 }))).toEqual({
      option: "concurrencyLimit.max",
      reason: `must be a whole number from 10 to ${bounds.maxLimit}: at least min`,
      value: 5
    })
    expect(problemOf(check({ adaptive: true, min: 10, max: 20, initial: 30 }))).toEqual({
      option: "concurrencyLimit.initial",
      reason: "must be a whole number from 10 to 20: from min to max",
      value: 30
    })
  })
})
