/**
 * Entry of an Effect 3 hedging client process: `hedgingClientMain.ts <mode>`, forked by the bench
 * with an IPC channel. It builds this library's client in that configuration once, says `Ready`,
 * and serves the section's batches (`serveHedgingRuns`, Effect-free, shared with the Effect 4
 * entry in `packages/bench-effect4`).
 */
import * as Schema from "effect/Schema"
import { makeHedgingClient } from "./hedgingClient.js"
import { FromHedgingClient, HedgingMode, ToHedgingClient } from "./protocol.js"
import { runWorker, serveHedgingRuns } from "./workerLoop.js"

runWorker(async () => {
  const mode = Schema.decodeUnknownSync(HedgingMode)(process.argv[2])
  serveHedgingRuns({
    decode: Schema.decodeUnknownSync(ToHedgingClient),
    encode: Schema.encodeSync(FromHedgingClient),
    client: await makeHedgingClient(mode)
  })
})
