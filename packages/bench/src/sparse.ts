/**
 * 5. Sparse failures still retry: a scattered share of the calls (5%) fails once with a 503
 * (`Retry-After: 0`) and then succeeds; this library with its default retry budget against the
 * same calls without one, each on a fresh client. The budget's floor and ratio are there so
 * that such failures are all retried: the success rates must be equal.
 */
import type { SparseConfig } from "./config.js"
import {
  type OverloadClient,
  oursWithBudget,
  oursWithoutBudget,
  overloadJob,
  perCall,
  withFreshProcesses
} from "./overload.js"
import { jobTimeoutMillis, type ServerProcess } from "./processes.js"
import type { ClientMode } from "./protocol.js"
import { failsOnce } from "./worker.js"

export const sparseClients: ReadonlyArray<OverloadClient> = [oursWithoutBudget, oursWithBudget]

interface SparseRow {
  readonly id: string
  readonly mode: ClientMode
  readonly label: string
  readonly calls: number
  /** Calls whose first attempt fails (the same calls in every row). */
  readonly callsFailingOnce: number
  readonly succeeded: number
  readonly successRate: number
  /** Requests the server received beyond one per call: the retries made. */
  readonly retries: number
  readonly requestsPerCall: number
}

export interface SparseResult {
  readonly calls: number
  readonly concurrency: number
  readonly failingShare: number
  readonly rows: ReadonlyArray<SparseRow>
}

/** Starts one fresh client process per compared client, runs them in turn, and stops them. */
export const runSparse = async (
  server: ServerProcess,
  config: SparseConfig,
  log: (line: string) => void
): Promise<SparseResult> => {
  const { calls, concurrency, failingShare } = config
  let callsFailingOnce = 0
  for (let index = 0; index < calls; index++) if (failsOnce(index, failingShare)) callsFailingOnce++
  log(`sparse failures: ${callsFailingOnce} of ${calls} calls fail once`)
  return withFreshProcesses(server.origin, sparseClients, async (started) => {
    const rows: Array<SparseRow> = []
    for (const { client, worker } of started) {
      await server.reset()
      const job = overloadJob(client, "sparse", `sparse-${client.id}`, calls, concurrency, { failingShare })
      const result = await worker.run(job, jobTimeoutMillis(calls * 2))
      const requests = (await server.stats()).requests
      rows.push({
        id: client.id,
        mode: client.mode,
        label: client.label,
        calls,
        callsFailingOnce,
        succeeded: result.ok,
        successRate: perCall(result.ok, calls),
        retries: requests - calls,
        requestsPerCall: perCall(requests, calls)
      })
    }
    return { calls, concurrency, failingShare, rows }
  })
}
