/**
 * Entry of a client process: `workerMain.ts <library> <origin>`, forked by the bench with an IPC
 * channel. It says `Ready`, then runs jobs one at a time, building its library's client for a
 * mode on first use, and exits as soon as its parent is gone.
 */
import * as Schema from "effect/Schema"
import { type BenchClient, makeClient } from "./clients.js"
import { type ClientMode, FromWorker, LibraryId, ToWorker } from "./protocol.js"
import { runJob } from "./worker.js"

const maxLifetimeMillis = 30 * 60 * 1000

const decodeMessage = Schema.decodeUnknownSync(ToWorker)
const encodeMessage = Schema.encodeSync(FromWorker)

const send = (message: FromWorker): void => {
  process.send?.(encodeMessage(message))
}

const main = async (): Promise<void> => {
  if (process.send === undefined) throw new Error("workerMain must be forked with an IPC channel")
  const [rawLibrary, origin] = process.argv.slice(2)
  if (origin === undefined) throw new Error("usage: workerMain <library> <origin>")
  const library = Schema.decodeUnknownSync(LibraryId)(rawLibrary)
  const clients = new Map<ClientMode, BenchClient>()
  const clientFor = async (mode: ClientMode): Promise<BenchClient> => {
    const existing = clients.get(mode)
    if (existing !== undefined) return existing
    const client = await makeClient(library, mode)
    clients.set(mode, client)
    return client
  }
  let queue: Promise<void> = Promise.resolve()
  process.on("message", (raw: unknown) => {
    const message = decodeMessage(raw)
    queue = queue.then(() =>
      clientFor(message.job.mode)
        .then((client) => runJob(client, origin, message.job))
        .then(
          (result) => send({ _tag: "Result", id: message.id, result }),
          (error: unknown) => send({ _tag: "Failed", id: message.id, message: String(error) })
        )
    )
  })
  process.on("disconnect", () => process.exit(0))
  setTimeout(() => process.exit(0), maxLifetimeMillis).unref()
  send({ _tag: "Ready" })
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
