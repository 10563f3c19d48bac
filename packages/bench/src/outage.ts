/**
 * 4. Outage amplification: how many requests a total outage receives per call, first while
 * every answer is a 503 (`Retry-After: 0`, so nobody waits), then while the port refuses every
 * connection. Each phase runs two batches back to back on fresh clients: the first shows a
 * budget with its floor still unspent, the second what it allows once the floor is used up
 * (within the budget's 10 s ttl). Requests are counted by the server in the 503 phase and by
 * each client (every attempt, under its retries) in both.
 */
import type { OutageConfig } from "./config.js"
import {
  effect4BreakerClient,
  effect4RetryTransientClient,
  gotClient,
  kyClient,
  type OverloadClient,
  oursPerCall,
  oursWithBreaker,
  oursWithBudget,
  oursWithoutBudget,
  ours4PerCall,
  ours4WithBreaker,
  ours4WithBudget,
  ours4WithoutBudget,
  overloadJob,
  perCall,
  refusedOrigin,
  retryTransientClient,
  withFreshProcesses
} from "./overload.js"
import { jobTimeoutMillis, type ServerProcess, type WorkerProcess } from "./processes.js"
import type { ClientMode, LibraryId } from "./protocol.js"

export const outageClients: ReadonlyArray<OverloadClient> = [
  retryTransientClient,
  kyClient,
  gotClient,
  oursWithoutBudget,
  oursWithBudget,
  oursWithBreaker,
  oursPerCall,
  effect4RetryTransientClient,
  effect4BreakerClient,
  ours4WithoutBudget,
  ours4WithBudget,
  ours4WithBreaker,
  ours4PerCall
]

interface OutageBatch {
  readonly calls: number
  readonly failed: number
  /** Attempts the client counted. */
  readonly attempts: number
  /** Requests the server received; null when it could not count them (refused connections). */
  readonly serverRequests: number | null
  /** Server requests per call when the server counted them, client attempts per call otherwise. */
  readonly requestsPerCall: number
}

interface OutagePhase {
  /** The first batch: a budget's floor still unspent. */
  readonly first: OutageBatch
  /** The next batch at once: the floor used up by the first. */
  readonly second: OutageBatch
}

interface OutageRow {
  readonly id: string
  readonly library: LibraryId
  readonly mode: ClientMode
  readonly label: string
  /** Every answer a 503 with `Retry-After: 0`. */
  readonly unavailable: OutagePhase
  /** Every connection refused. */
  readonly refused: OutagePhase
}

export interface OutageResult {
  readonly callsPerBatch: number
  readonly concurrency: number
  readonly rows: ReadonlyArray<OutageRow>
}

const runBatch = async (
  worker: WorkerProcess,
  client: OverloadClient,
  config: OutageConfig,
  keyPrefix: string,
  origin: string | undefined,
  server: ServerProcess | undefined
): Promise<OutageBatch> => {
  const calls = config.callsPerBatch
  if (server !== undefined) await server.reset()
  const job = overloadJob(client, "always-503", keyPrefix, calls, config.concurrency, origin ? { origin } : {})
  const result = await worker.run(job, jobTimeoutMillis(calls * 3))
  const serverRequests = server === undefined ? null : (await server.stats()).requests
  if (result.attempts === null) throw new Error(`${client.label}: its client counts no attempts`)
  if (result.ok > 0) throw new Error(`${client.label}: ${result.ok} calls succeeded against a total outage`)
  return {
    calls,
    failed: result.failed,
    attempts: result.attempts,
    serverRequests,
    requestsPerCall: perCall(serverRequests ?? result.attempts, calls)
  }
}

const runPhase = async (
  worker: WorkerProcess,
  client: OverloadClient,
  config: OutageConfig,
  phase: string,
  origin: string | undefined,
  server: ServerProcess | undefined
): Promise<OutagePhase> => ({
  first: await runBatch(worker, client, config, `${phase}-1`, origin, server),
  second: await runBatch(worker, client, config, `${phase}-2`, origin, server)
})

/**
 * Starts a fresh client process per compared client (by default those of {@link outageClients}
 * whose library is among `libraries`), runs both phases, and stops them.
 */
export const runOutage = async (
  server: ServerProcess,
  config: OutageConfig,
  log: (line: string) => void,
  libraries: ReadonlyArray<LibraryId>,
  clients: ReadonlyArray<OverloadClient> = outageClients.filter((client) => libraries.includes(client.library))
): Promise<OutageResult> => {
  log(`outage: starting ${clients.length} fresh client processes`)
  return withFreshProcesses(server.origin, clients, async (started) => {
    // One client at a time: the server's count is the whole server's.
    const unavailable: Array<OutagePhase> = []
    for (const { client, worker } of started) {
      log(`outage: every answer a 503, ${client.label}`)
      unavailable.push(await runPhase(worker, client, config, "503", undefined, server))
    }
    // Every client at once: each counts its own attempts, and most of the time is spent waiting.
    log("outage: every connection refused, all clients at once")
    const deadOrigin = await refusedOrigin()
    const refused = await Promise.all(
      started.map(({ client, worker }) => runPhase(worker, client, config, "refused", deadOrigin, undefined))
    )
    return {
      callsPerBatch: config.callsPerBatch,
      concurrency: config.concurrency,
      rows: started.map(({ client }, index) => ({
        id: client.id,
        library: client.library,
        mode: client.mode,
        label: client.label,
        unavailable: unavailable[index]!,
        refused: refused[index]!
      }))
    }
  })
}
