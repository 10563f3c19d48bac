/**
 * Entry of a client process of the Effect 3 line and of the clients without Effect:
 * `workerMain.ts <library> <origin> [<redis url>]`, forked by the bench with an IPC channel (see
 * `workerLoop.ts`); the Redis URL is that of the `happy-redis` mode. The Effect 4 clients have
 * their own entry, `packages/bench-effect4/src/workerMain.ts`.
 */
import * as Schema from "effect/Schema"
import { makeClient } from "./clients.js"
import { FromWorker, LibraryId, ToWorker } from "./protocol.js"
import { runWorker, serveJobs } from "./workerLoop.js"

runWorker(() => {
  const [rawLibrary, origin, redisUrl] = process.argv.slice(2)
  if (origin === undefined) throw new Error("usage: workerMain <library> <origin> [<redis url>]")
  const library = Schema.decodeUnknownSync(LibraryId)(rawLibrary)
  serveJobs(origin, {
    decode: Schema.decodeUnknownSync(ToWorker),
    encode: Schema.encodeSync(FromWorker),
    makeClient: (mode) => makeClient(library, mode, redisUrl)
  })
})
