/**
 * A concurrency limit per origin (a bulkhead): at most `limit` attempts in flight and at most `queue` waiting,
 * as accounting with no I/O and no timers (the line parks waiters and wakes those this module grants); and an
 * adaptive limit, learnt from each attempt's sample as Netflix's concurrency-limits does, by AIMD or Gradient2,
 * as pure updates of plain state.
 *
 * The formulas, as concurrency-limits defines them (a sample is an attempt's RTT, the attempts in flight when
 * it was sent, and whether it was dropped: a `429`, a `503`, a timeout):
 *
 * ```text
 * AIMD (AIMDLimit):
 *   dropped or rtt > 5 s:      limit = max(1, min(limit - 1, floor(limit * 0.9)))
 *   else if inFlight * 2 >= limit:  limit = limit + 1
 *
 * Gradient2 (Gradient2Limit), the estimate a real number, the limit its floor:
 *   short = rtt                                   -- the last sample
 *   long  = mean of the first 10 samples, then long * (1 - 2/601) + rtt * 2/601
 *   if long / short > 2:  long = long * 0.9       -- recover quickly after a long overload
 *   if inFlight < estimate / 2: unchanged          -- the caller, not the server, limits
 *   gradient = max(0.5, min(1, long / short))     -- 1 when short is 0: no queueing seen
 *   estimate = estimate * 0.8 + (estimate * gradient + 4) * 0.2
 * ```
 *
 * Both then keep the limit within `[min, max]`. Gradient2 reads an overload only through latency (a dropped
 * sample counts by its RTT, a timeout by its time limit), as concurrency-limits' does; AIMD reads drops.
 *
 * @example
 * ```ts
 * import { ConcurrencyLimit } from "@effect-http-resilience/core"
 *
 * const bulkhead = ConcurrencyLimit.makeBulkhead<string>({ limit: 1, queue: 1 })
 * bulkhead.acquire("a") // "granted"
 * bulkhead.acquire("b") // "queued"
 * bulkhead.acquire("c") // "rejected": the queue is full
 * bulkhead.release() // "b": granted in a's place
 * ```
 *
 * @since 0.2.0
 */
import * as Settings from "./Settings.js"

// ---------------------------------------------------------------------------------------------
// The bulkhead

/**
 * What asking for a permit gives: a permit now, a place in the queue, or a refusal (the queue is full).
 *
 * @since 0.2.0
 * @category models
 */
export type Acquired = "granted" | "queued" | "rejected"

/**
 * One origin's permits and queue. Waiters are the line's own values (a `Deferred`), each distinct, served first
 * come first served. A permit granted must be released exactly once; a queued waiter that gives up is cancelled.
 *
 * @since 0.2.0
 * @category models
 */
export interface Bulkhead<W> {
  /** A permit now if fewer than `limit` are held, else a place in the queue if it has room, else a refusal. */
  readonly acquire: (waiter: W) => Acquired
  /** Gives a permit back; answers the waiter it went to, if one was queued. */
  readonly release: () => W | undefined
  /** Takes a waiter out of the queue; `false` when it was not queued (granted already, or unknown). */
  readonly cancel: (waiter: W) => boolean
  /**
   * Changes the limit (an adaptive limit's update); answers the waiters a higher limit grants. A lower limit
   * takes no permit back: those held drain as they are released.
   */
  readonly setLimit: (limit: number) => ReadonlyArray<W>
  readonly limit: () => number
  readonly inFlight: () => number
  readonly queued: () => number
}

/**
 * A bulkhead with its limit and queue size; both must have passed {@link check}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeBulkhead = <W>(options: { readonly limit: number; readonly queue: number }): Bulkhead<W> => {
  let limit = options.limit
  let inFlight = 0
  // A Set iterates in insertion order and deletes in O(1): a FIFO queue with cancellation.
  const waiting = new Set<W>()
  const grantNext = (): W | undefined => {
    if (inFlight >= limit) return undefined
    const next = waiting.values().next()
    if (next.done === true) return undefined
    waiting.delete(next.value)
    inFlight++
    return next.value
  }
  return {
    acquire: (waiter) => {
      if (waiting.has(waiter)) return "queued"
      if (inFlight < limit && waiting.size === 0) {
        inFlight++
        return "granted"
      }
      if (waiting.size >= options.queue) return "rejected"
      waiting.add(waiter)
      return "queued"
    },
    release: () => {
      if (inFlight > 0) inFlight--
      return grantNext()
    },
    cancel: (waiter) => waiting.delete(waiter),
    setLimit: (next) => {
      limit = next
      const granted: Array<W> = []
      for (let waiter = grantNext(); waiter !== undefined; waiter = grantNext()) granted.push(waiter)
      return granted
    },
    limit: () => limit,
    inFlight: () => inFlight,
    queued: () => waiting.size
  }
}

// ---------------------------------------------------------------------------------------------
// Adaptive limits

/**
 * One attempt as an adaptive limit learns from it.
 *
 * @since 0.2.0
 * @category models
 */
export interface Sample {
  /** How long the attempt took, in milliseconds (a timeout: its time limit). */
  readonly rttMillis: number
  /** Attempts in flight to the origin when it was sent, itself included. */
  readonly inFlight: number
  /** The server shed it: a `429`, a `503`, a timeout. */
  readonly dropped: boolean
}

/**
 * Which algorithm learns the limit.
 *
 * @since 0.2.0
 * @category models
 */
export type Algorithm = "aimd" | "gradient2"

/**
 * The constants of both algorithms, concurrency-limits' defaults: AIMD's backoff ratio and the RTT past which
 * a sample counts as dropped; Gradient2's smoothing, the queue it allows (4), the long RTT's window (600
 * samples) and warm-up (10 samples).
 *
 * @since 0.2.0
 * @category defaults
 */
export const algorithmDefaults = {
  aimd: { backoffRatio: 0.9, timeoutMillis: 5000 },
  gradient2: { smoothing: 0.2, queueSize: 4, longWindow: 600, warmup: 10 }
} as const

/**
 * The bounds of an adaptive limit: it starts at `initial` and stays within `[min, max]`.
 *
 * @since 0.2.0
 * @category models
 */
export interface Bounds {
  readonly min: number
  readonly max: number
  readonly initial: number
}

/**
 * An adaptive limit's state: AIMD's whole limit, or Gradient2's estimate and long RTT (with its warm-up).
 *
 * @since 0.2.0
 * @category models
 */
export type AdaptiveState =
  | { readonly _tag: "Aimd"; readonly limit: number }
  | {
      readonly _tag: "Gradient2"
      readonly estimate: number
      readonly longRttMillis: number
      /** Samples averaged so far, up to the warm-up. */
      readonly longSamples: number
    }

/**
 * An adaptive limit at its start.
 *
 * @since 0.2.0
 * @category constructors
 */
export const initialState = (algorithm: Algorithm, bounds: Bounds): AdaptiveState =>
  algorithm === "aimd"
    ? { _tag: "Aimd", limit: bounds.initial }
    : { _tag: "Gradient2", estimate: bounds.initial, longRttMillis: 0, longSamples: 0 }

const within = (bounds: Bounds, limit: number): number => Math.max(bounds.min, Math.min(bounds.max, limit))

const aimd = (bounds: Bounds, limit: number, sample: Sample): number => {
  const { backoffRatio, timeoutMillis } = algorithmDefaults.aimd
  if (sample.dropped || sample.rttMillis > timeoutMillis) {
    return within(bounds, Math.max(1, Math.min(limit - 1, Math.floor(limit * backoffRatio))))
  }
  return sample.inFlight * 2 >= limit ? within(bounds, limit + 1) : limit
}

const longRttAfter = (state: Extract<AdaptiveState, { _tag: "Gradient2" }>, rtt: number) => {
  const { longWindow, warmup } = algorithmDefaults.gradient2
  if (state.longSamples < warmup) {
    const samples = state.longSamples + 1
    return { longRttMillis: (state.longRttMillis * state.longSamples + rtt) / samples, longSamples: samples }
  }
  const factor = 2 / (longWindow + 1)
  return { longRttMillis: state.longRttMillis * (1 - factor) + rtt * factor, longSamples: state.longSamples }
}

const gradient2 = (
  bounds: Bounds,
  state: Extract<AdaptiveState, { _tag: "Gradient2" }>,
  sample: Sample
): AdaptiveState => {
  const { smoothing, queueSize } = algorithmDefaults.gradient2
  const short = sample.rttMillis
  const long = longRttAfter(state, short)
  if (short > 0 && long.longRttMillis / short > 2) long.longRttMillis *= 0.9
  if (sample.inFlight < state.estimate / 2) return { ...state, ...long }
  const gradient = short > 0 ? Math.max(0.5, Math.min(1, long.longRttMillis / short)) : 1
  const proposed = state.estimate * gradient + queueSize
  const estimate = within(bounds, state.estimate * (1 - smoothing) + proposed * smoothing)
  return { _tag: "Gradient2", estimate, ...long }
}

/**
 * The state after one sample. A sample whose RTT is not a number, or negative, teaches nothing.
 *
 * @since 0.2.0
 * @category operations
 */
export const update = (bounds: Bounds, state: AdaptiveState, sample: Sample): AdaptiveState => {
  if (!(sample.rttMillis >= 0)) return state
  return state._tag === "Aimd"
    ? { _tag: "Aimd", limit: aimd(bounds, state.limit, sample) }
    : gradient2(bounds, state, sample)
}

/**
 * The limit in force: a whole number within the bounds.
 *
 * @since 0.2.0
 * @category operations
 */
export const limitOf = (state: AdaptiveState): number =>
  Math.floor(state._tag === "Aimd" ? state.limit : state.estimate)

// ---------------------------------------------------------------------------------------------
// The `concurrency` option

/**
 * The `concurrency` option checked: a fixed limit, or an adaptive one within bounds; both with a queue.
 *
 * @since 0.2.0
 * @category models
 */
export type Resolved =
  | { readonly _tag: "Fixed"; readonly limit: number; readonly queue: number }
  | ({ readonly _tag: "Adaptive"; readonly algorithm: Algorithm; readonly queue: number } & Bounds)

/**
 * The defaults, and why:
 *
 * - `queue` 0: a call beyond the limit fails at once, as Polly's concurrency limiter, cockatiel's bulkhead and
 *   resilience4j's bulkhead do by default; a queue is asked for.
 * - `algorithm` `"gradient2"`: concurrency-limits' own choice; it learns from latency before the server sheds.
 * - `initial` 20 and `max` 200: concurrency-limits' defaults; `min` 1, not its 20, so that a client can come down
 *   to what a small server takes.
 *
 * @since 0.2.0
 * @category defaults
 */
export const defaults = { queue: 0, algorithm: "gradient2", initial: 20, min: 1, max: 200 } as const

/**
 * The largest limit and queue the option takes.
 *
 * @since 0.2.0
 * @category constants
 */
export const bounds = { maxLimit: 100_000, maxQueue: 1_000_000 } as const

const wholeIn = (option: string, value: unknown, min: number, max: number, what: string): Settings.Checked<number> =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max
    ? Settings.valid(value)
    : Settings.invalid(option, `must be a whole number from ${min} to ${max}: ${what}`, value)

const queueOf = (value: unknown): Settings.Checked<number> =>
  wholeIn("concurrency.queue", value ?? defaults.queue, 0, bounds.maxQueue, "calls waiting for a permit")

const fixedOf = (given: Readonly<Record<string, unknown>>): Settings.Checked<Resolved> =>
  Settings.andThen(
    Settings.all({
      limit: wholeIn("concurrency.limit", given.limit, 1, bounds.maxLimit, "attempts in flight at once"),
      queue: queueOf(given.queue)
    }),
    ({ limit, queue }): Settings.Checked<Resolved> => Settings.valid({ _tag: "Fixed", limit, queue })
  )

const adaptiveOf = (given: Readonly<Record<string, unknown>>): Settings.Checked<Resolved> =>
  Settings.andThen(
    Settings.all({
      algorithm: Settings.choice<Algorithm>(
        "concurrency.algorithm",
        ["gradient2", "aimd"],
        given.algorithm ?? defaults.algorithm
      ),
      min: wholeIn("concurrency.min", given.min ?? defaults.min, 1, bounds.maxLimit, "the lowest limit"),
      queue: queueOf(given.queue)
    }),
    ({ algorithm, min, queue }) =>
      Settings.andThen(
        wholeIn("concurrency.max", given.max ?? Math.max(defaults.max, min), min, bounds.maxLimit, "at least min"),
        (max) =>
          Settings.andThen(
            wholeIn(
              "concurrency.initial",
              given.initial ?? within({ min, max, initial: 0 }, defaults.initial),
              min,
              max,
              "from min to max"
            ),
            (initial): Settings.Checked<Resolved> =>
              Settings.valid({ _tag: "Adaptive", algorithm, queue, min, max, initial })
          )
      )
  )

const fixedNames = ["limit", "queue"]
const adaptiveNames = ["adaptive", "algorithm", "min", "max", "initial", "queue"]

/**
 * Checks the `concurrency` option: `{ limit, queue? }` (a fixed limit) or `{ adaptive: true, algorithm?, min?,
 * max?, initial?, queue? }`, with {@link defaults}. `undefined` is off (the default). A bad value is named in
 * full (`concurrency.initial`); `limit` beside `adaptive` is refused, as the two forms do not mix.
 *
 * @since 0.2.0
 * @category checks
 */
export const check = (input: unknown): Settings.Checked<Resolved | undefined> => {
  if (input === undefined) return Settings.valid(undefined)
  if (!Settings.isPlainObject(input)) {
    return Settings.invalid("concurrency", "must be { limit, queue? } or { adaptive: true, ... }", input)
  }
  if (!("adaptive" in input)) return Settings.andThen(Settings.optionsRecord("concurrency", input, fixedNames), fixedOf)
  if (input.adaptive !== true) {
    return Settings.invalid(
      "concurrency.adaptive",
      "must be true; for a fixed limit give { limit } alone",
      input.adaptive
    )
  }
  if ("limit" in input) {
    return Settings.invalid(
      "concurrency.limit",
      "is for a fixed limit: with adaptive: true, give initial, min and max",
      input.limit
    )
  }
  return Settings.andThen(Settings.optionsRecord("concurrency", input, adaptiveNames), adaptiveOf)
}
