/**
 * The life of a client process, whichever Effect line its client is built on: say `Ready`, run
 * the jobs the parent sends one at a time (building the client for a mode on first use), and
 * exit as soon as the parent is gone. Effect-free: each line's entry (`workerMain.ts`,
 * `hedgingClientMain.ts` and `limitsClientMain.ts` here, the same in `packages/bench-effect4/src/` for Effect 4) brings its
 * own decoding of the parent's messages and its own clients.
 */
import type { BenchClient, HedgingClient } from "./benchClient.js"
import type {
  ClientMode,
  FromHedgingClient,
  FromLimitsClient,
  FromWorker,
  LimitsRun,
  LimitsRunResult,
  ToHedgingClient,
  ToLimitsClient,
  ToWorker
} from "./protocol.js"
import { runJob } from "./worker.js"

const maxLifetimeMillis = 30 * 60 * 1000

/**
 * The channel to the parent this process was forked with: `reply` sends a message (encoded), and
 * the process exits when the parent is gone, or after {@link maxLifetimeMillis} at the latest.
 */
const parentChannel = <A>(encode: (message: A) => unknown, what: string): ((message: A) => void) => {
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error(`${what} must be forked with an IPC channel`)
  process.on("disconnect", () => process.exit(0))
  setTimeout(() => process.exit(0), maxLifetimeMillis).unref()
  return (message) => {
    send(encode(message))
  }
}

export interface WorkerEntry {
  /** Decodes a message from the parent; throws on anything that is not a `ToWorker`. */
  readonly decode: (raw: unknown) => ToWorker
  /** Encodes a message to the parent. */
  readonly encode: (message: FromWorker) => unknown
  /** Builds this process's client in `mode`. */
  readonly makeClient: (mode: ClientMode) => Promise<BenchClient>
}

/** Serves the parent at `origin` over the IPC channel this process was forked with. */
export const serveJobs = (origin: string, entry: WorkerEntry): void => {
  const reply = parentChannel(entry.encode, "a client process")
  const clients = new Map<ClientMode, Promise<BenchClient>>()
  const clientFor = (mode: ClientMode): Promise<BenchClient> => {
    let client = clients.get(mode)
    if (client === undefined) {
      client = entry.makeClient(mode)
      clients.set(mode, client)
    }
    return client
  }
  let queue: Promise<void> = Promise.resolve()
  process.on("message", (raw: unknown) => {
    const message = entry.decode(raw)
    queue = queue.then(() =>
      clientFor(message.job.mode)
        .then((client) => runJob(client, origin, message.job))
        .then(
          (result) => reply({ _tag: "Result", id: message.id, result }),
          (error: unknown) => reply({ _tag: "Failed", id: message.id, message: String(error) })
        )
    )
  })
  reply({ _tag: "Ready" })
}

export interface HedgingEntry {
  /** Decodes a message from the parent; throws on anything that is not a `ToHedgingClient`. */
  readonly decode: (raw: unknown) => ToHedgingClient
  /** Encodes a message to the parent. */
  readonly encode: (message: FromHedgingClient) => unknown
  /** This process's client, built once, in the configuration it was started with. */
  readonly client: HedgingClient
}

/**
 * Serves the hedging section's parent: runs the batches it sends one at a time (paced: call `i`
 * starts at `i / ratePerSecond` s), and answers each with every call's latency, the process's CPU
 * time over the batch and the delay of every hedge sent.
 */
export const serveHedgingRuns = (entry: HedgingEntry): void => {
  const reply = parentChannel(entry.encode, "a hedging client process")
  const { client, takeHedgeDelays } = entry.client
  let queue: Promise<void> = Promise.resolve()
  process.on("message", (raw: unknown) => {
    const { id, run } = entry.decode(raw)
    queue = queue.then(async () => {
      try {
        const latencies = new Float64Array(run.count)
        takeHedgeDelays()
        const cpuAtStart = process.cpuUsage()
        const started = performance.now()
        const outcome = await client.runBatch({
          urlFor: () => run.url,
          count: run.count,
          concurrency: run.concurrency,
          latencies,
          startAt: (index) => (index * 1000) / run.ratePerSecond
        })
        const wallMs = performance.now() - started
        const cpu = process.cpuUsage(cpuAtStart)
        reply({
          _tag: "HedgingResult",
          id,
          result: {
            ...outcome,
            wallMs,
            cpuMicros: cpu.user + cpu.system,
            latenciesMs: Array.from(latencies),
            hedgeDelaysMs: takeHedgeDelays()
          }
        })
      } catch (error) {
        reply({ _tag: "Failed", id, message: String(error) })
      }
    })
  })
  reply({ _tag: "Ready" })
}

export interface LimitsEntry {
  /** Decodes a message from the parent; throws on anything that is not a `ToLimitsClient`. */
  readonly decode: (raw: unknown) => ToLimitsClient
  /** Encodes a message to the parent. */
  readonly encode: (message: FromLimitsClient) => unknown
  /** Runs one closed loop on a fresh client of the run's mode (see `LimitsRun`). */
  readonly run: (run: LimitsRun) => Promise<LimitsRunResult>
}

/** Serves the limits section's parent: runs the closed loops it sends one at a time, and answers each with every call. */
export const serveLimitsRuns = (entry: LimitsEntry): void => {
  const reply = parentChannel(entry.encode, "a limits client process")
  let queue: Promise<void> = Promise.resolve()
  process.on("message", (raw: unknown) => {
    const { id, run } = entry.decode(raw)
    queue = queue.then(() =>
      entry.run(run).then(
        (result) => reply({ _tag: "LimitsResult", id, result }),
        (error: unknown) => reply({ _tag: "Failed", id, message: String(error) })
      )
    )
  })
  reply({ _tag: "Ready" })
}

/** Runs `main`, and exits with status 1 if it throws or rejects. */
export const runWorker = (main: () => void | Promise<void>): void => {
  Promise.resolve()
    .then(main)
    .catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
}
