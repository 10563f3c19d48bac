/**
 * The life of a client process, whichever Effect line its client is built on: say `Ready`, run
 * the jobs the parent sends one at a time (building the client for a mode on first use), and
 * exit as soon as the parent is gone. Effect-free: each line's entry (`workerMain.ts` here,
 * `packages/bench-effect4/src/workerMain.ts` for Effect 4) brings its own decoding of the
 * parent's messages and its own clients.
 */
import type { BenchClient } from "./benchClient.js"
import type { ClientMode, FromWorker, ToWorker } from "./protocol.js"
import { runJob } from "./worker.js"

const maxLifetimeMillis = 30 * 60 * 1000

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
  const send = process.send?.bind(process)
  if (send === undefined) throw new Error("a client process must be forked with an IPC channel")
  const reply = (message: FromWorker): void => {
    send(entry.encode(message))
  }
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
  process.on("disconnect", () => process.exit(0))
  setTimeout(() => process.exit(0), maxLifetimeMillis).unref()
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
