/**
 * 3. Memory and sockets: calls against a lasting 503 (`Retry-After: 0`), 3 attempts each, in a
 * client process run with `--expose-gc`: peak RSS and heap during a round, connections the server
 * accepted, sockets the client still holds afterwards, and the heap after a forced GC compared
 * with before.
 */
import { libraries } from "./clients.js"
import type { MemoryConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import { jobTimeoutMillis, type ServerProcess, type WorkerProcess } from "./processes.js"
import type { Job, JobResult, LibraryId } from "./protocol.js"
import { median } from "./stats.js"

interface MemoryRow {
  readonly library: LibraryId
  readonly label: string
  /** Medians over rounds. */
  readonly peakRssBytes: number
  readonly peakHeapBytes: number
  readonly connectionsOpenedPerRound: number
  readonly attemptsPerCall: number
  /** Connections opened during a round and still open after it, at the server (median). */
  readonly connectionsLeftOpenPerRound: number
  /** Sockets still keeping the client process alive after its last round (idle pooled ones don't). */
  readonly activeSocketsAfter: number
  /** Median over rounds of heap after GC minus heap before the round. */
  readonly heapGrowthPerRoundBytes: number
  /** Heap after GC at the end of the last round minus before the first measured round. */
  readonly heapGrowthOverallBytes: number
}

export interface MemoryResult {
  readonly callsMeasured: number
  readonly rows: ReadonlyArray<MemoryRow>
}

const job = (count: number, concurrency: number): Job => ({
  mode: "retry",
  route: "always-503",
  keyPrefix: "503",
  count,
  concurrency,
  latencies: false,
  allocations: false,
  memory: true
})

interface RoundFigures {
  readonly result: JobResult
  readonly connectionsOpened: number
  readonly connectionsLeftOpen: number
  readonly attemptsPerCall: number
}

/**
 * Runs against the given client processes, which must be fresh (so that their peaks are this
 * benchmark's) and started with `--expose-gc`; only the libraries that retry take part.
 */
export const runMemory = async (
  server: ServerProcess,
  workers: ReadonlyMap<LibraryId, WorkerProcess>,
  config: MemoryConfig,
  log: (line: string) => void
): Promise<MemoryResult> => {
  const ids = libraries.filter((library) => library.retries && workers.has(library.id)).map((library) => library.id)
  {
    const runOnce = async (library: LibraryId, count: number): Promise<RoundFigures> => {
      await server.reset()
      const result = await workers.get(library)!.run(job(count, config.concurrency), jobTimeoutMillis(count * 3))
      const stats = await server.stats()
      if (result.failed !== count) {
        throw new Error(`${library}: ${result.ok} of ${count} calls against a lasting 503 succeeded`)
      }
      if (result.heapBeforeBytes === null || result.heapAfterBytes === null) {
        throw new Error(`${library}: the client process was not started with --expose-gc`)
      }
      return {
        result,
        connectionsOpened: stats.connectionsOpened,
        connectionsLeftOpen: stats.openedAndStillOpen,
        attemptsPerCall: stats.requests / count
      }
    }
    log("memory and sockets: warm-up")
    for (const library of ids) await runOnce(library, config.warmupCalls)
    const figures = new Map<LibraryId, Array<RoundFigures>>()
    for (let round = 0; round < config.rounds; round++) {
      log(`memory and sockets: round ${round + 1}/${config.rounds}`)
      for (const library of rotate(ids, round)) {
        const list = figures.get(library) ?? []
        list.push(await runOnce(library, config.callsPerRound))
        figures.set(library, list)
      }
    }
    const rows = ids.map((library): MemoryRow => {
      const rounds = figures.get(library) ?? []
      const first = rounds[0]?.result
      const last = rounds.at(-1)?.result
      return {
        library,
        label: libraries.find((candidate) => candidate.id === library)?.label ?? library,
        peakRssBytes: median(rounds.map((round) => round.result.peakRssBytes ?? Number.NaN)),
        peakHeapBytes: median(rounds.map((round) => round.result.peakHeapBytes ?? Number.NaN)),
        connectionsOpenedPerRound: median(rounds.map((round) => round.connectionsOpened)),
        attemptsPerCall: median(rounds.map((round) => round.attemptsPerCall)),
        connectionsLeftOpenPerRound: median(rounds.map((round) => round.connectionsLeftOpen)),
        activeSocketsAfter: last?.activeSocketsAfter ?? Number.NaN,
        heapGrowthPerRoundBytes: median(
          rounds.map(
            (round) => (round.result.heapAfterBytes ?? Number.NaN) - (round.result.heapBeforeBytes ?? Number.NaN)
          )
        ),
        heapGrowthOverallBytes: (last?.heapAfterBytes ?? Number.NaN) - (first?.heapBeforeBytes ?? Number.NaN)
      }
    })
    return { callsMeasured: config.rounds * config.callsPerRound, rows }
  }
}
