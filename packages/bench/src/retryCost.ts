/**
 * 2. What a retry costs: calls that each fail once (503, `Retry-After: 0`) and then succeed,
 * against as many plain calls in the same round. The difference per call is the cost of one
 * retry: the second exchange and the library's decision to make it. CPU time and JS heap
 * allocations are measured in the client process, over each batch alone.
 *
 * The cost of a retry is the difference of two noisy figures, so a round interleaves several
 * small batches of each kind (plain, retried, plain, retried, ...) and sums each kind: drift in the
 * process (JIT, GC, a neighbour on the machine) then falls on both sides alike. The ratio to
 * `retryTransient` is the ratio of the two medians over rounds (the figures printed beside it), and
 * the spread of the per-round figures is printed with them.
 */
import { libraries, retryTransientOf } from "./clients.js"
import type { RetryCostConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import { jobTimeoutMillis, type ServerProcess, type WorkerProcess } from "./processes.js"
import type { Job, LibraryId } from "./protocol.js"
import { median, quantile } from "./stats.js"

interface RetryCostRow {
  readonly library: LibraryId
  readonly label: string
  /** Medians over rounds. */
  readonly cpuMicrosPerPlainCall: number
  readonly cpuMicrosPerRetriedCall: number
  readonly cpuMicrosPerRetry: number
  /** The per-round figures' 25th and 75th percentiles around {@link cpuMicrosPerRetry}. */
  readonly cpuMicrosPerRetrySpread: { readonly p25: number; readonly p75: number }
  readonly allocatedBytesPerPlainCall: number
  readonly allocatedBytesPerRetry: number
  /** The median per retry over the same Effect line's `retryTransient`'s median per retry. */
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

/** One round of a library: its batches of each kind summed. */
interface RoundFigures {
  readonly plainCpuMicros: number
  readonly retriedCpuMicros: number
  readonly plainAllocatedBytes: number
  readonly retriedAllocatedBytes: number
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
    const batchSize = Math.max(1, Math.floor(config.callsPerRound / config.batchesPerRound))
    const runRound = async (library: LibraryId, round: string, batches: number): Promise<RoundFigures> => {
      const worker = workers.get(library)!
      const timeout = jobTimeoutMillis(batchSize * 2)
      let plainCpuMicros = 0
      let retriedCpuMicros = 0
      let plainAllocatedBytes = 0
      let retriedAllocatedBytes = 0
      let retriedRequests = 0
      for (let batch = 0; batch < batches; batch++) {
        const keyPrefix = `${library}-${round}-${batch}`
        const plain = await worker.run(job("ok", keyPrefix, batchSize, config.concurrency), timeout)
        await server.reset()
        const retried = await worker.run(job("fail-once", keyPrefix, batchSize, config.concurrency), timeout)
        retriedRequests += (await server.stats()).requests
        if (plain.ok !== batchSize || retried.ok !== batchSize) {
          throw new Error(
            `${library}: ${plain.failed + retried.failed} of ${2 * batchSize} calls failed in the retry benchmark`
          )
        }
        plainCpuMicros += plain.cpuMicros
        retriedCpuMicros += retried.cpuMicros
        plainAllocatedBytes += plain.allocatedBytes ?? Number.NaN
        retriedAllocatedBytes += retried.allocatedBytes ?? Number.NaN
      }
      return {
        plainCpuMicros,
        retriedCpuMicros,
        plainAllocatedBytes,
        retriedAllocatedBytes,
        attemptsPerCall: retriedRequests / (batches * batchSize)
      }
    }
    log("retry cost: warm-up")
    const warmupBatches = Math.max(1, Math.round(config.warmupCalls / batchSize))
    for (const library of ids) await runRound(library, "warmup", warmupBatches)
    const figures = new Map<LibraryId, Array<RoundFigures>>()
    for (let round = 0; round < config.rounds; round++) {
      log(`retry cost: round ${round + 1}/${config.rounds}`)
      for (const library of rotate(ids, round)) {
        const list = figures.get(library) ?? []
        list.push(await runRound(library, `r${round}`, config.batchesPerRound))
        figures.set(library, list)
      }
    }
    const calls = batchSize * config.batchesPerRound
    const rounds = (library: LibraryId) => figures.get(library) ?? []
    const cpuPerRetry = (library: LibraryId) =>
      rounds(library).map((round) => (round.retriedCpuMicros - round.plainCpuMicros) / calls)
    const bytesPerRetry = (library: LibraryId) =>
      rounds(library).map((round) => (round.retriedAllocatedBytes - round.plainAllocatedBytes) / calls)
    const rows = ids.map((library): RetryCostRow => {
      const baseline = retryTransientOf(library)
      return {
        library,
        label: libraries.find((candidate) => candidate.id === library)?.label ?? library,
        cpuMicrosPerPlainCall: median(rounds(library).map((round) => round.plainCpuMicros / calls)),
        cpuMicrosPerRetriedCall: median(rounds(library).map((round) => round.retriedCpuMicros / calls)),
        cpuMicrosPerRetry: median(cpuPerRetry(library)),
        cpuMicrosPerRetrySpread: {
          p25: quantile(cpuPerRetry(library), 0.25),
          p75: quantile(cpuPerRetry(library), 0.75)
        },
        allocatedBytesPerPlainCall: median(rounds(library).map((round) => round.plainAllocatedBytes / calls)),
        allocatedBytesPerRetry: median(bytesPerRetry(library)),
        cpuRatioToRetryTransient: median(cpuPerRetry(library)) / median(cpuPerRetry(baseline)),
        allocationRatioToRetryTransient: median(bytesPerRetry(library)) / median(bytesPerRetry(baseline)),
        attemptsPerCall: median(rounds(library).map((round) => round.attemptsPerCall))
      }
    })
    return { callsMeasured: config.rounds * calls, rows }
  }
}
