/**
 * 6. Circuit breaker: an outage, then recovery. Each client starts calls at a steady rate (an
 * open loop, as independent users would: a failing call does not slow the next one): healthy
 * traffic first, then an outage of the server's `switch` route (503, no `Retry-After`), then
 * healthy again. The server counts the requests each client sent while the outage lasted and
 * the time from its end to each client's first 2xx. All clients run at once, each in a fresh
 * process, so they share one outage and one recovery.
 */
import type { BreakerConfig } from "./config.js"
import {
  type OverloadClient,
  oursWithBreaker,
  oursWithBudget,
  oursWithoutBudget,
  overloadJob,
  withFreshProcesses
} from "./overload.js"
import { jobTimeoutMillis, type ServerProcess } from "./processes.js"
import type { ClientMode } from "./protocol.js"

export const breakerClients: ReadonlyArray<OverloadClient> = [oursWithoutBudget, oursWithBudget, oursWithBreaker]

interface BreakerRow {
  readonly id: string
  readonly mode: ClientMode
  readonly label: string
  /** Requests that reached the server while the outage lasted. */
  readonly requestsDuringOutage: number
  readonly requestsPerSecondDuringOutage: number
  /** Requests per second during the outage over calls started per second: 1 without retries. */
  readonly loadFactorDuringOutage: number
  /** From the end of the outage to the first 2xx the server sent this client; null if none came. */
  readonly millisToFirstSuccess: number | null
  /** Calls that failed over the whole run (warm-up, outage and after). */
  readonly callsFailed: number
  readonly calls: number
}

export interface BreakerResult {
  readonly ratePerSecond: number
  readonly warmupMillis: number
  readonly outageMillis: number
  /** How long the outage lasted by the server's clock. */
  readonly measuredOutageMillis: number
  readonly afterMillis: number
  readonly rows: ReadonlyArray<BreakerRow>
}

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

/** Starts one fresh client process per compared client, runs them through one outage, and stops them. */
export const runBreaker = async (
  server: ServerProcess,
  config: BreakerConfig,
  log: (line: string) => void
): Promise<BreakerResult> => {
  const { afterMillis, concurrency, outageMillis, ratePerSecond, warmupMillis } = config
  const calls = Math.round((ratePerSecond * (warmupMillis + outageMillis + afterMillis)) / 1000)
  return withFreshProcesses(server.origin, breakerClients, async (started) => {
    // Each client is built by a first call before the clock starts, so that all start together.
    await Promise.all(
      started.map(({ client, worker }) => worker.run(overloadJob(client, "ok", "build", 1, 1), jobTimeoutMillis(1)))
    )
    await server.setOutage(false)
    const jobs = Promise.all(
      started.map(({ client, worker }) =>
        worker.run(
          overloadJob(client, "switch", client.id, calls, concurrency, { ratePerSecond }),
          jobTimeoutMillis(calls)
        )
      )
    )
    // A job that fails early must not leave the timeline below waiting for nothing.
    const failed = jobs.then(
      () => false,
      () => true
    )
    log(`breaker: ${warmupMillis / 1000} s healthy at ${ratePerSecond} calls/s per client`)
    await Promise.race([sleep(warmupMillis), failed])
    log(`breaker: ${outageMillis / 1000} s outage`)
    await server.setOutage(true)
    await Promise.race([sleep(outageMillis), failed])
    log(`breaker: recovered; ${afterMillis / 1000} s more`)
    await server.setOutage(false)
    const results = await jobs
    const report = await server.outage()
    const measuredOutageMillis = report.downMillis ?? Number.NaN
    return {
      ratePerSecond,
      warmupMillis,
      outageMillis,
      measuredOutageMillis,
      afterMillis,
      rows: started.map(({ client }, index) => {
        const seen = report.tags.find((entry) => entry.tag === client.id)
        const requestsDuringOutage = seen?.requestsWhileDown ?? 0
        const requestsPerSecond = (requestsDuringOutage * 1000) / measuredOutageMillis
        return {
          id: client.id,
          mode: client.mode,
          label: client.label,
          requestsDuringOutage,
          requestsPerSecondDuringOutage: requestsPerSecond,
          loadFactorDuringOutage: requestsPerSecond / ratePerSecond,
          millisToFirstSuccess: seen?.millisToFirstSuccess ?? null,
          callsFailed: results[index]!.failed,
          calls
        }
      })
    }
  })
}
