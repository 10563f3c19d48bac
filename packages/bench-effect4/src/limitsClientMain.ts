/**
 * Entry of an Effect 4 limits client process: `limitsClientMain.ts`, forked by `packages/bench`
 * under Node 22 with an IPC channel, as its Effect 3 one (`packages/bench/src/limitsClientMain.ts`):
 * runs the section's closed loops (`serveLimitsRuns`, Effect-free), each on a fresh client.
 * Imports Effect 4 only.
 */
import { Schema } from "effect"
import { runWorker, serveLimitsRuns } from "@effect-http-resilience/bench/workerLoop"
import { runLimitsLoop } from "./clients.js"
import { ToLimitsClient } from "./protocol.js"

runWorker(() => {
  serveLimitsRuns({
    decode: Schema.decodeUnknownSync(ToLimitsClient),
    // Plain numbers, strings and arrays: the message is its own encoding, and the parent decodes it.
    encode: (message) => message,
    run: runLimitsLoop
  })
})
