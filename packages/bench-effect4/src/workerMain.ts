/**
 * Entry of an Effect 4 client process: `workerMain.ts <library> <origin> [<redis url>]`, forked
 * by `packages/bench` under Node 22 with an IPC channel (the Redis URL is that of the
 * `happy-redis` mode). It serves jobs as the bench's own client processes do (`workerLoop.ts`
 * there, Effect-free), and imports Effect 4 only.
 */
import { Schema } from "effect"
import { runWorker, serveJobs } from "@effect-http-resilience/bench/workerLoop"
import { makeClient } from "./clients.js"
import { Effect4LibraryId, ToWorker } from "./protocol.js"

runWorker(() => {
  const [rawLibrary, origin, redisUrl] = process.argv.slice(2)
  if (origin === undefined) throw new Error("usage: workerMain <library> <origin> [<redis url>]")
  const library = Schema.decodeUnknownSync(Effect4LibraryId)(rawLibrary)
  serveJobs(origin, {
    decode: Schema.decodeUnknownSync(ToWorker),
    // Plain numbers, strings and booleans: the message is its own encoding, and the parent decodes it.
    encode: (message) => message,
    makeClient: (mode) => makeClient(library, mode, redisUrl)
  })
})
