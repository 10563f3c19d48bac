import { describe, expect, it } from "vitest"
import {
  type Admission,
  type BreakerSettings,
  breakerDefaults,
  CircuitBreakerMachine,
  checkSettings,
  type Outcome,
  type Permit,
  RollingHealth,
  resolveOptions,
  type SamplingPolicy,
  samplingDefaults
} from "../src/CircuitBreaker.js"
import * as Settings from "../src/Settings.js"

const success: Outcome = { _tag: "Success" }
const failure: Outcome = { _tag: "Failure" }
const ignored: Outcome = { _tag: "Ignored" }

const sampling = (overrides: Partial<Omit<SamplingPolicy, "_tag">> = {}): BreakerSettings => ({
  ...breakerDefaults,
  tripPolicy: { ...samplingDefaults, ...overrides }
})

const consecutive = (failures: number, overrides: Partial<BreakerSettings> = {}): BreakerSettings => ({
  ...breakerDefaults,
  tripPolicy: { _tag: "Consecutive", failures },
  ...overrides
})

const permitted = (admission: Admission): Permit => {
  if (admission._tag !== "Permitted") throw new Error(`expected a permit, got ${JSON.stringify(admission)}`)
  return admission.permit
}

/** One attempt at `now` with this outcome; returns the transition it caused. */
const attempt = (machine: CircuitBreakerMachine, now: number, outcome: Outcome) =>
  machine.report(now, permitted(machine.tryAcquire(now)), outcome)

/** Opens a consecutive(1) machine at `now`. */
const opened = (now = 0, settings: BreakerSettings = consecutive(1)) => {
  const machine = new CircuitBreakerMachine(settings)
  attempt(machine, now, failure)
  expect(machine.snapshot(now)._tag).toBe("Open")
  return machine
}

// Polly's RollingHealthMetricsTests: 10 s sampled in 10 windows.
describe("RollingHealth (Polly's RollingHealthMetrics)", () => {
  const health = () => new RollingHealth({ ...samplingDefaults, samplingDurationMillis: 10_000 })

  it("starts empty", () => {
    expect(health().info(0)).toEqual({ throughput: 0, failures: 0, failureRate: 0 })
  })

  it("counts successes and failures", () => {
    const metrics = health()
    metrics.onFailure(0)
    for (let i = 0; i < 4; i++) metrics.onSuccess(0)
    expect(metrics.info(0)).toEqual({ throughput: 5, failures: 1, failureRate: 0.2 })
  })

  it("respects the window (GetHealthInfo_EnsureWindowRespected)", () => {
    const metrics = health()
    const seen: Array<{ throughput: number; failureRate: number; failures: number }> = []
    let now = 0
    for (let i = 0; i < 5; i++) {
      if (i < 2) metrics.onFailure(now)
      else metrics.onSuccess(now)
      metrics.onSuccess(now)
      now += 2000
      seen.push(metrics.info(now))
    }
    now += 2000
    seen.push(metrics.info(now))
    expect(seen[0]).toEqual({ throughput: 2, failureRate: 0.5, failures: 1 })
    expect(seen[1]).toEqual({ throughput: 4, failureRate: 0.5, failures: 2 })
    expect(seen[3]).toEqual({ throughput: 8, failureRate: 0.25, failures: 2 })
    expect(seen[4]).toEqual({ throughput: 8, failureRate: 0.125, failures: 1 })
    expect(seen[5]).toEqual({ throughput: 6, failureRate: 0, failures: 0 })
  })

  it("keeps at most the sampling duration (GetHealthInfo_EnsureWindowCapacityRespected)", () => {
    const metrics = health()
    for (let i = 0; i < 10; i++) metrics.onSuccess(i * 1000)
    expect(metrics.info(10_000).throughput).toBe(9)
    expect(metrics.info(11_000).throughput).toBe(8)
  })

  it("forgets everything once the sampling duration has passed, to the millisecond", () => {
    const metrics = health()
    metrics.onSuccess(0)
    metrics.onSuccess(0)
    expect(metrics.info(9_999).throughput).toBe(2)
    const exact = health()
    exact.onSuccess(0)
    exact.onSuccess(0)
    expect(exact.info(10_000).throughput).toBe(0)
  })

  it("reset empties it", () => {
    const metrics = health()
    metrics.onSuccess(0)
    metrics.reset()
    expect(metrics.info(0).throughput).toBe(0)
  })
})

// Polly's AdvancedCircuitBehaviorTests.OnActionFailure_WhenClosed_EnsureCorrectBehavior, as sample sequences.
describe("sampling trip decision", () => {
  const cases: ReadonlyArray<readonly [number, number, number, number, boolean]> = [
    // samples, of which failures, minimumThroughput, failureRatio, breaks on the last failure
    [10, 1, 10, 0.1, true],
    [10, 2, 10, 0.1, true],
    [11, 3, 10, 0.1, true],
    [9, 1, 10, 0.1, false],
    [10, 1, 10, 0.2, false],
    [4, 2, 4, 0.5, true],
    [100, 10, 100, 0.1, true],
    [100, 9, 100, 0.1, false],
    [99, 99, 100, 0.1, false]
  ]
  for (const [samples, failures, minimumThroughput, failureRatio, breaks] of cases) {
    it(`${failures} failures in ${samples} samples, minimum ${minimumThroughput}, ratio ${failureRatio}: ${breaks ? "breaks" : "stays closed"}`, () => {
      const machine = new CircuitBreakerMachine(sampling({ minimumThroughput, failureRatio }))
      // Failures first, while the throughput is still below the minimum; the last one decides.
      for (let i = 0; i < failures - 1; i++) expect(attempt(machine, 0, failure)).toBeUndefined()
      for (let i = 0; i < samples - failures; i++) expect(attempt(machine, 0, success)).toBeUndefined()
      const last = attempt(machine, 0, failure)
      expect(last?.to).toBe(breaks ? "Open" : undefined)
      expect(machine.snapshot(0)._tag).toBe(breaks ? "Open" : "Closed")
    })
  }

  it("decides on failures only: a success that lifts the throughput to the minimum does not break", () => {
    const machine = new CircuitBreakerMachine(sampling({ minimumThroughput: 4, failureRatio: 0.5 }))
    attempt(machine, 0, failure)
    attempt(machine, 0, failure)
    attempt(machine, 0, failure)
    expect(attempt(machine, 0, success)).toBeUndefined()
    expect(machine.snapshot(0)._tag).toBe("Closed")
    expect(attempt(machine, 0, failure)?.to).toBe("Open")
  })

  it("ignored outcomes are not samples", () => {
    const machine = new CircuitBreakerMachine(sampling({ minimumThroughput: 2, failureRatio: 1 }))
    attempt(machine, 0, failure)
    for (let i = 0; i < 100; i++) attempt(machine, 0, ignored)
    expect(attempt(machine, 0, failure)?.to).toBe("Open")
  })

  it("samples older than the sampling duration no longer count", () => {
    const machine = new CircuitBreakerMachine(sampling({ minimumThroughput: 2, failureRatio: 0.5 }))
    attempt(machine, 0, failure)
    expect(attempt(machine, 30_000, failure)).toBeUndefined()
    expect(attempt(machine, 30_001, failure)?.to).toBe("Open")
  })
})

describe("CircuitBreakerMachine", () => {
  it("open: rejects with the time left, then the first caller after the break is the probe", () => {
    const machine = opened(0)
    expect(machine.tryAcquire(1)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 4_999 })
    expect(machine.tryAcquire(4_999)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 1 })
    const probe = machine.tryAcquire(5_000)
    expect(probe).toMatchObject({
      _tag: "Permitted",
      permit: { probe: true },
      transition: { from: "Open", to: "HalfOpen" }
    })
  })

  it("half-open: a second caller is rejected with the time until the probe's slot is re-armed", () => {
    const machine = opened(0)
    permitted(machine.tryAcquire(5_000))
    expect(machine.tryAcquire(6_000)).toEqual({ _tag: "Rejected", state: "HalfOpen", retryAfterMillis: 4_000 })
    expect(machine.snapshot(6_000)).toEqual({ _tag: "HalfOpen", probing: true, retryAfterMillis: 4_000 })
  })

  it("a probe's success closes the circuit and forgets the past", () => {
    const machine = opened(0)
    const probe = permitted(machine.tryAcquire(5_000))
    expect(machine.report(5_100, probe, success)).toEqual({ from: "HalfOpen", to: "Closed", manual: false })
    expect(machine.tryAcquire(5_100)).toMatchObject({ _tag: "Permitted", permit: { probe: false } })
  })

  it("a probe's failure opens the circuit for another break from that moment", () => {
    const machine = opened(0)
    const probe = permitted(machine.tryAcquire(5_000))
    expect(machine.report(5_500, probe, failure)).toEqual({
      from: "HalfOpen",
      to: "Open",
      breakMillis: 5_000,
      manual: false
    })
    expect(machine.tryAcquire(5_501)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 4_999 })
  })

  it("a probe that never reports is re-armed after the break duration: the next caller becomes the probe", () => {
    const machine = opened(0)
    const hung = permitted(machine.tryAcquire(5_000))
    expect(machine.tryAcquire(9_999)._tag).toBe("Rejected")
    const next = machine.tryAcquire(10_000)
    expect(next).toMatchObject({ _tag: "Permitted", permit: { probe: true }, transition: undefined })
    // The hung probe's late verdict no longer decides anything.
    expect(machine.report(10_001, hung, success)).toBeUndefined()
    expect(machine.snapshot(10_001)._tag).toBe("HalfOpen")
    expect(machine.report(10_002, permitted(next), success)?.to).toBe("Closed")
  })

  it("a probe with a time limit keeps its slot through that limit and a break past it, however slow to be sent", () => {
    const machine = opened(0)
    // Admitted at 5 s under a 10 s time limit: the slot is its own until 5 + 10 + 5 = 20 s.
    const slow = permitted(machine.tryAcquire(5_000, 10_000))
    expect(machine.tryAcquire(10_000)).toEqual({ _tag: "Rejected", state: "HalfOpen", retryAfterMillis: 10_000 })
    expect(machine.tryAcquire(19_999, 10_000)).toEqual({ _tag: "Rejected", state: "HalfOpen", retryAfterMillis: 1 })
    expect(machine.snapshot(15_000)).toEqual({ _tag: "HalfOpen", probing: true, retryAfterMillis: 5_000 })
    // It reports within its limit (it was only slow): its verdict decides.
    expect(machine.report(14_000, slow, success)?.to).toBe("Closed")
  })

  it("a probe that outlives its own time limit by a break gives its slot up", () => {
    const machine = opened(0)
    const hung = permitted(machine.tryAcquire(5_000, 10_000))
    const next = machine.tryAcquire(20_000, 10_000)
    expect(next).toMatchObject({ _tag: "Permitted", permit: { probe: true }, transition: undefined })
    expect(machine.report(20_001, hung, success)).toBeUndefined()
    expect(machine.report(20_002, permitted(next), success)?.to).toBe("Closed")
  })

  it("a probe with no time limit (none given, infinite, or not positive) is re-armed a break after its admission", () => {
    for (const limit of [undefined, Number.POSITIVE_INFINITY, 0, Number.NaN]) {
      const machine = opened(0)
      permitted(machine.tryAcquire(5_000, limit))
      expect(machine.tryAcquire(9_999)._tag).toBe("Rejected")
      expect(machine.tryAcquire(10_000)).toMatchObject({ _tag: "Permitted", permit: { probe: true } })
    }
  })

  it("an ignored probe frees the slot at once", () => {
    const machine = opened(0)
    const probe = permitted(machine.tryAcquire(5_000))
    expect(machine.report(5_001, probe, ignored)).toBeUndefined()
    expect(machine.snapshot(5_001)).toEqual({ _tag: "HalfOpen", probing: false, retryAfterMillis: 0 })
    expect(machine.tryAcquire(5_002)).toMatchObject({ _tag: "Permitted", permit: { probe: true } })
    // A second report of the ignored probe cannot close the circuit.
    expect(machine.report(5_003, probe, success)).toBeUndefined()
  })

  it("outcomes of attempts admitted before the break neither extend it nor end it", () => {
    const machine = new CircuitBreakerMachine(consecutive(1))
    const early = permitted(machine.tryAcquire(0))
    const late = permitted(machine.tryAcquire(0))
    machine.report(0, early, failure)
    expect(machine.report(3_000, late, failure)).toBeUndefined()
    expect(machine.tryAcquire(3_000)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 2_000 })
    expect(machine.tryAcquire(5_000)).toMatchObject({ _tag: "Permitted", permit: { probe: true } })
  })

  it("a late success from before the break does not close a half-open circuit; only the probe does", () => {
    const machine = new CircuitBreakerMachine(consecutive(1))
    const early = permitted(machine.tryAcquire(0))
    attempt(machine, 0, failure)
    permitted(machine.tryAcquire(5_000))
    expect(machine.report(5_001, early, success)).toBeUndefined()
    expect(machine.snapshot(5_001)._tag).toBe("HalfOpen")
  })

  it("a Retry-After hint on the opening failure lengthens the break, up to the cap; it never shortens it", () => {
    const settings = consecutive(1, { maxBreakDurationMillis: 30_000 })
    const cases: ReadonlyArray<readonly [number | undefined, number]> = [
      [undefined, 5_000],
      [1_000, 5_000],
      [12_000, 12_000],
      [30_000, 30_000],
      [120_000, 30_000]
    ]
    for (const [retryAfterMillis, expected] of cases) {
      const machine = new CircuitBreakerMachine(settings)
      expect(attempt(machine, 0, { _tag: "Failure", retryAfterMillis })).toMatchObject({ breakMillis: expected })
      expect(machine.tryAcquire(expected - 1)._tag).toBe("Rejected")
      expect(machine.tryAcquire(expected)._tag).toBe("Permitted")
    }
  })

  it("the hint also lengthens the break a failed probe opens", () => {
    const machine = opened(0)
    const probe = permitted(machine.tryAcquire(5_000))
    expect(machine.report(5_000, probe, { _tag: "Failure", retryAfterMillis: 20_000 })).toMatchObject({
      breakMillis: 20_000
    })
  })

  it("consecutive: breaks on the n-th failure in a row; a success resets the count, an ignored outcome does not", () => {
    const machine = new CircuitBreakerMachine(consecutive(3))
    attempt(machine, 0, failure)
    attempt(machine, 0, failure)
    attempt(machine, 0, success)
    attempt(machine, 0, failure)
    attempt(machine, 0, ignored)
    expect(attempt(machine, 0, failure)).toBeUndefined()
    expect(attempt(machine, 0, failure)).toEqual({ from: "Closed", to: "Open", breakMillis: 5_000, manual: false })
  })

  it("consecutive: the count starts again after the circuit closes", () => {
    const machine = new CircuitBreakerMachine(consecutive(2))
    attempt(machine, 0, failure)
    attempt(machine, 0, failure)
    machine.report(5_000, permitted(machine.tryAcquire(5_000)), success)
    expect(attempt(machine, 5_000, failure)).toBeUndefined()
    expect(attempt(machine, 5_000, failure)?.to).toBe("Open")
  })

  it("isolate holds it open whatever the time; close closes it from any state", () => {
    const machine = new CircuitBreakerMachine(consecutive(1))
    expect(machine.isolate()).toEqual({ from: "Closed", to: "Isolated", manual: true })
    expect(machine.isolate()).toBeUndefined()
    expect(machine.tryAcquire(10 ** 12)).toEqual({
      _tag: "Rejected",
      state: "Isolated",
      retryAfterMillis: Number.POSITIVE_INFINITY
    })
    expect(machine.close()).toEqual({ from: "Isolated", to: "Closed", manual: true })
    expect(machine.close()).toBeUndefined()
    expect(machine.tryAcquire(0)._tag).toBe("Permitted")
  })

  it("attempts admitted before isolation cannot reopen or close it", () => {
    const machine = new CircuitBreakerMachine(consecutive(1))
    const before = permitted(machine.tryAcquire(0))
    machine.isolate()
    expect(machine.report(1, before, failure)).toBeUndefined()
    expect(machine.snapshot(1)._tag).toBe("Isolated")
  })

  it("close on a closed circuit forgets its samples", () => {
    const machine = new CircuitBreakerMachine(consecutive(2))
    attempt(machine, 0, failure)
    machine.close()
    expect(attempt(machine, 0, failure)).toBeUndefined()
  })

  it("isolating an open or half-open circuit, then closing it", () => {
    const open = opened(0)
    expect(open.isolate()).toEqual({ from: "Open", to: "Isolated", manual: true })
    const halfOpen = opened(0)
    const probe = permitted(halfOpen.tryAcquire(5_000))
    expect(halfOpen.isolate()).toEqual({ from: "HalfOpen", to: "Isolated", manual: true })
    expect(halfOpen.report(5_001, probe, success)).toBeUndefined()
    expect(halfOpen.close()).toEqual({ from: "Isolated", to: "Closed", manual: true })
  })

  it("forceOpen opens a closed circuit for the break given, forgets its samples, and probes on its own after it", () => {
    const machine = new CircuitBreakerMachine(consecutive(2, { breakDurationMillis: 1_000 }))
    attempt(machine, 0, failure)
    expect(machine.forceOpen(100, 8_000)).toEqual({ from: "Closed", to: "Open", breakMillis: 8_000, manual: false })
    expect(machine.tryAcquire(101)).toEqual({ _tag: "Rejected", state: "Open", retryAfterMillis: 7_999 })
    const probe = machine.tryAcquire(8_100)
    expect(probe).toMatchObject({
      _tag: "Permitted",
      permit: { probe: true },
      transition: { from: "Open", to: "HalfOpen" }
    })
    expect(machine.report(8_200, permitted(probe), success)).toEqual({ from: "HalfOpen", to: "Closed", manual: false })
    // The failure before the forced opening was forgotten: one more does not break.
    expect(attempt(machine, 8_300, failure)).toBeUndefined()
  })

  it("forceOpen holds the break within breakDuration and maxBreakDuration, as a hint is", () => {
    const settings = consecutive(1, { breakDurationMillis: 1_000, maxBreakDurationMillis: 10_000 })
    const short = new CircuitBreakerMachine(settings)
    expect(short.forceOpen(0, 10)).toMatchObject({ to: "Open", breakMillis: 1_000 })
    const long = new CircuitBreakerMachine(settings)
    expect(long.forceOpen(0, 60_000)).toMatchObject({ to: "Open", breakMillis: 10_000 })
    for (const bad of [Number.NaN, -5, 0]) {
      expect(new CircuitBreakerMachine(settings).forceOpen(0, bad)).toMatchObject({ to: "Open", breakMillis: 1_000 })
    }
    expect(new CircuitBreakerMachine(settings).forceOpen(0, Number.POSITIVE_INFINITY)).toMatchObject({
      breakMillis: 10_000
    })
  })

  it("forceOpen on a half-open circuit opens it and fences the probe in flight", () => {
    const machine = opened(0)
    const probe = permitted(machine.tryAcquire(5_000))
    expect(machine.forceOpen(5_100, 5_000)).toEqual({ from: "HalfOpen", to: "Open", breakMillis: 5_000, manual: false })
    // The probe's late success neither closes the circuit nor shortens the break.
    expect(machine.report(5_200, probe, success)).toBeUndefined()
    expect(machine.snapshot(5_200)).toEqual({ _tag: "Open", retryAfterMillis: 4_900 })
  })

  it("forceOpen leaves an open circuit its own break and an isolated one isolated", () => {
    const open = opened(0)
    expect(open.forceOpen(1_000, 30_000)).toBeUndefined()
    expect(open.snapshot(1_000)).toEqual({ _tag: "Open", retryAfterMillis: 4_000 })
    const isolated = new CircuitBreakerMachine(consecutive(1))
    isolated.isolate()
    expect(isolated.forceOpen(0, 5_000)).toBeUndefined()
    expect(isolated.snapshot(10 ** 9)._tag).toBe("Isolated")
  })

  it("reads Open with nothing left once the break is over, until the next attempt half-opens it", () => {
    const machine = opened(0)
    expect(machine.snapshot(7_000)).toEqual({ _tag: "Open", retryAfterMillis: 0 })
  })

  it("is pristine only when closed with no samples in the window", () => {
    const machine = new CircuitBreakerMachine(sampling())
    expect(machine.isPristine(0)).toBe(true)
    attempt(machine, 0, success)
    expect(machine.isPristine(29_999)).toBe(false)
    expect(machine.isPristine(30_000)).toBe(true)
    expect(opened(0).isPristine(10 ** 9)).toBe(false)
  })
})

describe("checkSettings (Polly's ranges)", () => {
  const cases: ReadonlyArray<readonly [string, BreakerSettings, string | undefined]> = [
    ["defaults", breakerDefaults, undefined],
    ["failureRatio 0", sampling({ failureRatio: 0 }), "failureRatio"],
    ["failureRatio 1", sampling({ failureRatio: 1 }), undefined],
    ["failureRatio 1.1", sampling({ failureRatio: 1.1 }), "failureRatio"],
    ["minimumThroughput 1", sampling({ minimumThroughput: 1 }), "minimumThroughput"],
    ["minimumThroughput 2", sampling({ minimumThroughput: 2 }), undefined],
    ["minimumThroughput 2.5", sampling({ minimumThroughput: 2.5 }), "minimumThroughput"],
    ["samplingDuration 499 ms", sampling({ samplingDurationMillis: 499 }), "samplingDuration"],
    ["samplingDuration 500 ms", sampling({ samplingDurationMillis: 500 }), undefined],
    ["samplingDuration over a day", sampling({ samplingDurationMillis: 86_400_001 }), "samplingDuration"],
    ["0 consecutive failures", consecutive(0), "failures"],
    ["1.5 consecutive failures", consecutive(1.5), "failures"],
    [
      "breakDuration 499 ms",
      consecutive(1, { breakDurationMillis: 499, maxBreakDurationMillis: 30_000 }),
      "breakDuration"
    ],
    ["maxBreakDuration below breakDuration", consecutive(1, { maxBreakDurationMillis: 4_999 }), "maxBreakDuration"],
    ["maxBreakDuration equal to breakDuration", consecutive(1, { maxBreakDurationMillis: 5_000 }), undefined],
    [
      "infinite maxBreakDuration",
      consecutive(1, { maxBreakDurationMillis: Number.POSITIVE_INFINITY }),
      "maxBreakDuration"
    ]
  ]
  for (const [label, settings, option] of cases) {
    it(`${label}: ${option === undefined ? "valid" : `names "${option}"`}`, () => {
      expect(checkSettings(settings)?.option).toBe(option)
    })
  }
})

describe("resolveOptions: breakDuration and maxBreakDuration as written", () => {
  /** A duration type of a line's own, as a message shows it (Effect's `Duration` reads "1m"). */
  class Minutes {
    constructor(readonly minutes: number) {}
  }
  const units: Readonly<Record<string, number>> = { second: 1_000, seconds: 1_000, minute: 60_000, minutes: 60_000 }
  const codec: Settings.DurationCodec<number> = {
    decode: (input) => {
      if (typeof input === "number") return input
      if (input instanceof Minutes) return input.minutes * 60_000
      const words = typeof input === "string" ? /^(\d+) (\w+)$/.exec(input) : null
      const unit = words === null ? undefined : units[words[2]!]
      return words === null || unit === undefined ? undefined : Number(words[1]) * unit
    },
    infinity: Number.POSITIVE_INFINITY,
    toMillis: (millis) => millis,
    describe: (value) => (value instanceof Minutes ? `${value.minutes}m` : undefined)
  }
  const resolved = (input: unknown) => {
    const checked = resolveOptions(input, codec)
    if (checked._tag !== "Valid") throw new Error(Settings.invalidMessage(checked.problem))
    return checked.value
  }
  const problem = (input: unknown): Settings.InvalidSetting => {
    const checked = resolveOptions(input, codec)
    if (checked._tag === "Valid") throw new Error(`valid: ${JSON.stringify(checked.value)}`)
    return checked.problem
  }

  it("maxBreakDuration unset: the larger of 30 s and breakDuration, so that a long break alone is valid", () => {
    expect(resolved({})).toMatchObject({ breakDurationMillis: 5_000, maxBreakDurationMillis: 30_000 })
    expect(resolved({ breakDuration: "10 seconds" })).toMatchObject({ maxBreakDurationMillis: 30_000 })
    expect(resolved({ breakDuration: "1 minute" })).toMatchObject({
      breakDurationMillis: 60_000,
      maxBreakDurationMillis: 60_000
    })
    expect(resolved({ breakDuration: new Minutes(2) })).toMatchObject({ maxBreakDurationMillis: 120_000 })
  })

  it("both set and in conflict: the message names both options and both values as given", () => {
    const both = problem({ breakDuration: "1 minute", maxBreakDuration: "30 seconds" })
    expect(both).toEqual({
      option: "circuitBreaker.maxBreakDuration",
      reason: 'must be from circuitBreaker.breakDuration ("1 minute") to 1 day',
      value: "30 seconds"
    })
    expect(Settings.invalidMessage(both)).toBe(
      'Invalid retry policy option "circuitBreaker.maxBreakDuration": must be from circuitBreaker.breakDuration ("1 minute") to 1 day (got "30 seconds")'
    )
    // The line's own duration type, shown as the line shows it.
    expect(problem({ breakDuration: new Minutes(2), maxBreakDuration: new Minutes(1) }).reason).toBe(
      "must be from circuitBreaker.breakDuration (2m) to 1 day"
    )
  })

  it("maxBreakDuration alone, below the default break: the message says the break is the default", () => {
    expect(problem({ maxBreakDuration: "1 second" })).toEqual({
      option: "circuitBreaker.maxBreakDuration",
      reason: "must be from circuitBreaker.breakDuration (its default, 5 seconds) to 1 day",
      value: "1 second"
    })
  })

  it("a break over a day is named as the break, not as the cap it raised", () => {
    expect(problem({ breakDuration: "2000 minutes" })).toMatchObject({
      option: "circuitBreaker.breakDuration",
      value: "2000 minutes"
    })
  })

  it("a cap equal to the break is valid; a cap over a day is still refused, naming the break's range", () => {
    expect(resolved({ breakDuration: "1 minute", maxBreakDuration: "1 minute" })).toMatchObject({
      maxBreakDurationMillis: 60_000
    })
    expect(problem({ maxBreakDuration: "2000 minutes" })).toMatchObject({
      option: "circuitBreaker.maxBreakDuration",
      value: "2000 minutes"
    })
  })
})

describe("CircuitBreakerMachine: when a circuit may be forgotten", () => {
  const hour = 60 * 60 * 1000

  it("a fresh circuit, or one whose samples all expired, at once", () => {
    const machine = new CircuitBreakerMachine(sampling({ samplingDurationMillis: 10_000 }))
    expect(machine.isIdle(0, 0)).toBe(true)
    attempt(machine, 0, failure)
    expect(machine.isIdle(1, 0)).toBe(false)
    expect(machine.isIdle(10_000, 0)).toBe(true)
  })

  it("a consecutive streak after an idle hour: the streak is forgotten", () => {
    const machine = new CircuitBreakerMachine(consecutive(3))
    attempt(machine, 0, failure)
    attempt(machine, 10, failure)
    expect(machine.isIdle(10 + hour - 1, 10)).toBe(false)
    expect(machine.isIdle(10 + hour, 10)).toBe(true)
    expect(machine.isIdle(2 * hour, 0, 2 * hour)).toBe(true) // a shorter idle time when asked
  })

  it("an open circuit an idle hour after its break ended, not before", () => {
    const machine = opened(0, consecutive(1, { breakDurationMillis: 5000, maxBreakDurationMillis: 30_000 }))
    expect(machine.isIdle(hour, 0)).toBe(false) // the break ended at 5 s: 5 s short of an idle hour
    expect(machine.isIdle(5000 + hour, 0)).toBe(true)
    // A break lengthened by Retry-After counts to its end.
    const long = new CircuitBreakerMachine(
      consecutive(1, { breakDurationMillis: 5000, maxBreakDurationMillis: 30_000 })
    )
    long.report(0, permitted(long.tryAcquire(0)), { _tag: "Failure", retryAfterMillis: 20_000 })
    expect(long.isIdle(5000 + hour, 0)).toBe(false)
    expect(long.isIdle(20_000 + hour, 0)).toBe(true)
  })

  it("a half-open circuit an idle hour after its probe's slot ends", () => {
    const machine = opened(0, consecutive(1, { breakDurationMillis: 5000, maxBreakDurationMillis: 5000 }))
    permitted(machine.tryAcquire(5000)) // the probe, its slot held until 10 s
    expect(machine.snapshot(5000)._tag).toBe("HalfOpen")
    expect(machine.isIdle(5000 + hour, 5000)).toBe(false)
    expect(machine.isIdle(10_000 + hour, 5000)).toBe(true)
  })

  it("an isolated circuit never, and it is what a table must not evict", () => {
    const machine = new CircuitBreakerMachine(consecutive(1))
    machine.isolate()
    expect(machine.isIsolated()).toBe(true)
    expect(machine.isIdle(100 * hour, 0)).toBe(false)
    machine.close()
    expect(machine.isIsolated()).toBe(false)
    expect(machine.isIdle(100 * hour, 0)).toBe(true)
  })
})
