/**
 * 2. What a retry costs: calls that each fail once (503, `Retry-After: 0`) and then succeed,
 * against as many plain calls in the same round. The difference per call is the cost of one
 * retry: the second exchange and the library's decision to make it. CPU time and JS heap
 * allocations are measured in the client process.
 */
import { libraries, retryTransientOf } from "./clients.js"
import type { RetryCostConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import { jobTimeoutMillis, type ServerProcess, type WorkerProcess } from "./processes.js"
import type { Job, JobResult, LibraryId } from "./protocol.js"
import { median, medianRatio } from "./stats.js"

export interface RetryCostRow {
  readonly library: LibraryId
  readonly label: string
  /** Medians over rounds. */
  readonly cpuMicrosPerPlainCall: number
  readonly cpuMicrosPerRetriedCall: number
  readonly cpuMicrosPerRetry: number
  readonly allocatedBytesPerRetry: number
  /** Median over rounds of the ratio to the same Effect line's `retryTransient` in the same round. */
  readonly cpuRatioToRetryTransient: number
  readonly allocationRatioToRetryTransient: number
  /** Requests the server saw per call: 2 when every call was retried exactly once. */
  readonly attemptsPerCall: number
}

export interface RetryCostResult {
  readonly callsMeasured: number
  readonly rows: ReadonlyArray<RetryCostRow>
}

const job = (route: Job["route"], keyPrefix: string, count: number, concurrency: number): Job => ({
  mode: "retry",
  route,
  keyPrefix,
  count,
  concurrency,
  latencies: false,
  allocations: true,
  memory: false
})

interface RoundFigures {
  readonly plain: JobResult
  readonly retried: JobResult
  readonly attemptsPerCall: number
}

/** Runs against the given client processes; only the libraries that retry take part. */
export const runRetryCost = async (
  server: ServerProcess,
  workers: ReadonlyMap<LibraryId, WorkerProcess>,
  config: RetryCostConfig,
  log: (line: string) => void
): Promise<RetryCostResult> => {
  const ids = libraries.filter((library) => library.retries && workers.has(library.id)).map((library) => library.id)
  {
    const runPair = async (library: LibraryId, round: string, count: number): Promise<RoundFigures> => {
      const worker = workers.get(library)!
      const timeout = jobTimeoutMillis(count * 2)
      const plain = await worker.run(job("ok", `${library}-${round}`, count, config.concurrency), timeout)
      await server.reset()
      const retried = await worker.run(job("fail-once", `${library}-${round}`, count, config.concurrency), timeout)
      const stats = await server.stats()
      if (plain.ok !== count || retried.ok !== count) {
        throw new Error(
          `${library}: ${plain.failed + retried.failed} of ${2 * count} calls failed in the retry benchmark`
        )
      }
      return { plain, retried, attemptsPerCall: stats.requests / count }
    }
    log("retry cost: warm-up")
    for (const library of ids) await runPair(library, "warmup", config.warmupCalls)
    const figures = new Map<LibraryId, Array<RoundFigures>>()
    for (let round = 0; round < config.rounds; round++) {
      log(`retry cost: round ${round + 1}/${config.rounds}`)
      for (const library of rotate(ids, round)) {
        const list = figures.get(library) ?? []
        list.push(await runPair(library, `r${round}`, config.callsPerRound))
        figures.set(library, list)
      }
    }
    const calls = config.callsPerRound
    const cpuPerRetry = (library: LibraryId) =>
      (figures.get(library) ?? []).map((round) => (round.retried.cpuMicros - round.plain.cpuMicros) / calls)
    const bytesPerRetry = (library: LibraryId) =>
      (figures.get(library) ?? []).map(
        (round) => ((round.retried.allocatedBytes ?? Number.NaN) - (round.plain.allocatedBytes ?? Number.NaN)) / calls
      )
    const rows = ids.map((library): RetryCostRow => {
      const rounds = figures.get(library) ?? []
      return {
        library,
        label: libraries.find((candidate) => candidate.id === library)?.label ?? library,
        cpuMicrosPerPlainCall: median(rounds.map((round) => round.plain.cpuMicros / calls)),
        cpuMicrosPerRetriedCall: median(rounds.map((round) => round.retried.cpuMicros / calls)),
        cpuMicrosPerRetry: median(cpuPerRetry(library)),
        allocatedBytesPerRetry: median(bytesPerRetry(library)),
        cpuRatioToRetryTransient: medianRatio(cpuPerRetry(library), cpuPerRetry(retryTransientOf(library))),
        allocationRatioToRetryTransient: medianRatio(bytesPerRetry(library), bytesPerRetry(retryTransientOf(library))),
        attemptsPerCall: median(rounds.map((round) => round.attemptsPerCall))
      }
    })
    return { callsMeasured: config.rounds * calls, rows }
  }
}
