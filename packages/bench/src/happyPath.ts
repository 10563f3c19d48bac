/**
 * 1. Happy path throughput: every client against `/ok`, at each concurrency, in interleaved
 * rounds (each round starts with a different library), after a warm-up.
 */
import { bareEffectOf, libraries } from "./clients.js"
import type { HappyPathConfig } from "./config.js"
import { jobTimeoutMillis, type WorkerProcess } from "./processes.js"
import type { Job, LibraryId } from "./protocol.js"
import { median, medianRatio } from "./stats.js"

interface HappyPathRow {
  readonly library: LibraryId
  readonly label: string
  readonly concurrency: number
  /** Requests per second in each round. */
  readonly roundRequestsPerSecond: ReadonlyArray<number>
  readonly requestsPerSecond: number
  /**
   * Median over rounds of the ratio to the bare Effect client of the same Effect line (Effect 4's
   * for an Effect 4 client, Effect 3's for any other) in the same round.
   */
  readonly ratioToEffect: number
  /** Median over rounds of the ratio to raw `undici.request` in the same round. */
  readonly ratioToUndici: number
  /** Medians over rounds of each round's latency percentiles, in milliseconds. */
  readonly p50Millis: number
  readonly p99Millis: number
}

export interface HappyPathResult {
  readonly requestsMeasured: number
  readonly rows: ReadonlyArray<HappyPathRow>
}

/** Round r starts with library r (mod n), so no library always runs first or last. */
export const rotate = <A>(items: ReadonlyArray<A>, by: number): Array<A> => {
  const shift = items.length === 0 ? 0 : by % items.length
  return [...items.slice(shift), ...items.slice(0, shift)]
}

const okJob = (count: number, concurrency: number): Job => ({
  mode: "happy",
  route: "ok",
  keyPrefix: "ok",
  count,
  concurrency,
  latencies: true,
  allocations: false,
  memory: false
})

/** Runs against the given client processes, one per library, each in its as-shipped configuration. */
export const runHappyPath = async (
  workers: ReadonlyMap<LibraryId, WorkerProcess>,
  config: HappyPathConfig,
  log: (line: string) => void
): Promise<HappyPathResult> => {
  const compared = libraries.filter((library) => workers.has(library.id))
  const ids = compared.map((library) => library.id)
  {
    const perRound = new Map<string, Array<{ rps: number; p50: number; p99: number }>>()
    const key = (library: LibraryId, concurrency: number) => `${library}@${concurrency}`
    const run = async (library: LibraryId, concurrency: number, count: number) => {
      const worker = workers.get(library)!
      const result = await worker.run(okJob(count, concurrency), jobTimeoutMillis(count))
      if (result.ok !== count) throw new Error(`${library}: ${result.failed} of ${count} happy-path calls failed`)
      return { rps: (count / result.wallMs) * 1000, p50: result.p50Ms ?? Number.NaN, p99: result.p99Ms ?? Number.NaN }
    }
    log("happy path: warm-up")
    for (const concurrency of config.concurrencies) {
      for (const library of ids) await run(library, concurrency, config.warmupRequests)
    }
    for (let round = 0; round < config.rounds; round++) {
      log(`happy path: round ${round + 1}/${config.rounds}`)
      for (const concurrency of config.concurrencies) {
        for (const library of rotate(ids, round)) {
          const measured = await run(library, concurrency, config.requestsPerRound)
          const list = perRound.get(key(library, concurrency)) ?? []
          list.push(measured)
          perRound.set(key(library, concurrency), list)
        }
      }
    }
    const rows: Array<HappyPathRow> = []
    for (const concurrency of config.concurrencies) {
      const rpsOf = (library: LibraryId) => (perRound.get(key(library, concurrency)) ?? []).map((round) => round.rps)
      for (const library of compared) {
        const rounds = perRound.get(key(library.id, concurrency)) ?? []
        rows.push({
          library: library.id,
          label: library.label,
          concurrency,
          roundRequestsPerSecond: rounds.map((round) => round.rps),
          requestsPerSecond: median(rounds.map((round) => round.rps)),
          ratioToEffect: medianRatio(rpsOf(library.id), rpsOf(bareEffectOf(library.id))),
          ratioToUndici: medianRatio(rpsOf(library.id), rpsOf("undici")),
          p50Millis: median(rounds.map((round) => round.p50)),
          p99Millis: median(rounds.map((round) => round.p99))
        })
      }
    }
    return { requestsMeasured: config.rounds * config.requestsPerRound, rows }
  }
}
