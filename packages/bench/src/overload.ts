/**
 * What the overload benchmarks (outage, sparse failures, breaker) share: the clients they
 * compare, each in a client process of its own, and the jobs they send.
 */
import * as Net from "node:net"
import { libraryById } from "./clients.js"
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

/** A library as shipped (retrying at once on `Retry-After: 0` where it would wait), under its own label. */
const asShipped = (library: LibraryId, id: string = library): OverloadClient => ({
  id,
  library,
  mode: "overload-default",
  label: libraryById(library).label
})

/**
 * This library (on one Effect line) without a budget, with its default budget, with the breaker
 * too, and with its defaults applied per call.
 */
const oursOn = (library: LibraryId, idPrefix: string) => {
  const { label } = libraryById(library)
  const ours = (suffix: string, mode: ClientMode, what: string): OverloadClient => ({
    id: `${idPrefix}-${suffix}`,
    library,
    mode,
    label: `${label}, ${what}`
  })
  return [
    ours("no-budget", "overload-no-budget", "no budget"),
    ours("budget", "overload-default", "default budget"),
    ours("breaker", "overload-breaker", "budget + breaker"),
    ours("per-call", "overload-per-call", "applied per call")
  ] as const
}

export const retryTransientClient = asShipped("effect-retry-transient", "retry-transient")
export const kyClient = asShipped("ky")
export const gotClient = asShipped("got")
export const [oursWithoutBudget, oursWithBudget, oursWithBreaker, oursPerCall] = oursOn(
  "effect-http-resilience",
  "ours"
)

export const effect4RetryTransientClient = asShipped("effect4-retry-transient")
export const effect4BreakerClient = asShipped("effect4-retry-transient-breaker")
export const [ours4WithoutBudget, ours4WithBudget, ours4WithBreaker, ours4PerCall] = oursOn(
  "effect4-http-resilience",
  "ours4"
)

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
