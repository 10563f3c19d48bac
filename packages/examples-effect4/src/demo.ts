/**
 * The demo on the Effect 4 line, started by `pnpm demo -- --line effect4 [--url <URL>]` under
 * Node 22: the scenarios against the chaos server that `pnpm demo` runs and names with
 * `--server <URL>`, or one resilient GET of `--url <URL>`. It imports Effect 4 only; the
 * scenarios, the timeline and the output are `packages/examples`' (Effect-free).
 */
import { NodeHttpClient, NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Exit } from "effect"
import type { HttpClient } from "effect/http"
import * as Driver from "@effect-http-resilience/examples/demo/Driver"
import * as Timeline from "@effect-http-resilience/examples/demo/Timeline"
import { chaosServer, line } from "./demo/Effect4.js"

const output: Driver.Output = {
  write: (text) => process.stdout.write(`${text}\n`),
  style: Timeline.styleFor(process.stdout, process.env)
}

const main = Effect.gen(function* () {
  const mode = Driver.parseArgs(process.argv.slice(2))
  if (typeof mode === "string") return yield* Console.error(mode).pipe(Effect.as(false))
  const context = yield* Effect.context<HttpClient.HttpClient>()
  if (mode._tag === "Url") {
    return yield* Effect.promise(() => Driver.runUrl(line(context), mode.url, output))
  }
  if (mode.server === undefined) {
    return yield* Console.error(`the Effect 4 demo runs against the chaos server of pnpm demo -- --line effect4`).pipe(
      Effect.as(false)
    )
  }
  const server = chaosServer(mode.server, context)
  return yield* Effect.promise(() => Driver.runScenarios(line(context), server, output))
}).pipe(Effect.provide(NodeHttpClient.layerUndici))

NodeRuntime.runMain(main, {
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) && exit.value ? 0 : 1)
})
