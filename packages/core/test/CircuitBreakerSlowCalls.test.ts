// Issue #44: the slow-call trigger (resilience4j's slowCallRateThreshold and
// slowCallDurationThreshold, with a minimum of its own) and half-open sampling (cockatiel's
// halfOpenSampling: N successful probes of M close the circuit). Times are exact milliseconds.
import { describe, expect, it } from "vitest"
import {
  type Admission,
  type BreakerSettings,
  breakerDefaults,
  CircuitBreakerMachine,
  checkSettings,
  type Outcome,
  type Permit,
  resolveOptions
} from "../src/CircuitBreaker.js"
import * as Settings from "../src/Settings.js"

const success: Outcome = { _tag: "Success" }
const failure: Outcome = { _tag: "Failure" }
const ignored: Outcome = { _tag: "Ignored" }

/** consecutive(1000) (failures alone never trip it) and the slow-call trigger given. */
const slowly = (slowCalls: Partial<NonNullable<BreakerSettings["slowCalls"]>> = {}): BreakerSettings => ({
  ...breakerDefaults,
  tripPolicy: { _tag: "Consecutive", failures: 1000 },
  slowCalls: { durationMillis: 1_000, ratio: 0.5, minimumThroughput: 4, samplingDurationMillis: 10_000, ...slowCalls }
})

/** consecutive(1), a 5 s break, and `probes` probes of which `successes` close it. */
const sampled = (probes: number, successes: number, extra: Partial<BreakerSettings> = {}): BreakerSettings => ({
  ...breakerDefaults,
  tripPolicy: { _tag: "Consecutive", failures: 1 },
  halfOpen: { probes, successes },
  ...extra
})

const permitted = (admission: Admission): Permit => {
  if (admission._tag !== "Permitted") throw new Error(`expected a permit, got ${JSON.stringify(admission)}`)
  return admission.permit
}

/** A call admitted at `start` that reports `outcome` after `took` milliseconds. */
const call = (machine: CircuitBreakerMachine, start: number, took: number, outcome: Outcome = success) =>
  machine.report(start + took, permitted(machine.tryAcquire(start)), outcome)

/** Opens the machine at 0 with one failure; it half-opens at 5 s. */
const opened = (settings: BreakerSettings) => {
  const machine = new CircuitBreakerMachine(settings)
  call(machine, 0, 0, failure)
  expect(machine.snapshot(0)._tag).toBe("Open")
  return machine
}

describe("the slow-call trigger", () => {
  it("trips once slow calls reach the ratio over at least its own minimum, on the slow call that does it", () => {
    const machine = new CircuitBreakerMachine(slowly())
    expect(call(machine, 0, 10)).toBeUndefined()
    expect(call(machine, 100, 1_500)).toBeUndefined()
    // 2 slow of 3: the ratio is passed, the minimum (4) is not.
    expect(call(machine, 200, 2_000)).toBeUndefined()
    // A fast 4th call reaches the minimum but decides nothing: only a slow call trips it.
    expect(call(machine, 2_300, 10)).toBeUndefined()
    expect(call(machine, 2_400, 1_001)).toEqual({ from: "Closed", to: "Open", breakMillis: 5_000, manual: false })
    expect(machine.tryAcquire(3_402)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 4_999 })
  })

  it("a call is slow when it takes longer than the duration: exactly the duration is not slow", () => {
    const machine = new CircuitBreakerMachine(slowly({ minimumThroughput: 1 }))
    // A sample, not slow: then 1 slow call of 2 is the ratio, 0.5.
    expect(call(machine, 0, 1_000)).toBeUndefined()
    expect(machine.snapshot(1_000)._tag).toBe("Closed")
    expect(call(machine, 1_000, 1_001)?.to).toBe("Open")
  })

  it("has its own minimum, apart from the trip policy's: a sampling breaker needing 100 samples trips on 2 slow calls", () => {
    const machine = new CircuitBreakerMachine({
      ...slowly({ minimumThroughput: 2, ratio: 1 }),
      tripPolicy: { _tag: "Sampling", failureRatio: 0.1, minimumThroughput: 100, samplingDurationMillis: 30_000 }
    })
    expect(call(machine, 0, 5_000)).toBeUndefined()
    expect(call(machine, 5_000, 5_000)?.to).toBe("Open")
  })

  it("slow failures are slow calls too; ignored calls are no samples", () => {
    const machine = new CircuitBreakerMachine(slowly({ minimumThroughput: 2, ratio: 1 }))
    expect(call(machine, 0, 3_000, ignored)).toBeUndefined()
    expect(call(machine, 0, 3_000, ignored)).toBeUndefined()
    expect(call(machine, 3_000, 3_000, failure)).toBeUndefined()
    expect(call(machine, 6_000, 3_000, failure)?.to).toBe("Open")
  })

  it("forgets slow calls older than its own sampling duration", () => {
    const machine = new CircuitBreakerMachine(slowly({ minimumThroughput: 2, ratio: 1 }))
    expect(call(machine, 0, 2_000)).toBeUndefined()
    // The first slow call (sampled at 2 s) has left the 10 s window at 12 s.
    expect(call(machine, 10_500, 2_000)).toBeUndefined()
    expect(machine.snapshot(12_500)._tag).toBe("Closed")
    expect(call(machine, 12_500, 2_000)?.to).toBe("Open")
  })

  it("starts afresh after the circuit is closed by hand", () => {
    const machine = new CircuitBreakerMachine(slowly({ minimumThroughput: 2, ratio: 1 }))
    expect(call(machine, 0, 2_000)).toBeUndefined()
    machine.close()
    expect(call(machine, 2_000, 2_000)).toBeUndefined()
    expect(call(machine, 4_000, 2_000)?.to).toBe("Open")
  })

  it("a failure-trip forgets the slow calls too", () => {
    const machine = new CircuitBreakerMachine({ ...slowly({ minimumThroughput: 2, ratio: 1 }), ...sampled(1, 1) })
    expect(call(machine, 0, 2_000)).toBeUndefined()
    expect(call(machine, 2_000, 0, failure)?.to).toBe("Open")
    // The probe is fast: closed again, with no slow call remembered.
    expect(call(machine, 7_000, 10)?.to).toBe("Closed")
    expect(call(machine, 7_010, 2_000)).toBeUndefined()
  })

  it("a slow probe counts as a failed one: a slow origin does not close the circuit", () => {
    const machine = opened({ ...slowly(), tripPolicy: { _tag: "Consecutive", failures: 1 } })
    expect(call(machine, 5_000, 1_500)).toEqual({ from: "HalfOpen", to: "Open", breakMillis: 5_000, manual: false })
    expect(call(machine, 11_500, 900)?.to).toBe("Closed")
  })

  it("is a sample of its own for each call, beside the failures: a fast circuit is pristine again once its window is empty", () => {
    const machine = new CircuitBreakerMachine(slowly())
    call(machine, 0, 10)
    expect(machine.isPristine(10)).toBe(false)
    expect(machine.isPristine(10_010)).toBe(true)
  })
})

describe("half-open sampling: N successful probes of M", () => {
  it("lets M probes through at once, rejects the next until a slot is re-armed, and closes on the N-th success", () => {
    const machine = opened(sampled(3, 2))
    const first = permitted(machine.tryAcquire(5_000))
    const second = permitted(machine.tryAcquire(5_100))
    expect(machine.snapshot(5_100)).toEqual({ _tag: "HalfOpen", probing: false, retryAfterMillis: 0 })
    const third = permitted(machine.tryAcquire(5_200))
    expect([first.probe, second.probe, third.probe]).toEqual([true, true, true])
    // Three in flight: the fourth caller waits for the first slot's re-arming, a break after it.
    expect(machine.tryAcquire(6_000)).toEqual({ _tag: "Rejected", state: "HalfOpen", retryAfterMillis: 4_000 })
    expect(machine.snapshot(6_000)).toEqual({ _tag: "HalfOpen", probing: true, retryAfterMillis: 4_000 })
    expect(machine.report(6_100, second, success)).toBeUndefined()
    expect(machine.report(6_200, first, success)).toEqual({ from: "HalfOpen", to: "Closed", manual: false })
    // The third probe's late verdict changes nothing any more.
    expect(machine.report(6_300, third, failure)).toBeUndefined()
    expect(machine.snapshot(6_300)._tag).toBe("Closed")
  })

  it("reopens once N successes can no longer come: the second failure of 3 probes needing 2", () => {
    const machine = opened(sampled(3, 2))
    const probes = [5_000, 5_000, 5_000].map((at) => permitted(machine.tryAcquire(at)))
    expect(machine.report(5_500, probes[0]!, failure)).toBeUndefined()
    expect(machine.snapshot(5_500)).toEqual({ _tag: "HalfOpen", probing: true, retryAfterMillis: 4_500 })
    expect(machine.report(5_600, probes[1]!, failure)).toEqual({
      from: "HalfOpen",
      to: "Open",
      breakMillis: 5_000,
      manual: false
    })
    expect(machine.report(5_700, probes[2]!, success)).toBeUndefined()
    expect(machine.tryAcquire(5_700)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 4_900 })
  })

  it("probes one after another: a failure within the allowance, then two successes close it", () => {
    const machine = opened(sampled(3, 2))
    expect(call(machine, 5_000, 10, failure)).toBeUndefined()
    expect(call(machine, 5_010, 10)).toBeUndefined()
    expect(call(machine, 5_020, 10)?.to).toBe("Closed")
  })

  it("every probe must succeed when successes equals probes (the default of successes)", () => {
    const machine = opened(sampled(2, 2))
    expect(call(machine, 5_000, 10)).toBeUndefined()
    expect(call(machine, 5_010, 10, failure)?.to).toBe("Open")
  })

  it("an ignored probe frees its slot and counts neither way", () => {
    const machine = opened(sampled(2, 2))
    const first = permitted(machine.tryAcquire(5_000))
    const second = permitted(machine.tryAcquire(5_000))
    expect(machine.tryAcquire(5_000)._tag).toBe("Rejected")
    expect(machine.report(5_001, first, ignored)).toBeUndefined()
    expect(machine.report(5_002, first, success)).toBeUndefined()
    const third = permitted(machine.tryAcquire(5_003))
    expect(machine.report(5_004, second, success)).toBeUndefined()
    expect(machine.report(5_005, third, success)?.to).toBe("Closed")
  })

  it("a probe that outlives its slot by a break loses it to the next caller only when none is free", () => {
    const machine = opened(sampled(2, 1))
    const hung = permitted(machine.tryAcquire(5_000))
    const late = permitted(machine.tryAcquire(5_000))
    expect(machine.tryAcquire(9_999)).toEqual({ _tag: "Rejected", state: "HalfOpen", retryAfterMillis: 1 })
    const next = permitted(machine.tryAcquire(10_000))
    // Both slots were re-armed for the caller at 10 s: their probes are fenced.
    expect(machine.report(10_001, hung, success)).toBeUndefined()
    expect(machine.report(10_001, late, success)).toBeUndefined()
    expect(machine.report(10_002, next, success)?.to).toBe("Closed")
  })

  it("forceOpen and isolate fence the probes in flight", () => {
    const machine = opened(sampled(2, 1))
    const probe = permitted(machine.tryAcquire(5_000))
    machine.forceOpen(5_100, 5_000)
    expect(machine.report(5_200, probe, success)).toBeUndefined()
    const again = permitted(machine.tryAcquire(10_100))
    machine.isolate()
    expect(machine.report(10_200, again, success)).toBeUndefined()
    expect(machine.snapshot(10_200)._tag).toBe("Isolated")
  })
})

describe("the options: checked, with the defaults of today when left out", () => {
  const millis: Settings.DurationCodec<number> = {
    decode: (input) => (typeof input === "number" ? input : undefined),
    infinity: Number.POSITIVE_INFINITY,
    toMillis: (value) => value
  }
  const resolved = (input: unknown) => {
    const checked = resolveOptions(input, millis)
    if (checked._tag !== "Valid") throw new Error(Settings.invalidMessage(checked.problem))
    return checked.value
  }
  const problem = (input: unknown) => {
    const checked = resolveOptions(input, millis)
    if (checked._tag === "Valid") throw new Error(`valid: ${JSON.stringify(checked.value)}`)
    return checked.problem
  }

  it("left out, the settings are today's, to the key: neither option appears", () => {
    expect(JSON.stringify(resolved({}))).toBe(JSON.stringify(breakerDefaults))
  })

  it("given empty, each takes its documented defaults", () => {
    expect(resolved({ slowCalls: {}, halfOpen: {} })).toMatchObject({
      slowCalls: { durationMillis: 5_000, ratio: 0.5, minimumThroughput: 100, samplingDurationMillis: 30_000 },
      halfOpen: { probes: 1, successes: 1 }
    })
    expect(resolved({ halfOpen: { probes: 4 } }).halfOpen).toEqual({ probes: 4, successes: 4 })
  })

  const bad: ReadonlyArray<readonly [unknown, string, unknown]> = [
    [{ slowCalls: { duration: 0 } }, "circuitBreaker.slowCalls.duration", 0],
    [{ slowCalls: { duration: 86_400_001 } }, "circuitBreaker.slowCalls.duration", 86_400_001],
    [{ slowCalls: { duration: "soon" } }, "circuitBreaker.slowCalls.duration", "soon"],
    [{ slowCalls: { ratio: 0 } }, "circuitBreaker.slowCalls.ratio", 0],
    [{ slowCalls: { ratio: 1.5 } }, "circuitBreaker.slowCalls.ratio", 1.5],
    [{ slowCalls: { minimumThroughput: 0 } }, "circuitBreaker.slowCalls.minimumThroughput", 0],
    [{ slowCalls: { minimumThroughput: 2.5 } }, "circuitBreaker.slowCalls.minimumThroughput", 2.5],
    [{ slowCalls: { samplingDuration: 499 } }, "circuitBreaker.slowCalls.samplingDuration", 499],
    [{ slowCalls: { threshold: 1 } }, "circuitBreaker.slowCalls.threshold", 1],
    [{ slowCalls: 5 }, "circuitBreaker.slowCalls", 5],
    [{ halfOpen: { probes: 0 } }, "circuitBreaker.halfOpen.probes", 0],
    [{ halfOpen: { probes: 1001 } }, "circuitBreaker.halfOpen.probes", 1001],
    [{ halfOpen: { probes: 3, successes: 4 } }, "circuitBreaker.halfOpen.successes", 4],
    [{ halfOpen: { probes: 3, successes: 0 } }, "circuitBreaker.halfOpen.successes", 0],
    [{ halfOpen: { probes: "3" } }, "circuitBreaker.halfOpen.probes", "3"]
  ]
  for (const [input, option, value] of bad) {
    it(`${JSON.stringify(input)}: names ${option}`, () => {
      const found = problem(input)
      expect(found.option).toBe(option)
      expect(found.value).toEqual(value)
      expect(found.reason.length).toBeGreaterThan(0)
    })
  }

  it("checkSettings names the option relative to the breaker", () => {
    expect(checkSettings({ ...breakerDefaults, halfOpen: { probes: 2, successes: 3 } })).toEqual({
      option: "halfOpen.successes",
      reason: "must be a whole number from 1 to halfOpen.probes",
      value: 3
    })
    expect(checkSettings(slowly({ ratio: 2 }))?.option).toBe("slowCalls.ratio")
  })
})
