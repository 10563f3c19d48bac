/**
 * The circuit breaker of one origin, as a plain state machine: no Effect, time passed in as
 * `nowMillis` (a monotonic clock's milliseconds, so that a stepped wall clock changes no
 * decision). Both libraries' `CircuitBreaker` services wrap it.
 *
 * Semantics are Polly v8's (`CircuitStateController`, `AdvancedCircuitBehavior`,
 * `RollingHealthMetrics`), with three deliberate differences:
 *
 * - Every permit carries the generation it was issued in, and only outcomes of the current
 *   generation count (as Effect 4's `CircuitBreakerStore` fences them). Polly counts a late
 *   outcome of a call admitted before the break into a window it wipes on closing anyway, and
 *   lets any late outcome close or reopen a half-open circuit; here only the probe decides.
 * - The half-open probe is re-armed: a probe that has not reported `breakDuration` after its
 *   own time limit passed (after it was admitted, for a probe with no time limit) loses its slot
 *   to the next caller, so a hung probe cannot wedge the circuit, and a probe that is slow to be
 *   sent but still within its time limit keeps its slot.
 * - A `retryAfterMillis` hint on the failure that opens the circuit lengthens that break, up to
 *   `maxBreakDurationMillis`.
 *
 * @example
 * ```ts
 * import { CircuitBreaker } from "@effect-http-resilience/core"
 *
 * const problem: CircuitBreaker.InvalidSetting | undefined = CircuitBreaker.checkSettings({
 *   ...CircuitBreaker.breakerDefaults,
 *   breakDurationMillis: 0
 * })
 * ```
 *
 * @since 0.1.0
 */
import { idleTimeToLiveMillis } from "./Origin.js"
import * as Settings from "./Settings.js"

/**
 * A bad setting: which one (relative name), why, and the value given.
 *
 * @since 0.1.0
 * @category models
 */
export type InvalidSetting = Settings.InvalidSetting

/**
 * The four states of a circuit; `Isolated` is held open by hand until closed.
 *
 * @since 0.1.0
 * @category models
 */
export type StateTag = "Closed" | "Open" | "HalfOpen" | "Isolated"

/**
 * Polly's advanced (sampling) breaker: break when the failure ratio in a rolling window reaches `failureRatio` over at least `minimumThroughput` samples.
 *
 * @since 0.1.0
 * @category models
 */
export interface SamplingPolicy {
  readonly _tag: "Sampling"
  /** Break when failures / samples in the window reach this; (0, 1]. */
  readonly failureRatio: number
  /** ... and the window holds at least this many samples; a whole number of at least 2. */
  readonly minimumThroughput: number
  /** The window; from 0.5 s to 1 day, kept in 10 sub-windows. */
  readonly samplingDurationMillis: number
}

/**
 * Break after this many failures in a row, in order of completion.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConsecutivePolicy {
  readonly _tag: "Consecutive"
  readonly failures: number
}

/**
 * What decides, in the Closed state, that the circuit must break.
 *
 * @since 0.1.0
 * @category models
 */
export type TripPolicy = SamplingPolicy | ConsecutivePolicy

/**
 * resilience4j's slow-call trigger: a call that took longer than `durationMillis` is slow, and the
 * circuit breaks when slow calls reach `ratio` of the calls in a window of their own, over at least
 * `minimumThroughput` calls (its own minimum, apart from the trip policy's: resilience4j #1394).
 *
 * @since 0.1.0
 * @category models
 */
export interface SlowCallPolicy {
  /** A call slower than this is slow; from 1 millisecond to 1 day. */
  readonly durationMillis: number
  /** Break when slow calls / calls in the window reach this; (0, 1]. */
  readonly ratio: number
  /** ... and the window holds at least this many calls; a whole number of at least 1. */
  readonly minimumThroughput: number
  /** The window; from 0.5 s to 1 day, kept in 10 sub-windows. */
  readonly samplingDurationMillis: number
}

/**
 * cockatiel's `halfOpenSampling`: a half-open circuit lets `probes` calls through and closes once
 * `successes` of them succeeded; it reopens once that can no longer happen.
 *
 * @since 0.1.0
 * @category models
 */
export interface HalfOpenPolicy {
  /** Probes let through, in flight together at most; a whole number from 1 to 1000. */
  readonly probes: number
  /** Successful probes that close the circuit; a whole number from 1 to `probes`. */
  readonly successes: number
}

/**
 * A breaker's settings: its trip policy, how long a break lasts, and the cap on a break lengthened by a `Retry-After` hint.
 * `slowCalls` and `halfOpen` are left out when not set, so that the settings (and the key a store
 * and a fleet know a breaker by) stay what they were before these options existed.
 *
 * @since 0.1.0
 * @category models
 */
export interface BreakerSettings {
  readonly tripPolicy: TripPolicy
  /**
   * How long the circuit stays open, and how long past its own time limit (past its admission,
   * when it has none) a probe that has not reported keeps its slot; 0.5 s to 1 day.
   */
  readonly breakDurationMillis: number
  /**
   * Cap on a break lengthened by a `retryAfterMillis` hint; from breakDuration to 1 day.
   * {@link resolveOptions} defaults it to the larger of 30 s and breakDuration.
   */
  readonly maxBreakDurationMillis: number
  /** The slow-call trigger; none when absent. */
  readonly slowCalls?: SlowCallPolicy | undefined
  /** How a half-open circuit decides; one probe that must succeed when absent. */
  readonly halfOpen?: HalfOpenPolicy | undefined
}

/**
 * What an attempt says about the origin's health (Effect 4's `Outcome` vocabulary).
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Success" }
  | { readonly _tag: "Failure"; readonly retryAfterMillis?: number | undefined }
  | { readonly _tag: "Ignored" }

/**
 * The right to send one attempt: the generation it belongs to, and whether it is the half-open probe.
 *
 * @since 0.1.0
 * @category models
 */
export interface Permit {
  readonly generation: number
  readonly probe: boolean
  /** When it was admitted: a call's duration, for the slow-call trigger, runs from here. */
  readonly admittedAtMillis: number
}

/**
 * A change of state, as `tryAcquire`, `report`, `forceOpen`, `isolate` and `close` return it.
 *
 * @since 0.1.0
 * @category models
 */
export type Transition =
  | { readonly from: "Closed" | "HalfOpen"; readonly to: "Open"; readonly breakMillis: number; readonly manual: false }
  | { readonly from: "Open"; readonly to: "HalfOpen"; readonly manual: false }
  | { readonly from: "Open" | "HalfOpen" | "Isolated"; readonly to: "Closed"; readonly manual: boolean }
  | { readonly from: "Closed" | "Open" | "HalfOpen"; readonly to: "Isolated"; readonly manual: true }

/**
 * The answer to `tryAcquire`: a permit (and the transition it caused, if any) or a rejection with the time left.
 *
 * @since 0.1.0
 * @category models
 */
export type Admission =
  | { readonly _tag: "Permitted"; readonly permit: Permit; readonly transition: Transition | undefined }
  | {
      readonly _tag: "Rejected"
      readonly state: "Open" | "HalfOpen" | "Isolated"
      /** Until the circuit half-opens (Open), the probe's slot is re-armed (HalfOpen), or infinity (Isolated). */
      readonly retryAfterMillis: number
    }

/**
 * The state of a circuit as read at one instant.
 *
 * @since 0.1.0
 * @category models
 */
export type Snapshot =
  | { readonly _tag: "Closed" }
  | { readonly _tag: "Open"; readonly retryAfterMillis: number }
  | { readonly _tag: "HalfOpen"; readonly probing: boolean; readonly retryAfterMillis: number }
  | { readonly _tag: "Isolated" }

const secondMillis = 1000
const dayMillis = 24 * 60 * 60 * secondMillis

/**
 * Polly's defaults: failure ratio 0.1 over at least 100 samples in 30 seconds.
 *
 * @since 0.1.0
 * @category defaults
 */
export const samplingDefaults: SamplingPolicy = {
  _tag: "Sampling",
  failureRatio: 0.1,
  minimumThroughput: 100,
  samplingDurationMillis: 30 * secondMillis
}
/**
 * Five failures in a row.
 *
 * @since 0.1.0
 * @category defaults
 */
export const consecutiveDefaults: ConsecutivePolicy = { _tag: "Consecutive", failures: 5 }
// The slow-call trigger's defaults, for the options left out: slower than 5 seconds (half the
// default attempt time limit, so that a slow call is seen before the limit cuts it), half of at
// least 100 calls in 30 seconds.
const slowCallDefaults: SlowCallPolicy = {
  durationMillis: 5 * secondMillis,
  ratio: 0.5,
  minimumThroughput: 100,
  samplingDurationMillis: 30 * secondMillis
}
/**
 * One probe, which must succeed: the half-open circuit as it is without the option.
 *
 * @since 0.1.0
 * @category defaults
 */
export const halfOpenDefaults: HalfOpenPolicy = { probes: 1, successes: 1 }
/**
 * Polly's sampling policy, breaks of 5 seconds, lengthened by a `Retry-After` hint up to 30 seconds
 * (when options set only a longer `breakDuration`, {@link resolveOptions} raises that cap to it).
 *
 * @since 0.1.0
 * @category defaults
 */
export const breakerDefaults: BreakerSettings = {
  tripPolicy: samplingDefaults,
  breakDurationMillis: 5 * secondMillis,
  maxBreakDurationMillis: 30 * secondMillis
}

const isIn = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isFinite(value) && value >= min && value <= max

/**
 * The first bad setting (Polly's ranges), or `undefined`. Option names are relative; durations are checked in milliseconds.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkSettings = (settings: BreakerSettings): InvalidSetting | undefined => {
  const policy = settings.tripPolicy
  if (policy._tag === "Sampling") {
    const problem = checkWindow("failureRatio", policy.failureRatio, policy.minimumThroughput, 2, policy)
    if (problem !== undefined) return problem
  } else if (!Number.isSafeInteger(policy.failures) || policy.failures < 1) {
    return { option: "failures", reason: "must be a whole number of at least 1", value: policy.failures }
  }
  if (!isIn(settings.breakDurationMillis, 500, dayMillis)) {
    return { option: "breakDuration", reason: "must be from 500 millis to 1 day", value: settings.breakDurationMillis }
  }
  if (!isIn(settings.maxBreakDurationMillis, settings.breakDurationMillis, dayMillis)) {
    return {
      option: "maxBreakDuration",
      reason: "must be from breakDuration to 1 day",
      value: settings.maxBreakDurationMillis
    }
  }
  return within("slowCalls", checkSlowCalls(settings.slowCalls)) ?? within("halfOpen", checkHalfOpen(settings.halfOpen))
}

const within = (option: string, problem: InvalidSetting | undefined): InvalidSetting | undefined =>
  problem === undefined ? undefined : { ...problem, option: `${option}.${problem.option}` }

const checkSlowCalls = (slow: SlowCallPolicy | undefined): InvalidSetting | undefined => {
  if (slow === undefined) return undefined
  if (!isIn(slow.durationMillis, 1, dayMillis)) {
    return { option: "duration", reason: "must be from 1 millis to 1 day", value: slow.durationMillis }
  }
  return checkWindow("ratio", slow.ratio, slow.minimumThroughput, 1, slow)
}

// A rolling window's ratio, minimum (at least `least`) and duration: the sampling policy's and
// the slow-call trigger's.
const checkWindow = (
  ratioOption: string,
  ratio: number,
  minimumThroughput: number,
  least: number,
  window: { readonly samplingDurationMillis: number }
): InvalidSetting | undefined => {
  if (!isIn(ratio, Number.MIN_VALUE, 1)) {
    return { option: ratioOption, reason: "must be above 0 and at most 1", value: ratio }
  }
  if (!Number.isSafeInteger(minimumThroughput) || minimumThroughput < least) {
    return {
      option: "minimumThroughput",
      reason: `must be a whole number of at least ${least}`,
      value: minimumThroughput
    }
  }
  if (!isIn(window.samplingDurationMillis, 500, dayMillis)) {
    return {
      option: "samplingDuration",
      reason: "must be from 500 millis to 1 day",
      value: window.samplingDurationMillis
    }
  }
  return undefined
}

const maxProbes = 1000

const checkHalfOpen = (halfOpen: HalfOpenPolicy | undefined): InvalidSetting | undefined => {
  if (halfOpen === undefined) return undefined
  if (!Number.isSafeInteger(halfOpen.probes) || halfOpen.probes < 1 || halfOpen.probes > maxProbes) {
    return { option: "probes", reason: `must be a whole number from 1 to ${maxProbes}`, value: halfOpen.probes }
  }
  if (!Number.isSafeInteger(halfOpen.successes) || halfOpen.successes < 1 || halfOpen.successes > halfOpen.probes) {
    return {
      option: "successes",
      reason: "must be a whole number from 1 to halfOpen.probes",
      value: halfOpen.successes
    }
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Health: what decides, in the Closed state, that the circuit must break.

interface Health {
  readonly onSuccess: (nowMillis: number) => void
  /** Records the failure; `true` when the circuit must break. */
  readonly onFailure: (nowMillis: number) => boolean
  readonly reset: () => void
  readonly isEmpty: (nowMillis: number) => boolean
}

interface HealthWindow {
  readonly startedAt: number
  successes: number
  failures: number
}

/**
 * Polly's `RollingHealthMetrics`, always 10 windows (its validation rules out the single-window case).
 *
 * @since 0.1.0
 * @category internals
 */
export class RollingHealth {
  private readonly windowMillis: number
  private windows: Array<HealthWindow> = []
  private current: HealthWindow | undefined

  constructor(private readonly policy: SamplingPolicy) {
    this.windowMillis = policy.samplingDurationMillis / 10
  }

  onSuccess(nowMillis: number): void {
    this.currentWindow(nowMillis).successes++
  }

  onFailure(nowMillis: number): boolean {
    this.currentWindow(nowMillis).failures++
    const { throughput, failureRate } = this.info(nowMillis)
    return throughput >= this.policy.minimumThroughput && failureRate >= this.policy.failureRatio
  }

  reset(): void {
    this.windows = []
    this.current = undefined
  }

  isEmpty(nowMillis: number): boolean {
    return this.info(nowMillis).throughput === 0
  }

  /** Polly's `HealthInfo`: samples in the window and the share that failed. */
  info(nowMillis: number): { readonly throughput: number; readonly failures: number; readonly failureRate: number } {
    this.currentWindow(nowMillis)
    let successes = 0
    let failures = 0
    for (const window of this.windows) {
      successes += window.successes
      failures += window.failures
    }
    const throughput = successes + failures
    return { throughput, failures, failureRate: throughput === 0 ? 0 : failures / throughput }
  }

  // A window starts with the first access at least one window-width after the previous one
  // started (not on a fixed grid), and is dropped once it started a whole sampling duration ago.
  private currentWindow(nowMillis: number): HealthWindow {
    let current = this.current
    if (current === undefined || nowMillis - current.startedAt >= this.windowMillis) {
      current = { startedAt: nowMillis, successes: 0, failures: 0 }
      this.current = current
      this.windows.push(current)
    }
    let expired = 0
    while (
      expired < this.windows.length &&
      nowMillis - this.windows[expired]!.startedAt >= this.policy.samplingDurationMillis
    ) {
      expired++
    }
    if (expired > 0) this.windows = this.windows.slice(expired)
    return current
  }
}

// Methods, not arrow fields, as the budgets': one health per origin, up to 10,000 of them.
class ConsecutiveHealth implements Health {
  private streak = 0
  constructor(private readonly policy: ConsecutivePolicy) {}
  onSuccess(): void {
    this.streak = 0
  }
  onFailure(): boolean {
    return ++this.streak >= this.policy.failures
  }
  reset(): void {
    this.streak = 0
  }
  isEmpty(): boolean {
    return this.streak === 0
  }
}

// ---------------------------------------------------------------------------------------------

/** A half-open probe in flight: the generation it was admitted in, and when its slot is re-armed. */
interface ProbeSlot {
  readonly generation: number
  readonly until: number
}

/**
 * The circuit of one origin. The settings must have passed {@link checkSettings}.
 *
 * @since 0.1.0
 * @category constructors
 */
export class CircuitBreakerMachine {
  private state: StateTag = "Closed"
  private generation = 0
  /** Open: when it may half-open. HalfOpen: the latest time a probe's slot is held until. */
  private blockedUntil = 0
  /** HalfOpen: the probes in flight (each its own generation, so that a re-armed one is fenced). */
  private probes: Array<ProbeSlot> | undefined
  private probeSuccesses = 0
  private probeFailures = 0
  private readonly health: Health
  /** The slow-call trigger's window: a slow call is its "failure". */
  private readonly slow: RollingHealth | undefined
  private readonly halfOpen: HalfOpenPolicy

  constructor(private readonly settings: BreakerSettings) {
    this.health =
      settings.tripPolicy._tag === "Sampling"
        ? new RollingHealth(settings.tripPolicy)
        : new ConsecutiveHealth(settings.tripPolicy)
    const slow = settings.slowCalls
    this.slow =
      slow === undefined
        ? undefined
        : new RollingHealth({
            _tag: "Sampling",
            failureRatio: slow.ratio,
            minimumThroughput: slow.minimumThroughput,
            samplingDurationMillis: slow.samplingDurationMillis
          })
    this.halfOpen = settings.halfOpen ?? halfOpenDefaults
  }

  /** The break a failure opens: `breakDuration`, lengthened by its hint up to the cap. */
  breakMillisFor(retryAfterMillis: number | undefined): number {
    const hint = retryAfterMillis !== undefined && retryAfterMillis > 0 ? retryAfterMillis : 0
    return Math.max(this.settings.breakDurationMillis, Math.min(hint, this.settings.maxBreakDurationMillis))
  }

  /**
   * Admits or rejects one attempt at `nowMillis`. `probeLimitMillis` is the attempt's own time
   * limit, if it has one (the time after which it is cut and reports): a probe then holds its
   * slot until it reports, or `breakDuration` past that limit; without one (or an infinite one),
   * `breakDuration` past its admission. A half-open circuit has `halfOpen.probes` slots in all.
   */
  tryAcquire(nowMillis: number, probeLimitMillis?: number): Admission {
    switch (this.state) {
      case "Closed":
        return {
          _tag: "Permitted",
          permit: { generation: this.generation, probe: false, admittedAtMillis: nowMillis },
          transition: undefined
        }
      case "Isolated":
        return { _tag: "Rejected", state: "Isolated", retryAfterMillis: Number.POSITIVE_INFINITY }
      case "Open": {
        if (nowMillis < this.blockedUntil) {
          return { _tag: "Rejected", state: "Open", retryAfterMillis: this.blockedUntil - nowMillis }
        }
        this.state = "HalfOpen"
        return this.startProbe(nowMillis, probeLimitMillis, { from: "Open", to: "HalfOpen", manual: false })
      }
      case "HalfOpen": {
        if (this.probesLeft() === 0) {
          // A slot whose probe outlived it is re-armed only when a caller needs it: until then
          // the late probe may still report, and decide.
          this.probes = this.liveProbes(nowMillis)
          if (this.probesLeft() === 0) {
            return { _tag: "Rejected", state: "HalfOpen", retryAfterMillis: this.earliestRearm() - nowMillis }
          }
        }
        return this.startProbe(nowMillis, probeLimitMillis, undefined)
      }
    }
  }

  /** Probes the half-open circuit may still let through. */
  private probesLeft(): number {
    return this.halfOpen.probes - (this.probes?.length ?? 0) - this.probeSuccesses - this.probeFailures
  }

  private liveProbes(nowMillis: number): Array<ProbeSlot> {
    return (this.probes ?? []).filter((slot) => nowMillis < slot.until)
  }

  private earliestRearm(): number {
    let earliest = Number.POSITIVE_INFINITY
    for (const slot of this.probes ?? []) earliest = Math.min(earliest, slot.until)
    return earliest
  }

  private startProbe(
    nowMillis: number,
    probeLimitMillis: number | undefined,
    transition: Transition | undefined
  ): Admission {
    // A new generation per probe fences the outcome of a probe whose slot was taken over.
    this.generation++
    // Measured from the end of the probe's own time limit: a probe admitted but slow to go out
    // (a busy event loop, a slow connect) keeps its slot, while one that outlives its limit by a
    // whole break (a hung probe, a permit never reported) gives its slot up.
    const limit =
      probeLimitMillis !== undefined && Number.isFinite(probeLimitMillis) && probeLimitMillis > 0 ? probeLimitMillis : 0
    const until = nowMillis + limit + this.settings.breakDurationMillis
    this.probes = [...(this.probes ?? []), { generation: this.generation, until }]
    this.blockedUntil = Math.max(this.blockedUntil, until)
    return {
      _tag: "Permitted",
      permit: { generation: this.generation, probe: true, admittedAtMillis: nowMillis },
      transition
    }
  }

  /** Applies an attempt's outcome; returns the transition it caused, if any. */
  report(nowMillis: number, permit: Permit, outcome: Outcome): Transition | undefined {
    if (this.state === "Closed") {
      return permit.generation === this.generation ? this.reportClosed(nowMillis, permit, outcome) : undefined
    }
    if (this.state !== "HalfOpen" || !permit.probe) return undefined
    const probes = this.probes ?? []
    if (!probes.some((slot) => slot.generation === permit.generation)) return undefined
    // Its slot is freed whatever the outcome: an ignored probe's goes to the next caller at once.
    this.probes = probes.filter((slot) => slot.generation !== permit.generation)
    switch (outcome._tag) {
      case "Ignored":
        return undefined
      case "Success":
        // A slow probe is no sign of health: it counts as a failed one.
        if (!this.isSlow(nowMillis, permit)) {
          return ++this.probeSuccesses >= this.halfOpen.successes ? this.toClosed(false) : undefined
        }
        return this.probeFailed(nowMillis, undefined)
      case "Failure":
        return this.probeFailed(nowMillis, outcome.retryAfterMillis)
    }
  }

  // Reopens once `successes` of the probes can no longer succeed.
  private probeFailed(nowMillis: number, retryAfterMillis: number | undefined): Transition | undefined {
    return ++this.probeFailures > this.halfOpen.probes - this.halfOpen.successes
      ? this.open(nowMillis, "HalfOpen", retryAfterMillis)
      : undefined
  }

  /** Slower than the slow-call trigger's duration; never when there is none. */
  private isSlow(nowMillis: number, permit: Permit): boolean {
    const slow = this.settings.slowCalls
    return slow !== undefined && nowMillis - permit.admittedAtMillis > slow.durationMillis
  }

  private reportClosed(nowMillis: number, permit: Permit, outcome: Outcome): Transition | undefined {
    if (outcome._tag === "Ignored") return undefined
    const retryAfterMillis = outcome._tag === "Failure" ? outcome.retryAfterMillis : undefined
    if (outcome._tag === "Failure" && this.health.onFailure(nowMillis)) {
      return this.open(nowMillis, "Closed", retryAfterMillis)
    }
    if (outcome._tag === "Success") this.health.onSuccess(nowMillis)
    const slow = this.slow
    if (slow === undefined) return undefined
    if (!this.isSlow(nowMillis, permit)) {
      slow.onSuccess(nowMillis)
      return undefined
    }
    return slow.onFailure(nowMillis) ? this.open(nowMillis, "Closed", retryAfterMillis) : undefined
  }

  // Forgets the samples and the probes: every change of state starts afresh.
  private forget(): void {
    this.health.reset()
    this.slow?.reset()
    this.probes = undefined
    this.probeSuccesses = 0
    this.probeFailures = 0
  }

  private open(nowMillis: number, from: "Closed" | "HalfOpen", retryAfterMillis: number | undefined): Transition {
    const breakMillis = this.breakMillisFor(retryAfterMillis)
    this.state = "Open"
    this.generation++
    this.blockedUntil = nowMillis + breakMillis
    this.forget()
    return { from, to: "Open", breakMillis, manual: false }
  }

  private toClosed(manual: boolean): Transition | undefined {
    this.forget()
    const from = this.state
    if (from === "Closed") return undefined
    this.state = "Closed"
    this.generation++
    this.blockedUntil = 0
    return { from, to: "Closed", manual }
  }

  /**
   * Opens the circuit for `breakMillis` (held within `breakDuration` and `maxBreakDuration`, as
   * a `Retry-After` hint is) because something outside decided it: another process's breaker for
   * the origin opened, say. From Closed or HalfOpen it is an opening like any other (its samples
   * are forgotten, a probe in flight is fenced, and the circuit probes on its own after the
   * break); an open circuit keeps its own break, and an isolated one stays isolated (no
   * transition).
   */
  forceOpen(nowMillis: number, breakMillis: number): Transition | undefined {
    switch (this.state) {
      case "Closed":
      case "HalfOpen":
        return this.open(nowMillis, this.state, breakMillis)
      case "Open":
      case "Isolated":
        return undefined
    }
  }

  /** Holds the circuit open until {@link close}; Polly's `IsolateCircuitAsync`. */
  isolate(): Transition | undefined {
    const from = this.state
    if (from === "Isolated") return undefined
    this.state = "Isolated"
    this.generation++
    this.forget()
    return { from, to: "Isolated", manual: true }
  }

  /** Closes the circuit by hand and forgets its samples (also when it was already closed). */
  close(): Transition | undefined {
    return this.toClosed(true)
  }

  snapshot(nowMillis: number): Snapshot {
    switch (this.state) {
      case "Closed":
        return { _tag: "Closed" }
      case "Isolated":
        return { _tag: "Isolated" }
      case "Open":
        return { _tag: "Open", retryAfterMillis: Math.max(0, this.blockedUntil - nowMillis) }
      case "HalfOpen": {
        // Probing: no slot is free now, not even one whose probe outlived it.
        const live = this.liveProbes(nowMillis)
        const probing = live.length + this.probeSuccesses + this.probeFailures >= this.halfOpen.probes
        let rearm = Number.POSITIVE_INFINITY
        for (const slot of live) rearm = Math.min(rearm, slot.until)
        return { _tag: "HalfOpen", probing, retryAfterMillis: probing ? rearm - nowMillis : 0 }
      }
    }
  }

  /** Closed with nothing sampled: indistinguishable from a fresh breaker, so it may be dropped. */
  isPristine(nowMillis: number): boolean {
    return this.state === "Closed" && this.isEmpty(nowMillis)
  }

  /**
   * Whether the circuit may be forgotten (and start again closed, with nothing sampled): it is
   * pristine, or it has gone unused for `idleMillis` (`Origin.idleTimeToLiveMillis`, one hour,
   * by default), counted for an open or half-open circuit from the end of its break or of its
   * probe's slot, whichever is later. So a `consecutive` streak is forgotten after an idle hour,
   * and an open circuit an idle hour after its break ended. An isolated circuit is never
   * forgotten: it is held open by hand until closed.
   */
  isIdle(nowMillis: number, lastUsedMillis: number, idleMillis: number = idleTimeToLiveMillis): boolean {
    switch (this.state) {
      case "Isolated":
        return false
      case "Closed":
        return nowMillis - lastUsedMillis >= idleMillis || this.isEmpty(nowMillis)
      case "Open":
      case "HalfOpen":
        return nowMillis - Math.max(lastUsedMillis, this.blockedUntil) >= idleMillis
    }
  }

  private isEmpty(nowMillis: number): boolean {
    return this.health.isEmpty(nowMillis) && (this.slow === undefined || this.slow.isEmpty(nowMillis))
  }

  /** Held open by hand ({@link isolate}): never evicted to make room for another origin. */
  isIsolated(): boolean {
    return this.state === "Isolated"
  }
}

/**
 * What a failed attempt tells the breaker: the server failed to answer (a transient status, a
 * timeout, a connection failure; with the server's `Retry-After` to lengthen a break), it
 * answered (a permanent status or a body that did not decode: a success for the breaker), or
 * nothing (a 429 is the caller's quota, not the origin's health; a request that could not be
 * sent).
 *
 * @since 0.1.0
 * @category models
 */
export const outcomeOfFailure = (
  failure: { readonly _tag: string; readonly status?: number | undefined; readonly reason?: string | undefined },
  retryAfterMillis: number | undefined
): Outcome => {
  switch (failure._tag) {
    case "TransientStatus":
      if (failure.status === 429) return { _tag: "Ignored" }
      return retryAfterMillis === undefined ? { _tag: "Failure" } : { _tag: "Failure", retryAfterMillis }
    case "ConnectionError":
      return failure.reason === "Timeout" || failure.reason === "Transport" ? { _tag: "Failure" } : { _tag: "Ignored" }
    case "PermanentStatus":
    case "DecodeError":
      return { _tag: "Success" }
    default:
      return { _tag: "Ignored" }
  }
}

const prefix = "circuitBreaker"
const tripPolicyBuilt = "must be built with CircuitBreaker.sampling or CircuitBreaker.consecutive"

const optionalMillis = <D>(
  codec: Settings.DurationCodec<D>,
  option: string,
  input: unknown,
  fallback: number
): Settings.Checked<number> =>
  input === undefined ? Settings.valid(fallback) : Settings.durationMillis(codec, option, input)

const tripPolicyOf = <D>(codec: Settings.DurationCodec<D>, input: unknown): Settings.Checked<TripPolicy> => {
  const option = `${prefix}.tripPolicy`
  if (input === undefined) return Settings.valid(breakerDefaults.tripPolicy)
  if (typeof input !== "object" || input === null || !("_tag" in input))
    return Settings.invalid(option, tripPolicyBuilt, input)
  if (input._tag === "Consecutive" && "failures" in input) {
    const policy: ConsecutivePolicy = { _tag: "Consecutive", failures: Settings.numberOr(input.failures, Number.NaN) }
    const problem = checkSettings({ ...breakerDefaults, tripPolicy: policy })
    return Settings.fromCheck(option, policy, problem, { failures: input.failures })
  }
  if (input._tag !== "Sampling" || !("options" in input)) return Settings.invalid(option, tripPolicyBuilt, input)
  return Settings.andThen(
    Settings.optionsRecord(option, input.options, ["failureRatio", "minimumThroughput", "samplingDuration"]),
    (given) =>
      Settings.andThen(
        optionalMillis(
          codec,
          `${option}.samplingDuration`,
          given.samplingDuration,
          samplingDefaults.samplingDurationMillis
        ),
        (samplingDurationMillis) => {
          const policy: SamplingPolicy = {
            _tag: "Sampling",
            failureRatio: Settings.numberOr(given.failureRatio, samplingDefaults.failureRatio),
            minimumThroughput: Settings.numberOr(given.minimumThroughput, samplingDefaults.minimumThroughput),
            samplingDurationMillis
          }
          return Settings.fromCheck(option, policy, checkSettings({ ...breakerDefaults, tripPolicy: policy }), given)
        }
      )
  )
}

const slowCallsOf = <D>(
  codec: Settings.DurationCodec<D>,
  input: unknown
): Settings.Checked<SlowCallPolicy | undefined> => {
  const option = `${prefix}.slowCalls`
  if (input === undefined) return Settings.valid(undefined)
  return Settings.andThen(
    Settings.optionsRecord(option, input, ["duration", "ratio", "minimumThroughput", "samplingDuration"]),
    (given) =>
      Settings.andThen(
        Settings.all({
          durationMillis: optionalMillis(codec, `${option}.duration`, given.duration, slowCallDefaults.durationMillis),
          samplingDurationMillis: optionalMillis(
            codec,
            `${option}.samplingDuration`,
            given.samplingDuration,
            slowCallDefaults.samplingDurationMillis
          )
        }),
        ({ durationMillis, samplingDurationMillis }) => {
          const slow: SlowCallPolicy = {
            durationMillis,
            ratio: Settings.numberOr(given.ratio, slowCallDefaults.ratio),
            minimumThroughput: Settings.numberOr(given.minimumThroughput, slowCallDefaults.minimumThroughput),
            samplingDurationMillis
          }
          return Settings.fromCheck(option, slow, checkSlowCalls(slow), given)
        }
      )
  )
}

const halfOpenOf = (input: unknown): Settings.Checked<HalfOpenPolicy | undefined> => {
  const option = `${prefix}.halfOpen`
  if (input === undefined) return Settings.valid(undefined)
  return Settings.andThen(Settings.optionsRecord(option, input, ["probes", "successes"]), (given) => {
    const probes = Settings.numberOr(given.probes, halfOpenDefaults.probes)
    // Unset, every probe must succeed, as the one probe must without the option.
    const halfOpen: HalfOpenPolicy = { probes, successes: Settings.numberOr(given.successes, probes) }
    return Settings.fromCheck(option, halfOpen, checkHalfOpen(halfOpen), given)
  })
}

/**
 * Resolves a breaker's options record (`tripPolicy` built by `sampling` or `consecutive`,
 * `breakDuration`, `maxBreakDuration`, `slowCalls` and `halfOpen` records, and an `onStateChange` function that only the library
 * calls) into settings. Bad options are named in full (`"circuitBreaker.breakDuration"`), with
 * the value as given. An unset `maxBreakDuration` is the larger of 30 s and `breakDuration`, so
 * that a long break alone is valid; a `maxBreakDuration` below the break is reported with both
 * options and both values as given.
 *
 * @since 0.1.0
 * @category validation
 */
export const resolveOptions = <D>(
  input: unknown,
  codec: Settings.DurationCodec<D>
): Settings.Checked<BreakerSettings> =>
  Settings.andThen(
    Settings.optionsRecord(prefix, input, [
      "tripPolicy",
      "breakDuration",
      "maxBreakDuration",
      "slowCalls",
      "halfOpen",
      "onStateChange"
    ]),
    (given) =>
      Settings.andThen(
        Settings.all({
          tripPolicy: tripPolicyOf(codec, given.tripPolicy),
          slowCalls: slowCallsOf(codec, given.slowCalls),
          halfOpen: halfOpenOf(given.halfOpen),
          breakDurationMillis: optionalMillis(
            codec,
            `${prefix}.breakDuration`,
            given.breakDuration,
            breakerDefaults.breakDurationMillis
          )
        }),
        ({ tripPolicy, slowCalls, halfOpen, breakDurationMillis }) =>
          Settings.andThen(
            optionalMillis(
              codec,
              `${prefix}.maxBreakDuration`,
              given.maxBreakDuration,
              // Unset, the cap never stands below the break: a long break alone is valid.
              Math.max(breakerDefaults.maxBreakDurationMillis, breakDurationMillis)
            ),
            (maxBreakDurationMillis): Settings.Checked<BreakerSettings> => {
              if (given.onStateChange !== undefined && typeof given.onStateChange !== "function") {
                return Settings.invalid(
                  `${prefix}.onStateChange`,
                  "must be a function returning an Effect",
                  given.onStateChange
                )
              }
              // Left out when unset: the settings of a breaker without them are what they always were.
              const settings: BreakerSettings = {
                tripPolicy,
                breakDurationMillis,
                maxBreakDurationMillis,
                ...(slowCalls === undefined ? {} : { slowCalls }),
                ...(halfOpen === undefined ? {} : { halfOpen })
              }
              const problem = checkSettings(settings)
              return Settings.fromCheck(
                prefix,
                settings,
                problem?.option === "maxBreakDuration" ? capProblem(problem, given, codec) : problem,
                given
              )
            }
          )
      )
  )

// The cap's range names the break it must not stand below, as the options give it (or its default).
const capProblem = <D>(
  problem: InvalidSetting,
  given: Readonly<Record<string, unknown>>,
  codec: Settings.DurationCodec<D>
): InvalidSetting => {
  const breakDuration =
    given.breakDuration === undefined
      ? `its default, ${breakerDefaults.breakDurationMillis / secondMillis} seconds`
      : Settings.describeValue(given.breakDuration, codec.describe)
  return { ...problem, reason: `must be from ${prefix}.breakDuration (${breakDuration}) to 1 day` }
}

/**
 * Why an attempt was rejected unsent, in words: `left` is the time until the circuit lets a
 * probe through (open) or the probe's slot is re-armed (half-open), as the library formats it.
 *
 * @since 0.1.0
 * @category models
 */
export const rejectionMessage = (origin: string, state: "Open" | "HalfOpen" | "Isolated", left: string): string => {
  const subject = `Circuit breaker for ${origin}`
  if (state === "Isolated") return `${subject} is isolated: attempts are rejected until it is closed by hand`
  return state === "HalfOpen"
    ? `${subject} is half-open and its probe is in flight: attempts are rejected until it reports, or for ${left} at most`
    : `${subject} is open: attempts are rejected for ${left} more, then one probe is let through`
}
