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

export interface ContentionConfig {
  readonly clientCounts: ReadonlyArray<number>
  /** Seeded runs per cell; the figures are their means. */
  readonly runs: number
}

export interface BenchConfig {
  readonly mode: "full" | "quick"
  /** The clients compared (the retry benchmarks take those that retry). */
  readonly libraries: ReadonlyArray<LibraryId>
  readonly happyPath: HappyPathConfig
  readonly retryCost: RetryCostConfig
  readonly memory: MemoryConfig
  readonly contention: ContentionConfig
}

export const fullConfig: BenchConfig = {
  mode: "full",
  libraries: allLibraries,
  happyPath: { rounds: 5, requestsPerRound: 4_000, warmupRequests: 1_000, concurrencies: [1, 64] },
  retryCost: { rounds: 5, callsPerRound: 2_000, warmupCalls: 500, concurrency: 64 },
  memory: { rounds: 5, callsPerRound: 2_000, warmupCalls: 500, concurrency: 64 },
  contention: { clientCounts: [25, 50, 75, 100], runs: 100 }
}

export const quickConfig: BenchConfig = {
  mode: "quick",
  libraries: allLibraries,
  happyPath: { rounds: 5, requestsPerRound: 200, warmupRequests: 100, concurrencies: [1, 64] },
  retryCost: { rounds: 5, callsPerRound: 100, warmupCalls: 50, concurrency: 64 },
  memory: { rounds: 5, callsPerRound: 100, warmupCalls: 50, concurrency: 64 },
  contention: { clientCounts: [25, 50, 75, 100], runs: 20 }
}
