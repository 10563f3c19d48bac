/** How big each benchmark is, for the full run and for `--quick`. */
import { libraries } from "./clients.js"
import type { LibraryId } from "./protocol.js"

const allLibraries = libraries.map((library) => library.id)

export interface HappyPathConfig {
  readonly rounds: number
  /** Per library and concurrency, per round; `rounds × requestsPerRound` requests are measured. */
  readonly requestsPerRound: number
  readonly warmupRequests: number
  readonly concurrencies: ReadonlyArray<number>
}

export interface RetryCostConfig {
  readonly rounds: number
  /** Calls per library and round, each failing once; as many plain calls are the baseline. */
  readonly callsPerRound: number
  /** Batches of each kind a round interleaves (plain, retried, plain, ...), splitting its calls. */
  readonly batchesPerRound: number
  readonly warmupCalls: number
  readonly concurrency: number
}

export interface MemoryConfig {
  readonly rounds: number
  /** Calls per library and round against a lasting 503, 3 attempts each. */
  readonly callsPerRound: number
  readonly warmupCalls: number
  readonly concurrency: number
}

export interface OutageConfig {
  /** Calls per batch; each phase runs two batches back to back, on fresh clients. */
  readonly callsPerBatch: number
  readonly concurrency: number
}

export interface SparseConfig {
  readonly calls: number
  readonly concurrency: number
  /** The share of calls that fail once (a 503 with `Retry-After: 0`), scattered among them. */
  readonly failingShare: number
}

export interface BreakerConfig {
  /** Calls started per second by each client (an open loop: a failing call does not slow it). */
  readonly ratePerSecond: number
  /** Healthy traffic before the outage. */
  readonly warmupMillis: number
  readonly outageMillis: number
  /** Traffic after the outage: longer than the breaker's break (5 s), to see it close. */
  readonly afterMillis: number
  /** A bound on calls in flight per client, well above what the rate needs. */
  readonly concurrency: number
}

export interface SharedStoreConfig {
  readonly rounds: number
  /** Calls per line, store and concurrency, per round. */
  readonly callsPerRound: number
  readonly warmupCalls: number
  readonly concurrencies: ReadonlyArray<number>
}

export interface HedgingConfig {
  /** Rounds per configuration; the figures are medians over them, the ratios medians of same-round ratios. */
  readonly rounds: number
  /** Calls measured per configuration and round. */
  readonly callsPerRound: number
  /**
   * Calls before each measured batch, on a latency key of their own and not measured: the learnt
   * delay's window then holds its 20 samples (and more) when the measured calls start.
   */
  readonly warmupCalls: number
  /** Calls started per second (an open loop: the same load whatever hedging does to latency). */
  readonly ratePerSecond: number
  /** A bound on calls in flight, well above what the rate needs. */
  readonly concurrency: number
}

export interface LimitsConfig {
  /** Rounds per row; the figures are medians over them. */
  readonly rounds: number
  /** Each phase's length: at a shape's first capacity (64, say), then at its second (16). */
  readonly phaseMillis: number
  /**
   * Closed-loop callers on the capacity route at a capacity of 64, each starting its next call when its last
   * ends (or `base` ms after it, when the concurrency limit refused it unsent); scaled with a shape's first
   * capacity (half as many at 32).
   */
  readonly callers: number
  /** Calls per row on the rate-limited route, and how many at once. */
  readonly rateLimitCalls: number
  readonly rateLimitConcurrency: number
}

interface ContentionConfig {
  readonly clientCounts: ReadonlyArray<number>
  /** Seeded runs per cell; the figures are their means. */
  readonly runs: number
}

export interface BenchConfig {
  readonly mode: "full" | "quick"
  /**
   * The clients compared (the retry benchmarks take those that retry; the outage benchmark those
   * of its configurations whose library is here). The Effect 4 ones run under Node 22.
   */
  readonly libraries: ReadonlyArray<LibraryId>
  readonly happyPath: HappyPathConfig
  readonly retryCost: RetryCostConfig
  readonly memory: MemoryConfig
  readonly outage: OutageConfig
  readonly sparse: SparseConfig
  readonly breaker: BreakerConfig
  readonly contention: ContentionConfig
  /** The happy path with `layerRedis` against the memory store, on each line. */
  readonly sharedStore: SharedStoreConfig
  /** Hedged requests (issue #20) against the chaos server's latency route, on each line of this library in `libraries`. */
  readonly hedging: HedgingConfig
  /** Concurrency and rate limits (issue #34) against the chaos server's capacity and rate-limit routes, on each line of this library in `libraries`. */
  readonly limits: LimitsConfig
}

export const fullConfig: BenchConfig = {
  mode: "full",
  libraries: allLibraries,
  happyPath: { rounds: 5, requestsPerRound: 4_000, warmupRequests: 1_000, concurrencies: [1, 64] },
  retryCost: { rounds: 15, callsPerRound: 2_000, batchesPerRound: 4, warmupCalls: 500, concurrency: 64 },
  memory: { rounds: 5, callsPerRound: 2_000, warmupCalls: 500, concurrency: 64 },
  outage: { callsPerBatch: 200, concurrency: 64 },
  sparse: { calls: 2_000, concurrency: 64, failingShare: 0.05 },
  breaker: { ratePerSecond: 100, warmupMillis: 2_000, outageMillis: 30_000, afterMillis: 8_000, concurrency: 512 },
  contention: { clientCounts: [25, 50, 75, 100], runs: 100 },
  sharedStore: { rounds: 12, callsPerRound: 400, warmupCalls: 800, concurrencies: [1, 64] },
  hedging: { rounds: 3, callsPerRound: 3_000, warmupCalls: 200, ratePerSecond: 250, concurrency: 64 },
  limits: { rounds: 3, phaseMillis: 8_000, callers: 96, rateLimitCalls: 60, rateLimitConcurrency: 10 }
}

export const quickConfig: BenchConfig = {
  mode: "quick",
  libraries: allLibraries,
  happyPath: { rounds: 5, requestsPerRound: 200, warmupRequests: 100, concurrencies: [1, 64] },
  retryCost: { rounds: 7, callsPerRound: 200, batchesPerRound: 4, warmupCalls: 50, concurrency: 64 },
  memory: { rounds: 5, callsPerRound: 100, warmupCalls: 50, concurrency: 64 },
  outage: { callsPerBatch: 200, concurrency: 64 },
  sparse: { calls: 400, concurrency: 64, failingShare: 0.05 },
  breaker: { ratePerSecond: 100, warmupMillis: 1_000, outageMillis: 3_000, afterMillis: 6_500, concurrency: 512 },
  contention: { clientCounts: [25, 50, 75, 100], runs: 20 },
  sharedStore: { rounds: 8, callsPerRound: 200, warmupCalls: 300, concurrencies: [1, 64] },
  hedging: { rounds: 3, callsPerRound: 750, warmupCalls: 200, ratePerSecond: 250, concurrency: 64 },
  limits: { rounds: 1, phaseMillis: 3_000, callers: 96, rateLimitCalls: 30, rateLimitConcurrency: 5 }
}
