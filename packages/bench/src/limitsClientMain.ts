/**
 * Entry of an Effect 3 limits client process: `limitsClientMain.ts`, forked by the bench with an
 * IPC channel. It says `Ready` and runs the section's closed loops (`serveLimitsRuns`,
 * Effect-free, shared with the Effect 4 entry in `packages/bench-effect4`), each on a fresh client.
 */
import * as Schema from "effect/Schema"
import { runLimitsLoop } from "./limitsClient.js"
import { FromLimitsClient, ToLimitsClient } from "./protocol.js"
import { runWorker, serveLimitsRuns } from "./workerLoop.js"

runWorker(() => {
  serveLimitsRuns({
    decode: Schema.decodeUnknownSync(ToLimitsClient),
    encode: Schema.encodeSync(FromLimitsClient),
    run: runLimitsLoop
  })
})
