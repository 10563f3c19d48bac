/**
 * The contention simulator: N clients each make one optimistic-concurrency write to a single
 * shared record (read its version, write conditioned on it; a conflict means back off and start
 * again), on simulated time, so that a run is exact and repeatable for its seed.
 *
 * Every wait comes from the library itself: `RetryPolicy.toSchedule(RetryPolicy.make(...))`,
 * stepped with each conflict, its random draws taken from `Random.make(seed)`. The network is a
 * seeded normal distribution per message. Nothing sleeps: a run is a loop over an event queue.
 *
 * With a retry budget, the N clients share one `RetryBudget` of the library (as the callers of
 * one client or layer do), on the simulation's clock: each client's write is one call, which
 * deposits when it starts; each conflict asks the budget for a retry, and a refused client
 * gives up, as the library's call would end with "retry-budget-exhausted".
 */
import * as Headers from "@effect/platform/Headers"
import * as Clock from "effect/Clock"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import type * as Schedule from "effect/Schedule"
import * as ScheduleIntervals from "effect/ScheduleIntervals"
import { HttpFailure, RetryBudget, RetryPolicy } from "effect-http-resilience"
import { mean } from "./stats.js"

export const backoffModes = ["none", "exponential", "full", "equal", "decorrelated"] as const
export type BackoffMode = (typeof backoffModes)[number]

export const backoffLabels: Record<BackoffMode, string> = {
  none: "none (retry at once)",
  exponential: "exponential, no jitter",
  full: "full jitter",
  equal: "equal jitter",
  decorrelated: "decorrelated jitter"
}

export interface NetworkModel {
  readonly meanMillis: number
  readonly deviationMillis: number
}

export const defaultNetwork: NetworkModel = { meanMillis: 10, deviationMillis: 2 }
export const backoffBaseMillis = 5
export const backoffCapMillis = 2_000

// Bounds on one run, far beyond what any mode needs: a run that reaches them is reported as such.
const maxEvents = 5_000_000
const maxSimulatedMillis = 24 * 60 * 60 * 1000

const conflictStatus = 409

/** The library's policy for a mode: base 5 ms, cap 2 s, retried until the write succeeds. */
export const policyFor = (mode: BackoffMode): RetryPolicy.RetryPolicy =>
  RetryPolicy.make({
    maxAttempts: 1_000_000,
    backoff: mode === "none" ? RetryPolicy.constant(0) : RetryPolicy.exponential(`${backoffBaseMillis} millis`, 2),
    maxDelay: `${backoffCapMillis} millis`,
    jitter: mode === "none" || mode === "exponential" ? "none" : mode,
    retryAfter: "ignore",
    isTransientStatus: (status) => status === conflictStatus
  })

// A conditional PUT is idempotent: the schedule retries it like any transient failure.
const conflict = new HttpFailure.TransientStatus({
  request: HttpClientRequest.put("http://simulated/record", { headers: { "if-match": '"v"' } }),
  attempt: 1,
  status: conflictStatus,
  headers: Headers.empty,
  retryAfter: Option.none()
})

/** mulberry32: a small, fast, seeded generator of uniform numbers in [0, 1). */
const seededUniform = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Normal draws (Box–Muller) from a seeded uniform source, never below zero. */
const seededDelay = (seed: number, network: NetworkModel): (() => number) => {
  const uniform = seededUniform(seed)
  let spare: number | undefined
  return () => {
    let standard: number
    if (spare !== undefined) {
      standard = spare
      spare = undefined
    } else {
      const u = 1 - uniform()
      const v = uniform()
      const radius = Math.sqrt(-2 * Math.log(u))
      standard = radius * Math.cos(2 * Math.PI * v)
      spare = radius * Math.sin(2 * Math.PI * v)
    }
    return Math.max(0, network.meanMillis + network.deviationMillis * standard)
  }
}

type EventKind = "ReadArrives" | "ReadReturns" | "WriteArrives" | "WriteReturns"

interface SimEvent {
  readonly at: number
  readonly sequence: number
  readonly kind: EventKind
  readonly client: number
  /** The version read (read answer, write) or whether the write won (write answer: 1 or 0). */
  readonly value: number
}

/** A binary min-heap of events by time, ties in the order they were scheduled. */
class EventQueue {
  private readonly heap: Array<SimEvent> = []
  private sequence = 0

  get size(): number {
    return this.heap.length
  }

  push(at: number, kind: EventKind, client: number, value: number): void {
    const heap = this.heap
    heap.push({ at, sequence: this.sequence++, kind, client, value })
    let index = heap.length - 1
    while (index > 0) {
      const parent = (index - 1) >> 1
      if (!this.before(index, parent)) break
      this.swap(index, parent)
      index = parent
    }
  }

  pop(): SimEvent | undefined {
    const heap = this.heap
    const top = heap[0]
    const last = heap.pop()
    if (top === undefined || last === undefined || heap.length === 0) return top
    heap[0] = last
    let index = 0
    for (;;) {
      const left = 2 * index + 1
      const right = left + 1
      let smallest = index
      if (left < heap.length && this.before(left, smallest)) smallest = left
      if (right < heap.length && this.before(right, smallest)) smallest = right
      if (smallest === index) break
      this.swap(index, smallest)
      index = smallest
    }
    return top
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a]!
    const y = this.heap[b]!
    return x.at < y.at || (x.at === y.at && x.sequence < y.sequence)
  }

  private swap(a: number, b: number): void {
    const heap = this.heap
    const x = heap[a]!
    heap[a] = heap[b]!
    heap[b] = x
  }
}

export interface ContentionRun {
  readonly writeCalls: number
  readonly readCalls: number
  /** Simulated milliseconds until the last client's write succeeded or it gave up. */
  readonly completionMillis: number
  /** Clients whose retry the budget refused: their write never happened. */
  readonly gaveUp: number
  /** False when the run hit its bounds before every client had succeeded or given up. */
  readonly completed: boolean
}

/** Effect's `Clock` reading the simulation's time; nothing in a run sleeps. */
const simulatedClock = (now: () => number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: now,
  currentTimeMillis: Effect.sync(now),
  unsafeCurrentTimeNanos: () => BigInt(Math.round(now() * 1_000_000)),
  currentTimeNanos: Effect.sync(() => BigInt(Math.round(now() * 1_000_000))),
  sleep: () => Effect.dieMessage("the contention simulator never sleeps")
})

const recordOrigin = RetryBudget.originOf(conflict.request.url)

/**
 * One seeded run: `clients` clients start together at time 0, sharing one retry budget made
 * from `budget` (none by default). Same seed, same result.
 */
export const simulate = (
  clients: number,
  schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>,
  seed: number,
  network: NetworkModel = defaultNetwork,
  budget: RetryBudget.Input = "none"
): ContentionRun => {
  let now = 0
  const program = Effect.gen(function* () {
    const retryBudget = yield* RetryBudget.make(budget)
    const delay = seededDelay(seed ^ 0x9e3779b9, network)
    const queue = new EventQueue()
    const states: Array<unknown> = Array.from({ length: clients }, () => schedule.initial)
    let version = 0
    let writeCalls = 0
    let readCalls = 0
    let succeeded = 0
    let gaveUp = 0
    let completionMillis = 0
    let events = 0
    for (let client = 0; client < clients; client++) {
      yield* retryBudget.onRequest(recordOrigin)
      queue.push(delay(), "ReadArrives", client, 0)
    }
    while (succeeded + gaveUp < clients && events < maxEvents) {
      const event = queue.pop()
      if (event === undefined || event.at > maxSimulatedMillis) break
      events++
      now = event.at
      switch (event.kind) {
        case "ReadArrives":
          readCalls++
          queue.push(now + delay(), "ReadReturns", event.client, version)
          break
        case "ReadReturns":
          queue.push(now + delay(), "WriteArrives", event.client, event.value)
          break
        case "WriteArrives": {
          writeCalls++
          const won = version === event.value
          if (won) version++
          queue.push(now + delay(), "WriteReturns", event.client, won ? 1 : 0)
          break
        }
        case "WriteReturns": {
          if (event.value === 1) {
            succeeded++
            completionMillis = now
            break
          }
          const [state, , decision] = yield* schedule.step(now, conflict, states[event.client])
          states[event.client] = state
          if (decision._tag === "Done") return yield* Effect.dieMessage("the retry policy gave up on a conflict")
          yield* retryBudget.onFailure(recordOrigin, "transient-status")
          if (!(yield* retryBudget.tryRetry(recordOrigin, "transient-status"))) {
            gaveUp++
            completionMillis = now
            break
          }
          const wait = Math.max(0, ScheduleIntervals.start(decision.intervals) - now)
          queue.push(now + wait + delay(), "ReadArrives", event.client, 0)
          break
        }
      }
    }
    return { writeCalls, readCalls, completionMillis, gaveUp, completed: succeeded + gaveUp === clients }
  })
  return Effect.runSync(program.pipe(Effect.withRandom(Random.make(seed)), Effect.withClock(simulatedClock(() => now))))
}

export interface ContentionCell {
  readonly clients: number
  readonly mode: BackoffMode
  readonly runs: number
  /** Mean over the seeded runs. */
  readonly writeCalls: number
  /** Mean over the seeded runs, in simulated milliseconds. */
  readonly completionMillis: number
  /** Mean over the seeded runs of the clients that gave up (refused a retry by the budget). */
  readonly gaveUp: number
  readonly incompleteRuns: number
}

/**
 * Every client count with every mode, each the mean of `runs` runs seeded 1..runs, the clients
 * sharing a budget made from `budget` (none by default).
 */
export const runContention = (
  clientCounts: ReadonlyArray<number>,
  runs: number,
  modes: ReadonlyArray<BackoffMode> = backoffModes,
  budget: RetryBudget.Input = "none"
): Array<ContentionCell> => {
  const cells: Array<ContentionCell> = []
  for (const mode of modes) {
    const schedule = RetryPolicy.toSchedule(policyFor(mode))
    for (const clients of clientCounts) {
      const results: Array<ContentionRun> = []
      for (let seed = 1; seed <= runs; seed++) {
        results.push(simulate(clients, schedule, seed, defaultNetwork, budget))
      }
      cells.push({
        clients,
        mode,
        runs,
        writeCalls: mean(results.map((run) => run.writeCalls)),
        completionMillis: mean(results.map((run) => run.completionMillis)),
        gaveUp: mean(results.map((run) => run.gaveUp)),
        incompleteRuns: results.filter((run) => !run.completed).length
      })
    }
  }
  return cells
}
