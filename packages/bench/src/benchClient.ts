/**
 * What every client process shares, whichever Effect line (or none) its client is built on: the
 * interface a client implements, the attempt counter of the overload modes, and this library's
 * policy in each mode. Effect-free, so that the Effect 3 and the Effect 4 client processes both
 * import it (see `packages/bench-effect4`).
 */
import type { ClientMode, HedgingMode, LimitsMode, LimitsOutcome, LimitsRun, LimitsRunResult } from "./protocol.js"

export interface Batch {
  readonly urlFor: (index: number) => string
  readonly count: number
  readonly concurrency: number
  /** When present, the latency of call `i` in milliseconds is written at index `i`. */
  readonly latencies: Float64Array | undefined
  /** When present, call `i` starts no earlier than this many milliseconds after the batch. */
  readonly startAt?: ((index: number) => number) | undefined
}

export interface BatchOutcome {
  readonly ok: number
  readonly failed: number
}

export interface BenchClient {
  readonly runBatch: (batch: Batch) => Promise<BatchOutcome>
  readonly close: () => Promise<void>
  /** Attempts made so far (every request the library tried to send), when the mode counts them. */
  readonly attempts?: (() => number) | undefined
}

/**
 * The bookkeeping of one batch, whatever runs its calls: what succeeded and failed, each call's
 * latency, and the wait before a paced call starts. A failed call is counted, not thrown: the
 * retry benchmarks expect every call against a lasting 503 to fail.
 */
export const batchRecorder = (batch: Batch) => {
  const { latencies, startAt } = batch
  const batchStarted = performance.now()
  let ok = 0
  let failed = 0
  return {
    /** Milliseconds until call `index` may start (0 or less: now); absent when the batch is not paced. */
    waitBefore:
      startAt === undefined ? undefined : (index: number): number => batchStarted + startAt(index) - performance.now(),
    /** Records the end of call `index`, which started at `started` (`performance.now()`). */
    done: (index: number, started: number, succeeded: boolean): void => {
      if (succeeded) ok++
      else failed++
      if (latencies !== undefined) latencies[index] = performance.now() - started
    },
    outcome: (): BatchOutcome => ({ ok, failed })
  }
}

/** Whether a mode is one of the overload benchmarks', whose clients count their attempts. */
export const isOverloadMode = (mode: ClientMode): boolean => mode.startsWith("overload-")

/** A counter of attempts, ticked by the transport (or a hook) under the library's retries. */
export const attemptCounter = () => {
  let attempts = 0
  return {
    tick: (): void => {
      attempts++
    },
    read: (): number => attempts
  }
}

const indexCache = new Map<number, ReadonlyArray<number>>()

/** `[0, 1, …, count - 1]`, made once per count: what an Effect client's `forEach` runs over. */
export const indices = (count: number): ReadonlyArray<number> => {
  let cached = indexCache.get(count)
  if (cached === undefined) {
    cached = Array.from({ length: count }, (_, index) => index)
    indexCache.set(count, cached)
  }
  return cached
}

/**
 * The policy of a bench mode, as plain data both lines read: each line's `policyOptions` builds its
 * `RetryPolicy.Options` from it, each opt-in stage with its module's constructor.
 */
export interface PolicySpec {
  readonly retryBudget?: "none" | { readonly ratio: number }
  /** `CircuitBreaker.perOrigin(this)`: these options (none: Polly's defaults). */
  readonly circuitBreaker?: Record<string, never>
  /** `Hedging.after(delay)` or `Hedging.percentile(percentile)`. */
  readonly hedging?: { readonly delay: `${number} millis` } | { readonly percentile: number }
  /** `ConcurrencyLimit.fixed(limit)` or `ConcurrencyLimit.adaptive({ algorithm })`. */
  readonly concurrencyLimit?:
    | { readonly limit: number }
    | { readonly adaptive: true; readonly algorithm?: "gradient2" | "aimd" }
  /** `RateLimit.make(this)`. */
  readonly rateLimit?: { readonly limit: number; readonly window: `${number} seconds` }
  /** `RateLimit.fromHeaders()`. */
  readonly rateLimitHeaders?: true
}

/**
 * The shared-store bench's rate limit (issue #43): 2,000 calls a second, which 64 calls in flight
 * on the bench server exceed, so that calls wait for their turn, on Redis as in memory.
 */
export const sharedStoreRateLimit = { limit: 2_000, window: "1 seconds" } as const

/**
 * This library's policy in a mode: its defaults (made as a program would, with no options) on
 * the happy path, in the overload mode of that name and applied per call; without the budget, or with the default
 * circuit breaker as well (Polly's sampling defaults), in the other overload modes. In `"retry"`
 * mode, whose benchmarks make every call fail at least once, a budget that never runs dry
 * (Finagle's, ratio 1000): every retry is made and still pays the budget's bookkeeping.
 */
export const policyFor = (mode: ClientMode): PolicySpec | undefined => {
  switch (mode) {
    case "happy":
    case "happy-control":
    case "happy-redis":
      return undefined
    case "rate-limited":
    case "rate-limited-redis":
      return { rateLimit: sharedStoreRateLimit }
    case "retry":
      return { retryBudget: { ratio: 1000 } }
    case "overload-default":
    case "overload-per-call":
      return {}
    case "overload-no-budget":
      return { retryBudget: "none" }
    case "overload-breaker":
      return { circuitBreaker: {} }
  }
}

/**
 * A hedging client process's client, on either line: the configuration's client, and the delays
 * of the hedges it sent (its `Hedge` decisions, the only figure read from the library).
 */
export interface HedgingClient {
  readonly client: BenchClient
  /** The delays of the hedges sent since the last call, in milliseconds, in the order they went. */
  readonly takeHedgeDelays: () => Array<number>
}

/** Where a line's decision observer writes each hedge's delay, and the bench takes them from. */
export const hedgeDelayRecorder = () => {
  let delays: Array<number> = []
  return {
    record: (millis: number): void => {
      delays.push(millis)
    },
    take: (): Array<number> => {
      const taken = delays
      delays = []
      return taken
    }
  }
}

/** The hedging section's fixed delays, in milliseconds. */
export const hedgingDelays = {
  /** The Tail at Scale's: BigTable sent a second copy of a request outstanding for 10 ms. */
  anchorMillis: 10,
  /**
   * The 95th percentile of the section's distribution as the server waits: exactly 95% of its
   * requests wait 5 ms, so the p95 is the typical latency itself (see `distributionPercentile`).
   */
  p95Millis: 5
} as const

/**
 * This library's policy in each configuration of the hedging section: its defaults but for
 * `hedging` (2 copies at most, the default) and, in all but `percentile-budget`, no retry budget,
 * so that nothing but the delay decides whether a hedge goes.
 */
export const hedgingPolicyFor = (mode: HedgingMode): PolicySpec => {
  switch (mode) {
    case "off":
      return { retryBudget: "none" }
    case "fixed-10ms":
      return { retryBudget: "none", hedging: { delay: `${hedgingDelays.anchorMillis} millis` } }
    case "fixed-p95":
      return { retryBudget: "none", hedging: { delay: `${hedgingDelays.p95Millis} millis` } }
    case "percentile":
      return { retryBudget: "none", hedging: { percentile: 95 } }
    case "percentile-budget":
      return { hedging: { percentile: 95 } }
  }
}

/** The limits section's rate-limited route: 10 requests per 1 s window (a client `rateLimit` equal to it). */
export const rateLimitRoute = { limit: 10, windowSeconds: 1 } as const

/**
 * This library's policy in each row of the limits section: its defaults (retries and budget on)
 * but for the option the row is about. The concurrency limits keep the default queue (0), so a
 * call beyond the limit is refused at once, unsent: shedding the excess at the client is what a
 * limit is for.
 */
export const limitsPolicyFor = (mode: LimitsMode): PolicySpec => {
  const rateLimit = { limit: rateLimitRoute.limit, window: `${rateLimitRoute.windowSeconds} seconds` } as const
  switch (mode) {
    case "none":
      return {}
    case "fixed-32":
      return { concurrencyLimit: { limit: 32 } }
    case "adaptive-gradient2":
      return { concurrencyLimit: { adaptive: true } }
    case "adaptive-aimd":
      return { concurrencyLimit: { adaptive: true, algorithm: "aimd" } }
    case "rate-limit-headers":
      return { rateLimitHeaders: true }
    case "rate-limit":
      return { rateLimit }
    case "rate-limit-and-headers":
      return { rateLimit, rateLimitHeaders: true }
  }
}

/**
 * The bookkeeping of a limits run's closed loop, whatever runs its calls: whether a caller starts
 * another call, and each call's end, latency and outcome. Times are ms since the epoch
 * (`performance.timeOrigin + performance.now()`), so that the parent can place them against its
 * own clock (the capacity drop) across processes.
 */
export const closedLoopRecorder = (run: LimitsRun) => {
  const now = (): number => performance.timeOrigin + performance.now()
  const startedAt = now()
  const calls: Array<LimitsRunResult["calls"][number]> = []
  let issued = 0
  return {
    now,
    /** Whether a caller starts another call; counts it if so. */
    next: (): boolean => {
      const go =
        (run.count === undefined || issued < run.count) &&
        (run.untilMillis === undefined || now() - startedAt < run.untilMillis)
      if (go) issued++
      return go
    },
    /** Records the end of a call that started at `started` (from {@link now}). */
    done: (started: number, outcome: LimitsOutcome): void => {
      const endedAt = now()
      calls.push({ endedAt, millis: endedAt - started, outcome })
    },
    result: (): LimitsRunResult => ({ startedAt, calls })
  }
}
