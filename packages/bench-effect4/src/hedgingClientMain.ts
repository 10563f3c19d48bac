/**
 * Entry of an Effect 4 hedging client process: `hedgingClientMain.ts <mode>`, forked by
 * `packages/bench` under Node 22 with an IPC channel, as its Effect 3 one
 * (`packages/bench/src/hedgingClientMain.ts`): builds this library's client in that
 * configuration once and serves the section's batches (`serveHedgingRuns`, Effect-free). Imports
 * Effect 4 only.
 */
import { Schema } from "effect"
import { runWorker, serveHedgingRuns } from "@effect-http-resilience/bench/workerLoop"
import { makeHedgingClient } from "./clients.js"
import { HedgingMode, ToHedgingClient } from "./protocol.js"

runWorker(async () => {
  const mode = Schema.decodeUnknownSync(HedgingMode)(process.argv[2])
  serveHedgingRuns({
    decode: Schema.decodeUnknownSync(ToHedgingClient),
    // Plain numbers, strings and arrays: the message is its own encoding, and the parent decodes it.
    encode: (message) => message,
    client: await makeHedgingClient(mode)
  })
})
