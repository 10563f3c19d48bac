/**
 * A deterministic model of the chaos server's capacity route under a closed loop of callers, to
 * test that an adaptive limit follows a capacity drop without sockets or timers: the server serves
 * N at once in `base` ms, c beyond N in base × c / N ms (fixed when it arrives), and sheds with a
 * fast 503 beyond shedAt × N (shedAt 1: at once beyond N, no latency to learn from); N drops
 * halfway (64 to 16 by default). Each caller sends its next call as its last ends, and pauses
 * `base` ms after a refusal (the limit's, unsent) or a 503. `clientNoiseMillis`: a busy client's
 * own delay (its event loop, its GC), from 0 to it, added to each answer as the client sees it,
 * drawn from a seeded generator. Algorithm `"none"`: no limit, the baseline.
 */
import {
  type AdaptiveState,
  type Algorithm,
  type Bounds,
  baselinePercentile,
  initialState,
  limitOf,
  update
} from "../../src/ConcurrencyLimit.js"
import { LatencyWindow } from "../../src/Hedging.js"

const base = 20
const networkMillis = 0.5
const phaseMillis = 4000
const limits: Bounds = { min: 1, max: 200, initial: 20 }

/** The server's capacity before and after the drop, where it sheds, and the callers. */
export interface Shape {
  readonly before: number
  readonly after: number
  readonly shedAt: number
  readonly callers: number
}

/** The bench's first shape: 64 to 16, slower beyond capacity, shedding beyond twice it; 96 callers. */
const slowThenShed: Shape = { before: 64, after: 16, shedAt: 2, callers: 96 }

interface Ended {
  readonly at: number
  readonly caller: number
  readonly sentAt?: number
  readonly inFlightAtSend?: number
  readonly shed?: boolean
}

interface PhaseCounts {
  answered: number
  shed: number
  shedAll: number
  answeredAll: number
  readonly latencies: Array<number>
  readonly limits: Array<number>
}

export interface PhaseFigures {
  /** The limit in force at each answer of the phase's second half: its median. */
  readonly medianLimit: number
  /** The median latency of the answers not shed, over `base`. */
  readonly p50Ratio: number
  /** 503s among the answers of the phase's second half. */
  readonly shedShare: number
  /** Answers not shed per second over the server's throughput at capacity (N / base). */
  readonly goodputOfCapacity: number
  /** The p99 latency of the answers not shed in the phase's second half, over `base`. */
  readonly p99Ratio: number
  /** 503s over the whole phase. */
  readonly shed: number
  /** As `goodputOfCapacity`, over the whole phase: the time a limit takes to settle included. */
  readonly wholeGoodputOfCapacity: number
}

const median = (values: ReadonlyArray<number>): number => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0

const quantile = (values: ReadonlyArray<number>, q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0

/** Runs the model for one algorithm (or none): 4 s at the shape's first capacity, then 4 s at its second. */
export const simulateCapacityDrop = (
  algorithm: Algorithm | "none",
  clientNoiseMillis = 0,
  shape: Shape = slowThenShed
): { readonly before: PhaseFigures; readonly after: PhaseFigures } => {
  const { callers, shedAt } = shape
  // A linear congruential generator: the same noise every run.
  let seed = 34
  const noise = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
    return (seed / 2_147_483_648) * clientNoiseMillis
  }
  let capacity = shape.before
  let state: AdaptiveState = initialState(algorithm === "none" ? "aimd" : algorithm, limits)
  const limitNow = () => (algorithm === "none" ? Number.POSITIVE_INFINITY : limitOf(state))
  const window = new LatencyWindow()
  let inFlight = 0
  let serving = 0
  const pending: Array<Ended> = []
  // When each request the server serves leaves it: the client may see its answer later.
  const leaving: Array<number> = []
  const phases = [0, 1].map(
    (): PhaseCounts => ({ answered: 0, shed: 0, shedAll: 0, answeredAll: 0, latencies: [], limits: [] })
  )

  const start = (caller: number, now: number) => {
    if (inFlight >= limitNow()) {
      pending.push({ at: now + base, caller })
      return
    }
    inFlight++
    const c = serving + 1
    if (c > shedAt * capacity) {
      pending.push({
        at: now + networkMillis,
        caller,
        sentAt: now,
        inFlightAtSend: inFlight,
        shed: true
      })
      return
    }
    serving++
    const served = now + base * Math.max(1, c / capacity)
    leaving.push(served)
    pending.push({ at: served + networkMillis + noise(), caller, sentAt: now, inFlightAtSend: inFlight, shed: false })
  }

  for (let caller = 0; caller < callers; caller++) pending.push({ at: caller * 0.05, caller })
  while (pending.length > 0) {
    let next = 0
    for (let index = 1; index < pending.length; index++) {
      if ((pending[index]?.at ?? 0) < (pending[next]?.at ?? 0)) next = index
    }
    const event = pending.splice(next, 1)[0]
    if (event === undefined || event.at >= 2 * phaseMillis) break
    const now = event.at
    if (now >= phaseMillis) capacity = shape.after
    for (let index = leaving.length - 1; index >= 0; index--) {
      if ((leaving[index] ?? 0) <= now) {
        leaving.splice(index, 1)
        serving--
      }
    }
    if (event.sentAt === undefined || event.inFlightAtSend === undefined) {
      start(event.caller, now)
      continue
    }
    inFlight--
    const rttMillis = now - event.sentAt
    const shed = event.shed === true
    if (!shed) window.record(rttMillis, now)
    state = update(
      limits,
      state,
      { rttMillis, inFlight: event.inFlightAtSend, dropped: shed, endedAtMillis: now },
      () => window.percentile(baselinePercentile, now)
    )
    const phase = phases[now < phaseMillis ? 0 : 1]
    const secondHalf = now % phaseMillis >= phaseMillis / 2
    if (phase !== undefined) {
      if (shed) phase.shedAll++
      else phase.answeredAll++
    }
    if (phase !== undefined && secondHalf) {
      phase.limits.push(limitNow())
      if (shed) phase.shed++
      else {
        phase.answered++
        phase.latencies.push(rttMillis)
      }
    }
    if (shed) pending.push({ at: now + base, caller: event.caller })
    else start(event.caller, now)
  }
  const figures = (index: number, capacityOf: number): PhaseFigures => {
    const phase: PhaseCounts = phases[index] ?? {
      answered: 0,
      shed: 0,
      shedAll: 0,
      answeredAll: 0,
      latencies: [],
      limits: []
    }
    return {
      medianLimit: median(phase.limits),
      p50Ratio: median(phase.latencies) / base,
      p99Ratio: quantile(phase.latencies, 0.99) / base,
      shed: phase.shedAll,
      wholeGoodputOfCapacity: phase.answeredAll / (phaseMillis / 1000) / ((capacityOf * 1000) / base),
      shedShare: phase.shed / Math.max(1, phase.shed + phase.answered),
      goodputOfCapacity: phase.answered / (phaseMillis / 2 / 1000) / ((capacityOf * 1000) / base)
    }
  }
  return { before: figures(0, shape.before), after: figures(1, shape.after) }
}
