/**
 * A concurrency limit per origin (a bulkhead): at most `limit` attempts in flight and at most `queue` waiting,
 * as accounting with no I/O and no timers (the line parks waiters and wakes those this module grants); and an
 * adaptive limit, learnt from each attempt's sample as Netflix's concurrency-limits does, by AIMD or Gradient2,
 * as pure updates of plain state.
 *
 * The formulas, after concurrency-limits' (a sample is an attempt's RTT, the attempts in flight when it was
 * sent, and whether it was dropped: a `429`, a `503`, a timeout). As its `WindowedLimit` does, the limit moves
 * once per window of samples: a window closes once it spans twice its shortest RTT and holds 10 samples, or a
 * drop; a drop of an attempt sent before the window began does not count (TCP cuts once per round trip of
 * losses). Per window:
 *
 * ```text
 * AIMD (AIMDLimit):
 *   a drop, or an rtt > 5 s:            limit = max(1, min(limit - 1, floor(min(limit, maxInFlight) * 0.9)))
 *   else if maxInFlight * 2 >= limit:   limit = limit + 1
 *
 * Gradient2 (Gradient2Limit), the estimate a real number, the limit its floor:
 *   a drop:  estimate cut as AIMD's limit       -- a shed answer is fast: its RTT would read as healthy
 *   short = the window's mean RTT
 *   ema   = mean of the first 10 windows' short, then ema * (1 - 2/601) + short * 2/601
 *   if ema / short > 2:  ema = ema * 0.95       -- recover quickly after a long overload
 *   long  = min(ema, baseline)                  -- baseline: the origin's usual RTT, when known
 *   if maxInFlight < estimate / 2: unchanged     -- the caller, not the server, limits
 *   gradient = max(0.5, min(1, long / short))   -- 1 when short is 0: no queueing seen
 *   estimate = estimate * 0.8 + (estimate * gradient + 4) * 0.2
 * ```
 *
 * A cut starts from what was in flight when it is below the limit (TCP cuts its flight size, RFC 5681): a limit
 * grown past what the caller used would take round trips of drops to come down. Both then keep the limit within
 * `[min, max]`. The lines give as baseline the median of the origin's latency window (hedging's, 30 s): an
 * average of 600 windows drifts up with a queue that lasts, until it reads as normal.
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
  /** When it ended, on the line's monotonic clock, in milliseconds. */
  readonly endedAtMillis: number
}

/**
 * Which algorithm learns the limit.
 *
 * @since 0.2.0
 * @category models
 */
export type Algorithm = "aimd" | "gradient2"

/**
 * The constants of both algorithms, concurrency-limits' defaults: AIMD's backoff ratio (also the cut a drop
 * makes to Gradient2) and the RTT past which a sample counts as dropped; Gradient2's smoothing, the queue it
 * allows (4), the long RTT's window (600 windows) and warm-up (10); the sampling window (`WindowedLimit`'s):
 * at least 10 samples and twice the window's shortest RTT. But Gradient2's RTT tolerance: 1, not its 1.5, which
 * would let latency rise by half before the limit comes down (its default sits at 1.75x the server's latency
 * after a capacity drop; 1 at 1.3x, measured on the model in the tests).
 *
 * @since 0.2.0
 * @category defaults
 */
export const algorithmDefaults = {
  aimd: { backoffRatio: 0.9, timeoutMillis: 5000 },
  gradient2: { smoothing: 0.2, queueSize: 4, longWindow: 600, warmup: 10, rttTolerance: 1 },
  window: { minSamples: 10, rttMultiple: 2 }
} as const

/**
 * The percentile of an origin's latency window (30 s, hedging's) read as its usual RTT: the median. A low
 * percentile would read the noise of a busy client (its event loop, its GC) as queueing, against a window mean
 * that holds it, and bring the limit below what the server takes: concurrency-limits averages for that reason.
 *
 * @since 0.2.0
 * @category defaults
 */
export const baselinePercentile = 50

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
 * The samples of the window being filled: the limit moves once per window, not once per sample,
 * so that one round trip's answers move it once (TCP's rule), whatever the rate.
 *
 * @since 0.2.0
 * @category models
 */
export interface SampleWindow {
  readonly startedAtMillis: number
  readonly samples: number
  /** Of the samples not dropped: their count, RTT sum and shortest RTT. */
  readonly answered: number
  readonly rttSumMillis: number
  readonly minRttMillis: number
  readonly maxInFlight: number
  readonly dropped: boolean
  /** The shortest RTT answered in an earlier window: a window of drops alone lasts twice it. */
  readonly earlierMinRttMillis: number
}

/**
 * An adaptive limit's state: AIMD's limit, or Gradient2's estimate and long RTT (with its warm-up); both with
 * the window of samples being filled.
 *
 * @since 0.2.0
 * @category models
 */
export type AdaptiveState =
  | { readonly _tag: "Aimd"; readonly limit: number; readonly window: SampleWindow }
  | {
      readonly _tag: "Gradient2"
      readonly estimate: number
      readonly longRttMillis: number
      /** Windows averaged so far, up to the warm-up. */
      readonly longSamples: number
      readonly window: SampleWindow
    }

const emptyWindow = (startedAtMillis: number, earlierMinRttMillis: number): SampleWindow => ({
  startedAtMillis,
  samples: 0,
  answered: 0,
  rttSumMillis: 0,
  minRttMillis: Number.POSITIVE_INFINITY,
  maxInFlight: 0,
  dropped: false,
  earlierMinRttMillis
})

/**
 * An adaptive limit at its start.
 *
 * @since 0.2.0
 * @category constructors
 */
export const initialState = (algorithm: Algorithm, bounds: Bounds): AdaptiveState => {
  const window = emptyWindow(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY)
  return algorithm === "aimd"
    ? { _tag: "Aimd", limit: bounds.initial, window }
    : { _tag: "Gradient2", estimate: bounds.initial, longRttMillis: 0, longSamples: 0, window }
}

const within = (bounds: Bounds, limit: number): number => Math.max(bounds.min, Math.min(bounds.max, limit))

// A drop of an attempt sent before the window began was sent under the limit the last window set:
// that window answered for it (TCP cuts once per window of losses).
const added = (window: SampleWindow, sample: Sample): SampleWindow => {
  const sentAtMillis = sample.endedAtMillis - sample.rttMillis
  const startedAtMillis = Number.isFinite(window.startedAtMillis) ? window.startedAtMillis : sentAtMillis
  const answered = !sample.dropped
  const dropped =
    (sample.dropped || sample.rttMillis > algorithmDefaults.aimd.timeoutMillis) && sentAtMillis >= startedAtMillis
  return {
    startedAtMillis,
    samples: window.samples + 1,
    answered: window.answered + (answered ? 1 : 0),
    rttSumMillis: window.rttSumMillis + (answered ? sample.rttMillis : 0),
    minRttMillis: answered ? Math.min(window.minRttMillis, sample.rttMillis) : window.minRttMillis,
    maxInFlight: Math.max(window.maxInFlight, sample.inFlight),
    dropped: window.dropped || dropped,
    earlierMinRttMillis: window.earlierMinRttMillis
  }
}

// The shortest RTT answered, in this window or else an earlier one: shed answers come back fast,
// and their RTT is no round trip's.
const answeredMinRtt = (window: SampleWindow): number =>
  window.answered > 0 ? window.minRttMillis : window.earlierMinRttMillis

// A window closes once it spans twice its shortest RTT and holds enough samples; a drop is signal
// enough with fewer.
const isComplete = (window: SampleWindow, sample: Sample): boolean => {
  const { minSamples, rttMultiple } = algorithmDefaults.window
  const answered = answeredMinRtt(window)
  const shortest = Number.isFinite(answered) ? answered : sample.rttMillis
  return (
    (window.samples >= minSamples || window.dropped) &&
    sample.endedAtMillis - window.startedAtMillis >= rttMultiple * shortest
  )
}

// From what was in flight, not from a limit the caller never filled (TCP halves its flight size,
// RFC 5681): a limit grown past the demand would take round trips of drops to come down.
const cutFrom = (bounds: Bounds, limit: number, window: SampleWindow): number =>
  cut(bounds, window.maxInFlight > 0 ? Math.min(limit, window.maxInFlight) : limit)

const cut = (bounds: Bounds, limit: number): number =>
  within(bounds, Math.max(1, Math.min(limit - 1, Math.floor(limit * algorithmDefaults.aimd.backoffRatio))))

const aimd = (bounds: Bounds, limit: number, window: SampleWindow): number => {
  if (window.dropped) return cutFrom(bounds, limit, window)
  return window.maxInFlight * 2 >= limit ? within(bounds, limit + 1) : limit
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
  window: SampleWindow,
  baselineRttMillis: (() => number | undefined) | undefined
): Omit<Extract<AdaptiveState, { _tag: "Gradient2" }>, "window"> => {
  // A shed answer comes back fast and would read as a healthy server: a drop cuts, as AIMD's does.
  if (window.dropped || window.answered === 0) {
    return { ...state, estimate: window.dropped ? cutFrom(bounds, state.estimate, window) : state.estimate }
  }
  const { smoothing, queueSize, rttTolerance } = algorithmDefaults.gradient2
  const short = window.rttSumMillis / window.answered
  const ema = longRttAfter(state, short)
  if (short > 0 && ema.longRttMillis / short > 2) ema.longRttMillis *= 0.95
  // The average drifts up with a queue that lasts; the median of the last 30 s, slower.
  const baseline = baselineRttMillis?.()
  const long = baseline === undefined ? ema.longRttMillis : Math.min(ema.longRttMillis, baseline)
  if (window.maxInFlight < state.estimate / 2) return { ...state, ...ema }
  const gradient = short > 0 ? Math.max(0.5, Math.min(1, (rttTolerance * long) / short)) : 1
  const proposed = state.estimate * gradient + queueSize
  return { ...state, estimate: within(bounds, state.estimate * (1 - smoothing) + proposed * smoothing), ...ema }
}

/**
 * The state after one sample: the sample joins the window, and a window complete moves the limit
 * once, from its samples (AIMD: a drop cuts by a tenth, a window that used half of the limit adds
 * one; Gradient2: a drop cuts by a tenth, else the gradient of its mean RTT). A sample whose RTT is
 * not a number, or negative, teaches nothing. `baselineRttMillis` gives, when known, the origin's
 * usual RTT (the median of its latency window): Gradient2 reads the lower of it and its own long
 * average as its long RTT, asked only when a window closes.
 *
 * @since 0.2.0
 * @category operations
 */
export const update = (
  bounds: Bounds,
  state: AdaptiveState,
  sample: Sample,
  baselineRttMillis?: () => number | undefined
): AdaptiveState => {
  if (!(sample.rttMillis >= 0) || !Number.isFinite(sample.endedAtMillis)) return state
  const window = added(state.window, sample)
  if (!isComplete(window, sample)) return { ...state, window }
  const next = emptyWindow(sample.endedAtMillis, answeredMinRtt(window))
  return state._tag === "Aimd"
    ? { _tag: "Aimd", limit: aimd(bounds, state.limit, window), window: next }
    : { ...gradient2(bounds, state, window, baselineRttMillis), window: next }
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
  wholeIn("concurrencyLimit.queue", value ?? defaults.queue, 0, bounds.maxQueue, "calls waiting for a permit")

const fixedOf = (given: Readonly<Record<string, unknown>>): Settings.Checked<Resolved> =>
  Settings.andThen(
    Settings.all({
      limit: wholeIn("concurrencyLimit.limit", given.limit, 1, bounds.maxLimit, "attempts in flight at once"),
      queue: queueOf(given.queue)
    }),
    ({ limit, queue }): Settings.Checked<Resolved> => Settings.valid({ _tag: "Fixed", limit, queue })
  )

const adaptiveOf = (given: Readonly<Record<string, unknown>>): Settings.Checked<Resolved> =>
  Settings.andThen(
    Settings.all({
      algorithm: Settings.choice<Algorithm>(
        "concurrencyLimit.algorithm",
        ["gradient2", "aimd"],
        given.algorithm ?? defaults.algorithm
      ),
      min: wholeIn("concurrencyLimit.min", given.min ?? defaults.min, 1, bounds.maxLimit, "the lowest limit"),
      queue: queueOf(given.queue)
    }),
    ({ algorithm, min, queue }) =>
      Settings.andThen(
        wholeIn("concurrencyLimit.max", given.max ?? Math.max(defaults.max, min), min, bounds.maxLimit, "at least min"),
        (max) =>
          Settings.andThen(
            wholeIn(
              "concurrencyLimit.initial",
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
    return Settings.invalid("concurrencyLimit", "must be { limit, queue? } or { adaptive: true, ... }", input)
  }
  if (!("adaptive" in input))
    return Settings.andThen(Settings.optionsRecord("concurrencyLimit", input, fixedNames), fixedOf)
  if (input.adaptive !== true) {
    return Settings.invalid(
      "concurrencyLimit.adaptive",
      "must be true; for a fixed limit give { limit } alone",
      input.adaptive
    )
  }
  if ("limit" in input) {
    return Settings.invalid(
      "concurrencyLimit.limit",
      "is for a fixed limit: with adaptive: true, give initial, min and max",
      input.limit
    )
  }
  return Settings.andThen(Settings.optionsRecord("concurrencyLimit", input, adaptiveNames), adaptiveOf)
}
