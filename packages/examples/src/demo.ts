/**
 * `pnpm demo`: the library against the embedded chaos server, scenario by scenario, with a
 * timeline of every attempt; exits non-zero when a scenario misbehaves.
 * `pnpm demo -- --url <URL>`: one resilient GET against any URL with the default policy.
 * `pnpm demo -- --line effect4 [--url <URL>]`: the same on the Effect 4 line
 * (`effect-http-resilience-effect4`), in a process of its own under Node 22
 * (`scripts/node22.sh`, as Effect 4's Node transport needs), with the chaos server still run here.
 */
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as Driver from "./demo/Driver.js"
import * as Effect3 from "./demo/Effect3.js"
import * as Timeline from "./demo/Timeline.js"

const output: Driver.Output = {
  write: (line) => process.stdout.write(`${line}\n`),
  style: Timeline.styleFor(process.stdout, process.env)
}

const node22Script = fileURLToPath(new URL("../../../scripts/node22.sh", import.meta.url))
const effect4Demo = fileURLToPath(new URL("../../examples-effect4/src/demo.ts", import.meta.url))
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

/**
 * Runs the Effect 4 demo with `args` under Node 22, its output on this process's terminal;
 * succeeds with whether it exited with 0. Interrupting this fiber stops it.
 */
const runOnEffect4 = (args: ReadonlyArray<string>) =>
  Effect.async<boolean, Error>((resume) => {
    const child = spawn("bash", [node22Script, "node", "--import", tsxLoader, effect4Demo, ...args], {
      stdio: "inherit"
    })
    child.once("error", (error) => resume(Effect.fail(error)))
    child.once("exit", (code) => resume(Effect.succeed(code === 0)))
    return Effect.sync(() => child.kill())
  })

const onEffect3 = <A, E>(f: (line: Driver.Line) => Promise<A>): Effect.Effect<A, E, HttpClient.HttpClient> =>
  Effect.flatMap(Effect.runtime<HttpClient.HttpClient>(), (runtime) =>
    Effect.promise(() => f(Effect3.line(runtime, `Node ${process.version}`)))
  )

const runScenarios = (line: Driver.LineName) =>
  Effect.gen(function* () {
    const server = yield* ChaosServer.ChaosServer
    if (line === "effect4") return yield* runOnEffect4(["--server", server.url])
    return yield* onEffect3((effect3) =>
      Driver.runScenarios(
        effect3,
        {
          url: server.url,
          reset: () => Effect.runPromise(server.reset),
          requests: () => Effect.runPromise(Effect.map(server.stats, (stats) => stats.requests.total))
        },
        output
      )
    )
  }).pipe(Effect.provide(ChaosServer.layer()))

const main = Effect.suspend(() => {
  const mode = Driver.parseArgs(process.argv.slice(2))
  if (typeof mode === "string") return Console.error(mode).pipe(Effect.as(false))
  // --server is how this process hands its chaos server to the Effect 4 one, not an option of pnpm demo.
  if (mode._tag === "Scenarios" && mode.server !== undefined) return Console.error(Driver.usage).pipe(Effect.as(false))
  if (mode._tag === "Scenarios") return runScenarios(mode.line)
  if (mode.line === "effect4") return runOnEffect4(["--url", mode.url])
  return onEffect3((effect3) => Driver.runUrl(effect3, mode.url, output))
}).pipe(Effect.provide(NodeHttpClient.layerUndici))

NodeRuntime.runMain(main, {
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) && exit.value ? 0 : 1)
})
