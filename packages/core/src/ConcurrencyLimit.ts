/**
 * A concurrency limit per origin (a bulkhead): at most `limit` attempts in flight and at most `queue` waiting,
 * as accounting with no I/O and no timers (the line parks waiters and wakes those this module grants); and an
 * adaptive limit, learnt from each attempt's sample as Netflix's concurrency-limits does, by AIMD or Gradient2,
 * as pure updates of plain state.
 *
 * The formulas, after concurrency-limits' and TCP's (a sample is an attempt's RTT, the attempts in flight when
 * it was sent, and whether it was dropped: a `429`, a `503`, a timeout; the lines leave out any other failure,
 * which says nothing of the server's capacity). As concurrency-limits' `WindowedLimit` does, the limit moves
 * once per window of samples: a window closes once it spans twice its shortest RTT and holds 10 samples, or at
 * once on a drop of an attempt sent within it under the limit in force (one sent before it, or with more in
 * flight than the limit allows, was sent under an earlier limit, which answered for it). Per window:
 *
 * ```text
 * both, on a drop or an rtt > 5 s:
 *   flight = min(limit, maxInFlight)             -- over this window and the last: TCP cuts its flight size
 *   served = answered RTTs summed / time         -- over this window and the last: Little's law
 *   limit  = max(1, min(flight - 1, floor(max(flight * 0.5, served))))
 *   ceiling = flight                             -- where the server shed
 * both, slow start (until the first cut): a window that filled the limit doubles it
 * both, growth below the ceiling: at least halfway to it per window (BIC); within one of it, by
 *   1 / ceiling per window (CUBIC's plateau: each probe past a server that sheds at once costs 503s)
 *
 * AIMD (AIMDLimit): if maxInFlight * 2 >= limit:  limit = limit + 1
 *
 * Gradient2 (Gradient2Limit), the estimate a real number, the limit its floor:
 *   short = the window's shortest RTT            -- a busy client delays some answers; a queue, all
 *   ema   = mean of the first 10 windows' short, then ema * (1 - 2/601) + short * 2/601
 *   if ema / short > 2:  ema = ema * 0.95        -- recover quickly after a long overload
 *   long  = min(ema, baseline)                   -- baseline: the origin's usual RTT, when known
 *   slow start ends once short > long * 1.125    -- HyStart's delay test
 *   if maxInFlight < estimate / 2: unchanged      -- the caller, not the server, limits
 *   gradient = max(0.5, min(1, long / short))    -- 1 when short is 0: no queueing seen (only then halfway)
 *   estimate = estimate * 0.8 + (estimate * gradient + 4) * 0.2
 * ```
 *
 * A server that sheds at once beyond its capacity gives no latency to learn from: its 503s, and what it served
 * meanwhile, say how much it takes. Both keep the limit within `[min, max]`. The lines give as baseline the
 * median of the origin's latency window (hedging's, 30 s): an average of 600 windows drifts up with a queue
 * that lasts, until it reads as normal.
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
 * The constants of both algorithms. concurrency-limits' defaults: the RTT past which a sample counts as
 * dropped; Gradient2's smoothing, the queue it allows (4), the long RTT's window (600 windows) and warm-up
 * (10); the sampling window (`WindowedLimit`'s): at least 10 samples and twice the window's shortest RTT. But
 * Gradient2's RTT tolerance: 1, not its 1.5, which would let latency rise by half before the limit comes down.
 * TCP's: a drop cuts by half at most (`dropCut`; concurrency-limits' 0.9 takes a dozen round trips of 503s to
 * follow a server that sheds at once), and slow start ends at a rise of the shortest RTT by an eighth
 * (HyStart's delay test, `slowStartRttRise`).
 *
 * @since 0.2.0
 * @category defaults
 */
export const algorithmDefaults = {
  aimd: { timeoutMillis: 5000 },
  gradient2: { smoothing: 0.2, queueSize: 4, longWindow: 600, warmup: 10, rttTolerance: 1 },
  window: { minSamples: 10, rttMultiple: 2 },
  dropCut: 0.5,
  slowStartRttRise: 1.125
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
  /** The previous window's start and answered RTTs: what the server served at once is read over both. */
  readonly earlierStartedAtMillis: number
  readonly earlierRttSumMillis: number
  /** The previous window's most in flight (infinite before the first): a drop closes a window at once. */
  readonly earlierMaxInFlight: number
}

/**
 * An adaptive limit's state: AIMD's limit, or Gradient2's estimate and long RTT (with its warm-up); both with
 * the window of samples being filled, and whether they are still in slow start.
 *
 * @since 0.2.0
 * @category models
 */
export type AdaptiveState =
  | {
      readonly _tag: "Aimd"
      readonly limit: number
      /** Doubling per window the caller fills, until the first cut (TCP's slow start). */
      readonly slowStart: boolean
      /** What was in flight at the last drop (infinite before one): the limit probes past it slowly. */
      readonly ceiling: number
      readonly window: SampleWindow
    }
  | {
      readonly _tag: "Gradient2"
      readonly estimate: number
      readonly longRttMillis: number
      /** Windows averaged so far, up to the warm-up. */
      readonly longSamples: number
      /** Doubling per window the caller fills, until the first cut or rise of latency. */
      readonly slowStart: boolean
      /** What was in flight at the last drop (infinite before one): the limit probes past it slowly. */
      readonly ceiling: number
      readonly window: SampleWindow
    }

type Gradient2State = Extract<AdaptiveState, { _tag: "Gradient2" }>

const emptyWindow = (startedAtMillis: number, earlier: SampleWindow | undefined): SampleWindow => ({
  startedAtMillis,
  samples: 0,
  answered: 0,
  rttSumMillis: 0,
  minRttMillis: Number.POSITIVE_INFINITY,
  maxInFlight: 0,
  dropped: false,
  earlierMinRttMillis: earlier === undefined ? Number.POSITIVE_INFINITY : answeredMinRtt(earlier),
  earlierStartedAtMillis: earlier?.startedAtMillis ?? startedAtMillis,
  earlierRttSumMillis: earlier?.rttSumMillis ?? 0,
  earlierMaxInFlight: earlier?.maxInFlight ?? Number.POSITIVE_INFINITY
})

/**
 * An adaptive limit at its start.
 *
 * @since 0.2.0
 * @category constructors
 */
export const initialState = (algorithm: Algorithm, bounds: Bounds): AdaptiveState => {
  const window = emptyWindow(Number.NEGATIVE_INFINITY, undefined)
  const start = { slowStart: true, ceiling: Number.POSITIVE_INFINITY, window }
  return algorithm === "aimd"
    ? { _tag: "Aimd", limit: bounds.initial, ...start }
    : { _tag: "Gradient2", estimate: bounds.initial, longRttMillis: 0, longSamples: 0, ...start }
}

const within = (bounds: Bounds, limit: number): number => Math.max(bounds.min, Math.min(bounds.max, limit))

// A drop of an attempt sent before the window began, or with more in flight than the limit now
// allows, was sent under an earlier limit: the cut that set this one answered for it.
const added = (window: SampleWindow, sample: Sample, limit: number): SampleWindow => {
  const sentAtMillis = sample.endedAtMillis - sample.rttMillis
  const startedAtMillis = Number.isFinite(window.startedAtMillis) ? window.startedAtMillis : sentAtMillis
  const answered = !sample.dropped
  const dropped =
    (sample.dropped || sample.rttMillis > algorithmDefaults.aimd.timeoutMillis) &&
    sentAtMillis >= startedAtMillis &&
    sample.inFlight <= limit
  return {
    startedAtMillis,
    samples: window.samples + 1,
    answered: window.answered + (answered ? 1 : 0),
    rttSumMillis: window.rttSumMillis + (answered ? sample.rttMillis : 0),
    minRttMillis: answered ? Math.min(window.minRttMillis, sample.rttMillis) : window.minRttMillis,
    maxInFlight: Math.max(window.maxInFlight, sample.inFlight),
    dropped: window.dropped || dropped,
    earlierMinRttMillis: window.earlierMinRttMillis,
    earlierStartedAtMillis: window.earlierStartedAtMillis,
    earlierRttSumMillis: window.earlierRttSumMillis,
    earlierMaxInFlight: window.earlierMaxInFlight
  }
}

// The shortest RTT answered, in this window or else an earlier one: shed answers come back fast,
// and their RTT is no round trip's.
const answeredMinRtt = (window: SampleWindow): number =>
  window.answered > 0 ? window.minRttMillis : window.earlierMinRttMillis

const finiteOr = (value: number, otherwise: number): number => (Number.isFinite(value) ? value : otherwise)

// A window closes once it spans twice its shortest RTT and holds enough samples; at once on a drop
// of an attempt sent within it, under the limit it has: a server that sheds at once beyond its
// capacity frees the place at once, and each round trip of waiting would shed another caller there.
const isComplete = (window: SampleWindow, sample: Sample): boolean => {
  if (window.dropped) return true
  const { minSamples, rttMultiple } = algorithmDefaults.window
  const answered = answeredMinRtt(window)
  const shortest = Number.isFinite(answered) ? answered : sample.rttMillis
  return window.samples >= minSamples && sample.endedAtMillis - window.startedAtMillis >= rttMultiple * shortest
}

/**
 * The cut a window with a drop makes: to what the server served at once over the window (Little's law: the
 * answered RTTs summed over the window's span), at most one below and at least half of what was in flight
 * (TCP's flight size, RFC 5681: a limit grown past the demand would take round trips of drops to come down).
 * A server that sheds at once beyond its capacity gives no latency to learn from: its 503s say how much it
 * took, and a cut by a tenth would take a dozen round trips of 503s to get there.
 */
const cutFrom = (
  bounds: Bounds,
  limit: number,
  window: SampleWindow,
  endedAtMillis: number
): { readonly limit: number; readonly ceiling: number; readonly slowStart: false } => {
  // Over this window and the one before: a window a drop closed may span a moment, and hold one sample.
  const flight = Math.min(limit, Math.max(window.maxInFlight, window.earlierMaxInFlight))
  // Over a round trip at least: answers that end within a moment of each other say nothing of a rate.
  const spanMillis = Math.max(endedAtMillis - window.earlierStartedAtMillis, finiteOr(answeredMinRtt(window), 0))
  const served = spanMillis > 0 ? (window.rttSumMillis + window.earlierRttSumMillis) / spanMillis : 0
  const cut = Math.max(1, Math.min(flight - 1, Math.floor(Math.max(flight * algorithmDefaults.dropCut, served))))
  return { limit: within(bounds, cut), ceiling: flight, slowStart: false }
}

// Growth towards the last drop's flight, the ceiling (BIC's binary search, CUBIC's plateau): below it, at
// least halfway there per window while nothing says the server is full; within one of it, one over as many
// windows, as a server that sheds at once answers each probe past it with a 503 (and its caller's retries
// with more); past it, as the algorithm says.
const probed = (current: number, next: number, ceiling: number, free: boolean): number => {
  if (next <= current || current >= ceiling || !Number.isFinite(ceiling)) return next
  if (current >= ceiling - 1) return Math.min(next, current + 1 / ceiling)
  return free ? Math.max(next, Math.floor(current + (ceiling - current) / 2)) : next
}

// Slow start doubles only a limit the caller fills: one it never reached says nothing of the server.
const grown = (bounds: Bounds, limit: number): number => within(bounds, limit * 2)

const aimd = (
  bounds: Bounds,
  state: Extract<AdaptiveState, { _tag: "Aimd" }>,
  window: SampleWindow,
  endedAtMillis: number
): Pick<Extract<AdaptiveState, { _tag: "Aimd" }>, "limit" | "slowStart" | "ceiling"> => {
  const { limit, slowStart, ceiling } = state
  if (window.dropped) return cutFrom(bounds, limit, window, endedAtMillis)
  if (slowStart && window.maxInFlight >= limit) return { limit: grown(bounds, limit), slowStart, ceiling }
  const next = window.maxInFlight * 2 >= limit ? within(bounds, limit + 1) : limit
  return { limit: probed(limit, next, ceiling, true), slowStart, ceiling }
}

const longRttAfter = (state: Gradient2State, rtt: number) => {
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
  state: Gradient2State,
  window: SampleWindow,
  endedAtMillis: number,
  baselineRttMillis: (() => number | undefined) | undefined
): Omit<Gradient2State, "window"> => {
  // A shed answer comes back fast and would read as a healthy server: a drop cuts, as AIMD's does.
  if (window.dropped) {
    const { limit, ...cut } = cutFrom(bounds, state.estimate, window, endedAtMillis)
    return { ...state, ...cut, estimate: limit }
  }
  if (window.answered === 0) return state
  const { smoothing, queueSize, rttTolerance } = algorithmDefaults.gradient2
  // The window's shortest RTT: a busy client adds its own delays to some answers (its event loop, its
  // GC), which a mean reads as queueing; a queue at the server delays every answer of the window.
  const short = window.minRttMillis
  const ema = longRttAfter(state, short)
  if (short > 0 && ema.longRttMillis / short > 2) ema.longRttMillis *= 0.95
  // The average drifts up with a queue that lasts; the median of the last 30 s, slower.
  const baseline = baselineRttMillis?.()
  const long = baseline === undefined ? ema.longRttMillis : Math.min(ema.longRttMillis, baseline)
  const gradient = short > 0 ? Math.max(0.5, Math.min(1, (rttTolerance * long) / short)) : 1
  // Slow start ends at the first drop, or a clear rise of latency (HyStart's test: the window's shortest
  // RTT an eighth over the long one), not at the noise of a busy client on a few windows' average.
  const slowStart = state.slowStart && short <= long * algorithmDefaults.slowStartRttRise
  if (slowStart && window.maxInFlight >= Math.floor(state.estimate)) {
    return { ...state, ...ema, estimate: grown(bounds, state.estimate) }
  }
  if (window.maxInFlight < state.estimate / 2) return { ...state, ...ema, slowStart }
  const proposed = state.estimate * gradient + queueSize
  const next = within(bounds, state.estimate * (1 - smoothing) + proposed * smoothing)
  const estimate = probed(state.estimate, next, state.ceiling, gradient === 1)
  return { ...state, ...ema, estimate, slowStart }
}

/**
 * The state after one sample: the sample joins the window, and a window complete moves the limit
 * once, from its samples (both: a drop cuts to what the server served at once, at least by one and
 * at most by half; slow start doubles a limit the caller fills until the first cut; then AIMD adds
 * one per window that used half of the limit, Gradient2 follows the gradient of the window's shortest
 * RTT). A sample whose RTT is not a number, or negative, teaches nothing. `baselineRttMillis` gives,
 * when known, the origin's usual RTT (the median of its latency window): Gradient2 reads the lower of
 * it and its own long average as its long RTT, asked only when a window closes.
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
  const window = added(state.window, sample, limitOf(state))
  if (!isComplete(window, sample)) return { ...state, window }
  const next = emptyWindow(sample.endedAtMillis, window)
  return state._tag === "Aimd"
    ? { _tag: "Aimd", ...aimd(bounds, state, window, sample.endedAtMillis), window: next }
    : { ...gradient2(bounds, state, window, sample.endedAtMillis, baselineRttMillis), window: next }
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
