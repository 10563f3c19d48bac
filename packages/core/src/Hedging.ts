/**
 * Hedged requests without Effect: the `hedging` option checked and resolved, a per-origin window
 * of recent latencies that learns the delay at a percentile, and the delay a call waits before
 * its next copy (when copies go is `HedgeRace`'s). Times are a monotonic clock's milliseconds.
 *
 * The anchors: Finagle's `BackupRequestFilter` sends its backup at a latency percentile read
 * from a windowed histogram (30 s, refreshed every 3 s, never sooner than 1 ms); Polly hedges
 * once, after 2 s, by default; gRPC A6 caps hedging at 5 attempts, and its `hedgingDelay` of 0
 * sends them all at once.
 *
 * @example
 * ```ts
 * import type { Hedging } from "@effect-http-resilience/core"
 *
 * const fixed: Hedging.Input = { delayMillis: 200 }
 * const learnt: Hedging.Input = { percentile: 95, floorMillis: 10, fallbackMillis: 500, maxCopies: 3 }
 * ```
 *
 * @since 0.2.0
 */
import { OriginTable } from "./Origin.js"
import * as Settings from "./Settings.js"

// ---------------------------------------------------------------------------------------------
// Settings

/**
 * The `hedging` option in milliseconds, as a line passes it once it has read its durations: a
 * fixed delay, or a percentile of the origin's recent latencies with a floor and a fallback; and
 * how many copies at most (the first included).
 *
 * @since 0.2.0
 * @category models
 */
export type Input = (
  | { readonly delayMillis: number }
  | {
      readonly percentile: number
      readonly floorMillis?: number | undefined
      readonly fallbackMillis?: number | undefined
    }
) & { readonly maxCopies?: number | undefined }

/**
 * How long a call waits before its next copy: always the same, or learnt per origin.
 *
 * @since 0.2.0
 * @category models
 */
export type Delay =
  | { readonly _tag: "Fixed"; readonly millis: number }
  | {
      readonly _tag: "Percentile"
      /** In (0, 100]. */
      readonly percentile: number
      /** The delay is never shorter, learnt or not. */
      readonly floorMillis: number
      /** The delay until the origin's window holds enough samples. */
      readonly fallbackMillis: number
    }

/**
 * The `hedging` option checked, its defaults applied.
 *
 * @since 0.2.0
 * @category models
 */
export interface Resolved {
  /** At most this many copies of a call, the first included; from 1 (no hedge) to 5. */
  readonly maxCopies: number
  readonly delay: Delay
}

/**
 * The defaults, in milliseconds, and why:
 *
 * - `maxCopies` 2: the first copy and one hedge, as Polly's one hedged attempt.
 * - `floorMillis` 1: Finagle's `minSendBackupAfterMs`; an origin that answers in microseconds
 *   (a cache) would otherwise have every copy sent at once, and timers count whole milliseconds.
 * - `fallbackMillis` 2000: Polly's default hedging delay. While an origin's latencies are unknown
 *   only calls slow by any measure are hedged (Finagle sends no backup before its first refresh);
 *   a short fallback would double the load on a slow origin just when nothing is known of it.
 *
 * @since 0.2.0
 * @category defaults
 */
export const defaults = { maxCopies: 2, floorMillis: 1, fallbackMillis: 2000 } as const

/**
 * The most copies a call may have: 5, as gRPC A6 caps a hedging policy's `maxAttempts`.
 *
 * @since 0.2.0
 * @category constants
 */
export const maxCopiesLimit = 5

const maxCopiesOf = (value: unknown): Settings.Checked<number> => {
  const option = "hedging.maxCopies"
  if (Number.isNaN(value)) return Settings.invalid(option, "is not a number", value)
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 && value <= maxCopiesLimit
    ? Settings.valid(value)
    : Settings.invalid(
        option,
        `must be a whole number from 1 to ${maxCopiesLimit}: it counts the first copy (1 sends no hedge), and gRPC A6 caps hedging at ${maxCopiesLimit} attempts`,
        value
      )
}

// 0 is refused: the fastest latency seen would hedge nearly every call; delay 0 says "all at once" plainly.
const percentileOf = (value: unknown): Settings.Checked<number> => {
  const option = "hedging.delay.percentile"
  if (Number.isNaN(value)) return Settings.invalid(option, "is not a number", value)
  return typeof value === "number" && value > 0 && value <= 100
    ? Settings.valid(value)
    : Settings.invalid(
        option,
        "must be a number above 0 and at most 100 (95 hedges about the slowest 5% of calls); to send every copy at once, use delay: 0",
        value
      )
}

// The same reasons as Settings.duration gives, for milliseconds a line has already read.
const millisOf = (option: string, value: unknown): Settings.Checked<number> => {
  if (typeof value !== "number" || Number.isNaN(value)) return Settings.invalid(option, "is not a duration", value)
  if (value < 0) return Settings.invalid(option, "must not be negative", value)
  if (!Number.isFinite(value)) return Settings.invalid(option, "must be finite", value)
  return Settings.valid(value)
}

const percentileDelay = (
  percentile: unknown,
  floorMillis: Settings.Checked<number>,
  fallbackMillis: Settings.Checked<number>
): Settings.Checked<Delay> =>
  Settings.andThen(
    Settings.all({ percentile: percentileOf(percentile), floorMillis, fallbackMillis }),
    (delay): Settings.Checked<Delay> => Settings.valid({ _tag: "Percentile", ...delay })
  )

const withMaxCopies = (delay: Settings.Checked<Delay>, maxCopies: unknown): Settings.Checked<Resolved> =>
  Settings.andThen(delay, (checked) =>
    Settings.andThen(
      maxCopiesOf(maxCopies === undefined ? defaults.maxCopies : maxCopies),
      (copies): Settings.Checked<Resolved> => Settings.valid({ maxCopies: copies, delay: checked })
    )
  )

/**
 * Checks the `hedging` option in milliseconds and applies its defaults; a bad value is named as
 * users write it (`hedging.maxCopies`, `hedging.delay`, `hedging.delay.percentile`,
 * `hedging.delay.floor`, `hedging.delay.fallback`), the delay first. A floor above the fallback is
 * fine: the fallback then reads as the floor.
 *
 * @since 0.2.0
 * @category checks
 */
export const resolve = (input: Input): Settings.Checked<Resolved> => {
  const delay: Settings.Checked<Delay> =
    "delayMillis" in input
      ? Settings.andThen(millisOf("hedging.delay", input.delayMillis), (millis) =>
          Settings.valid({ _tag: "Fixed", millis })
        )
      : percentileDelay(
          input.percentile,
          input.floorMillis === undefined
            ? Settings.valid(defaults.floorMillis)
            : millisOf("hedging.delay.floor", input.floorMillis),
          input.fallbackMillis === undefined
            ? Settings.valid(defaults.fallbackMillis)
            : millisOf("hedging.delay.fallback", input.fallbackMillis)
        )
  return withMaxCopies(delay, input.maxCopies)
}

const finiteDuration: Settings.DurationConstraints = { allowInfinite: false, allowZero: true }

const durationOr = <D>(
  codec: Settings.DurationCodec<D>,
  option: string,
  input: unknown,
  fallbackMillis: number
): Settings.Checked<number> =>
  input === undefined
    ? Settings.valid(fallbackMillis)
    : Settings.andThen(Settings.duration(codec, option, input, finiteDuration), (duration) =>
        Settings.valid(codec.toMillis(duration))
      )

const delayOf = <D>(codec: Settings.DurationCodec<D>, input: unknown): Settings.Checked<Delay> => {
  if (input === undefined) {
    return Settings.invalid(
      "hedging.delay",
      "is required: a duration, or { percentile } to learn it from each origin's latencies",
      input
    )
  }
  // A record that is no duration is read as the percentile form, so a misspelt key is named.
  if (Settings.isPlainObject(input) && ("percentile" in input || codec.decode(input) === undefined)) {
    return Settings.andThen(
      Settings.optionsRecord("hedging.delay", input, ["percentile", "floor", "fallback"]),
      (given) =>
        percentileDelay(
          given.percentile,
          durationOr(codec, "hedging.delay.floor", given.floor, defaults.floorMillis),
          durationOr(codec, "hedging.delay.fallback", given.fallback, defaults.fallbackMillis)
        )
    )
  }
  return Settings.andThen(
    Settings.duration(codec, "hedging.delay", input, finiteDuration),
    (duration): Settings.Checked<Delay> => Settings.valid({ _tag: "Fixed", millis: codec.toMillis(duration) })
  )
}

/**
 * Checks the `hedging` option as users write it, durations in the library's own type:
 * `{ delay, maxCopies? }`, `delay` a duration or `{ percentile, floor?, fallback? }`. `undefined`
 * is hedging off. Misspelt keys are named (`hedging.delay.flor`), values as given; the checks and
 * messages are {@link resolve}'s.
 *
 * @since 0.2.0
 * @category checks
 */
export const check = <D>(input: unknown, codec: Settings.DurationCodec<D>): Settings.Checked<Resolved | undefined> => {
  if (input === undefined) return Settings.valid(undefined)
  if (!Settings.isPlainObject(input)) {
    return Settings.invalid("hedging", "must be an options object such as { delay: ... }", input)
  }
  return Settings.andThen(Settings.optionsRecord("hedging", input, ["delay", "maxCopies"]), (given) =>
    withMaxCopies(delayOf(codec, given.delay), given.maxCopies)
  )
}

// ---------------------------------------------------------------------------------------------
// The latency window: a log-linear histogram per slice of time.
//
// Latencies are counted in units of 1/8 ms. Below 32 units (4 ms) every unit has its own bucket;
// above, each power of two [2^e, 2^(e+1)) is cut into 16 equal buckets, so a bucket spans at most
// 1/16 of its lower bound and its midpoint is within 1/32 of any value in it.

const unitsPerMilli = 8
const subBucketBits = 4
const subBuckets = 1 << subBucketBits

const maxLatency = 60_000

// Units below 2 * subBuckets are their own bucket; above, a band's 16 buckets follow the last.
const bucketOfUnits = (units: number): number => {
  if (units < 2 * subBuckets) return units
  const shift = 31 - Math.clz32(units) - subBucketBits
  return shift * subBuckets + (units >>> shift)
}

const bucketOf = (latencyMillis: number): number =>
  bucketOfUnits(Math.floor(Math.min(Math.max(latencyMillis, 0), maxLatency) * unitsPerMilli))

/** The midpoint of a bucket, in milliseconds, kept within the clamp. */
const estimateOf = (bucket: number): number => {
  const shift = Math.max(0, Math.floor(bucket / subBuckets) - 1)
  const lower = shift === 0 ? bucket : ((bucket % subBuckets) + subBuckets) << shift
  return Math.min((lower + (1 << shift) / 2) / unitsPerMilli, maxLatency)
}

/**
 * The latency histogram's shape: latencies are clamped to [0, 60 s] and counted in 254
 * log-linear buckets, so a percentile read from it is within 1/32 (3.125%) of the exact sample
 * percentile, or within 1/16 ms below 2 ms.
 *
 * @since 0.2.0
 * @category constants
 */
export const histogram = {
  maxLatencyMillis: maxLatency,
  bucketCount: bucketOf(maxLatency) + 1,
  relativeError: 1 / (2 * subBuckets),
  absoluteErrorMillis: 1 / (2 * unitsPerMilli)
} as const

/**
 * The latency window's defaults, and why:
 *
 * - `spanMillis` 30 s, as Finagle's windowed histogram, in `slices` 10 of 3 s (Finagle refreshes
 *   every 3 s): a sample counts for at least 27 s and less than 30 s, and the window drops a tenth
 *   of itself at a time rather than Finagle's third.
 * - `minSamples` 20: until then a single slow call would be the 95th percentile; with few samples
 *   a high percentile reads as the slowest call, which errs toward hedging less.
 * - `maxOrigins` 1000: a window holds about 11 KB whatever its traffic (254 counters for each
 *   slice and for their sum), so 1000 origins hold about 11 MB; an evicted origin waits the
 *   fallback until it is learnt again.
 *
 * @since 0.2.0
 * @category defaults
 */
export const windowDefaults = { spanMillis: 30_000, slices: 10, minSamples: 20, maxOrigins: 1000 } as const

const sliceCount = windowDefaults.slices
const sliceMillis = windowDefaults.spanMillis / windowDefaults.slices
const bucketCount = histogram.bucketCount

/**
 * One origin's recent latencies, Finagle-like: a log-linear histogram (see {@link histogram}) for
 * each of 10 slices of 3 s, aligned to the clock, and their running sum. A sample counts until its
 * slice is 10 slices old: at least 27 s, less than 30 s. Memory is constant whatever is recorded.
 *
 * The lines record each copy that got a response (of any status) and each that timed out (its
 * time limit, a lower bound); not a copy interrupted because another won (how long it would have
 * taken is unknown) nor a fast failure without an answer, which would pull the percentile down.
 *
 * @since 0.2.0
 * @category constructors
 */
export class LatencyWindow {
  /** Samples needed in the window before {@link LatencyWindow.percentile} answers; at least 1. */
  readonly minSamples: number
  // Slice by slice, bucketCount counters each; slice s of the clock lives at s mod sliceCount.
  private readonly counts = new Uint32Array(sliceCount * bucketCount)
  private readonly sliceSamples = new Uint32Array(sliceCount)
  private readonly total = new Uint32Array(bucketCount)
  private samples = 0
  /** The clock's slice being written: floor(now / sliceMillis). */
  private currentSlice = Number.NEGATIVE_INFINITY

  constructor(options: { readonly minSamples?: number | undefined } = {}) {
    this.minSamples = Math.max(1, options.minSamples ?? windowDefaults.minSamples)
  }

  /** Counts a call's latency, clamped to [0, 60 s]; NaN (or a NaN clock) is ignored. */
  record(latencyMillis: number, nowMillis: number): void {
    if (Number.isNaN(latencyMillis) || !Number.isFinite(nowMillis)) return
    this.advance(nowMillis)
    const bucket = bucketOf(latencyMillis)
    const position = positionOf(this.currentSlice)
    const at = position * bucketCount + bucket
    this.counts[at] = (this.counts[at] ?? 0) + 1
    this.total[bucket] = (this.total[bucket] ?? 0) + 1
    this.sliceSamples[position] = (this.sliceSamples[position] ?? 0) + 1
    this.samples++
  }

  /**
   * The `p`th percentile (nearest rank) of the window's latencies, in milliseconds, or
   * `undefined` while it holds fewer than `minSamples`. `p` outside (0, 100] reads as its
   * nearest end.
   */
  percentile(p: number, nowMillis: number): number | undefined {
    this.advance(nowMillis)
    if (this.samples < this.minSamples) return undefined
    // At least the first: a tiny p times a few samples can round to rank 0.
    const rank = p > 0 ? Math.min(this.samples, Math.max(1, Math.ceil((p * this.samples) / 100))) : 1
    let seen = 0
    for (let bucket = 0; bucket < bucketCount; bucket++) {
      seen += this.total[bucket] ?? 0
      if (seen >= rank) return estimateOf(bucket)
    }
    return maxLatency
  }

  /** How many samples the window holds now. */
  count(nowMillis: number): number {
    this.advance(nowMillis)
    return this.samples
  }

  /** Whether the window holds nothing now, and so is no different from a fresh one. */
  isEmpty(nowMillis: number): boolean {
    return this.count(nowMillis) === 0
  }

  /** How many counters the window keeps: the same from its first call to its last. */
  get countersHeld(): number {
    return this.counts.length + this.sliceSamples.length + this.total.length
  }

  private advance(nowMillis: number): void {
    const slice = Math.floor(nowMillis / sliceMillis)
    // The same slice, or a clock that went back: keep writing the current one.
    if (!(slice > this.currentSlice)) return
    if (slice - this.currentSlice >= sliceCount) {
      if (this.samples > 0) this.clearAll()
    } else {
      for (let passed = this.currentSlice + 1; passed <= slice; passed++) this.clearSlice(positionOf(passed))
    }
    this.currentSlice = slice
  }

  private clearSlice(position: number): void {
    const inSlice = this.sliceSamples[position] ?? 0
    if (inSlice === 0) return
    const start = position * bucketCount
    for (let bucket = 0; bucket < bucketCount; bucket++) {
      const count = this.counts[start + bucket] ?? 0
      if (count === 0) continue
      this.total[bucket] = (this.total[bucket] ?? 0) - count
      this.counts[start + bucket] = 0
    }
    this.sliceSamples[position] = 0
    this.samples -= inSlice
  }

  private clearAll(): void {
    this.counts.fill(0)
    this.sliceSamples.fill(0)
    this.total.fill(0)
    this.samples = 0
  }
}

const positionOf = (slice: number): number => ((slice % sliceCount) + sliceCount) % sliceCount

/**
 * A latency window per origin, bounded as core's other tables: at most `maxOrigins` (1000 by
 * default, see {@link windowDefaults}), the least recently used evicted past it; a window that has
 * emptied (no call for 30 s) is dropped at the next sweep, since a fresh one is the same.
 *
 * @since 0.2.0
 * @category constructors
 */
export const makeLatencyTable = (
  options: { readonly maxOrigins?: number | undefined; readonly minSamples?: number | undefined } = {}
): OriginTable<LatencyWindow> =>
  new OriginTable(
    () => new LatencyWindow({ minSamples: options.minSamples }),
    (window, nowMillis) => window.isEmpty(nowMillis),
    { maxOrigins: options.maxOrigins ?? windowDefaults.maxOrigins }
  )

// ---------------------------------------------------------------------------------------------
// The delay

/**
 * How long a call waits before its next copy: the fixed delay; or the origin's latency at the
 * percentile once its window holds enough samples, else the fallback, never below the floor.
 * `window` is `undefined` when the origin has none yet.
 *
 * @since 0.2.0
 * @category delays
 */
export const delayMillis = (
  settings: { readonly delay: Delay },
  window: LatencyWindow | undefined,
  nowMillis: number
): number => {
  const delay = settings.delay
  if (delay._tag === "Fixed") return delay.millis
  const learnt = window?.percentile(delay.percentile, nowMillis)
  return Math.max(delay.floorMillis, learnt ?? delay.fallbackMillis)
}
