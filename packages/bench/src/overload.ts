/**
 * What the overload benchmarks (outage, sparse failures, breaker) share: the clients they
 * compare, each in a client process of its own, and the jobs they send.
 */
import * as Net from "node:net"
import { startWorkerList, stopWorkers, type WorkerProcess } from "./processes.js"
import type { ClientMode, Job, LibraryId, Route } from "./protocol.js"

/** One configuration of one library, run in a fresh client process. */
export interface OverloadClient {
  /** Unique within a benchmark; also the server's tag for its requests. */
  readonly id: string
  readonly library: LibraryId
  readonly mode: ClientMode
  readonly label: string
}

export const retryTransientClient: OverloadClient = {
  id: "retry-transient",
  library: "effect-retry-transient",
  mode: "overload-default",
  label: "Effect + retryTransient"
}
export const kyClient: OverloadClient = { id: "ky", library: "ky", mode: "overload-default", label: "ky" }
export const gotClient: OverloadClient = { id: "got", library: "got", mode: "overload-default", label: "got" }
export const oursWithoutBudget: OverloadClient = {
  id: "ours-no-budget",
  library: "effect-http-resilience",
  mode: "overload-no-budget",
  label: "effect-http-resilience, no budget"
}
export const oursWithBudget: OverloadClient = {
  id: "ours-budget",
  library: "effect-http-resilience",
  mode: "overload-default",
  label: "effect-http-resilience, default budget"
}
export const oursWithBreaker: OverloadClient = {
  id: "ours-breaker",
  library: "effect-http-resilience",
  mode: "overload-breaker",
  label: "effect-http-resilience, budget + breaker"
}

/** A compared client and the fresh process it runs in. */
export interface Started {
  readonly client: OverloadClient
  readonly worker: WorkerProcess
}

/**
 * Starts a fresh client process per client (no budget or breaker state carries over from
 * anything else), runs `f` with them in the clients' order, and stops them.
 */
export const withFreshProcesses = async <A>(
  origin: string,
  clients: ReadonlyArray<OverloadClient>,
  f: (started: ReadonlyArray<Started>) => Promise<A>
): Promise<A> => {
  const workers = await startWorkerList(
    clients.map((client) => client.library),
    origin,
    { exposeGc: false }
  )
  try {
    return await f(workers.map((worker, index) => ({ worker, client: clients[index]! })))
  } finally {
    await stopWorkers(workers)
  }
}

/** A job of an overload benchmark: nothing measured but outcomes and attempts. */
export const overloadJob = (
  client: OverloadClient,
  route: Route,
  keyPrefix: string,
  count: number,
  concurrency: number,
  extra: Pick<Job, "origin" | "failingShare" | "ratePerSecond"> = {}
): Job => ({
  mode: client.mode,
  route,
  keyPrefix,
  count,
  concurrency,
  latencies: false,
  allocations: false,
  memory: false,
  ...extra
})

/**
 * An origin where nothing listens, so that every connection is refused: a port the system just
 * handed out and that was closed again (no other process of this run asks for one meanwhile).
 */
export const refusedOrigin = (): Promise<string> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => {
        if (address === null || typeof address === "string") reject(new Error("no TCP address"))
        else resolve(`http://127.0.0.1:${address.port}`)
      })
    })
  })

/** `value / calls`, or NaN for no calls. */
export const perCall = (value: number, calls: number): number => (calls === 0 ? Number.NaN : value / calls)
