/**
 * `pnpm demo`: the library against the embedded chaos server, scenario by scenario, with a
 * timeline of every attempt; exits non-zero when a scenario misbehaves.
 * `pnpm demo -- --url <URL>`: one resilient GET against any URL with the default policy.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { ChaosServer } from "@effect-http-resilience/chaos-server"
import { ResilientHttpClient } from "effect-http-resilience"
import * as Scenarios from "./demo/Scenarios.js"
import * as Timeline from "./demo/Timeline.js"

const style = Timeline.styleFor(process.stdout, process.env)
const write = (line: string) => process.stdout.write(`${line}\n`)

const usage = "usage: pnpm demo [-- --url <URL>]"

type Mode = { readonly _tag: "Scenarios" } | { readonly _tag: "Url"; readonly url: string }

const parseArgs = (args: ReadonlyArray<string>): Mode | string => {
  const rest = args.filter((arg) => arg !== "--")
  if (rest.length === 0) return { _tag: "Scenarios" }
  if (rest.length === 2 && rest[0] === "--url") {
    const url = rest[1]!
    return URL.canParse(url) ? { _tag: "Url", url } : `not a URL: ${url}\n${usage}`
  }
  return usage
}

/** Runs one call with a timeline, over a resilient client made from `policy`. */
const withTimeline = <A, E, R>(
  policy: ResilientHttpClient.PolicyInput | undefined,
  call: Effect.Effect<A, E, R | ResilientHttpClient.ResilientHttpClient>
) =>
  Effect.gen(function* () {
    const timeline = Timeline.make(write, style)
    const exit = yield* call.pipe(
      ResilientHttpClient.observeDecisions(timeline.observer),
      Effect.provide(ResilientHttpClient.layer(policy)),
      Effect.exit
    )
    return { exit, timeline }
  })

const outcomeLine = (exit: Exit.Exit<string, unknown>, timeline: Timeline.Timeline): string => {
  const attempts = timeline.failedAttempts() + (Exit.isSuccess(exit) ? 1 : 0)
  const took = Timeline.seconds(timeline.elapsed())
  if (Exit.isSuccess(exit)) return `${exit.value} (attempt ${attempts}, ${took})`
  const failure = Cause.failureOption(exit.cause)
  return `${Option.match(failure, { onNone: () => Cause.pretty(exit.cause), onSome: Scenarios.describeFailure })} (${took})`
}

const runScenarios = Effect.gen(function* () {
  const server = yield* ChaosServer.ChaosServer
  write(style.bold(`chaos server on ${server.url}`))
  const scenarios = Scenarios.all(`demo-${Date.now().toString(36)}`)
  let misbehaved = 0
  for (const [index, scenario] of scenarios.entries()) {
    yield* server.reset
    write("")
    write(style.bold(`${index + 1}. ${scenario.title}`))
    write(style.cyan(`   ${scenario.request}`))
    const { exit, timeline } = yield* withTimeline(scenario.policy, scenario.run(server.url))
    const stats = yield* server.stats
    const problem = scenario.check(exit, { requests: stats.requests.total, elapsedMillis: timeline.elapsed() })
    const outcome = outcomeLine(exit, timeline)
    if (problem === undefined) {
      write(`   ${style.green("ok")}  ${outcome}`)
    } else {
      misbehaved++
      write(`   ${style.red("UNEXPECTED")}  ${outcome}: ${problem}`)
    }
  }
  write("")
  write(
    misbehaved === 0
      ? style.green(`all ${scenarios.length} scenarios behaved as expected`)
      : style.red(`${misbehaved} of ${scenarios.length} scenarios misbehaved`)
  )
  return misbehaved === 0
}).pipe(Effect.provide(ChaosServer.layer()))

const runUrl = (url: string) =>
  Effect.gen(function* () {
    write(style.bold(`GET ${url} with the default policy`))
    const { exit, timeline } = yield* withTimeline(
      undefined,
      Effect.scoped(
        Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) => client.get(url)).pipe(
          Effect.flatMap((response) =>
            Effect.map(response.text, (body) => {
              const snippet = body.length > 200 ? `${body.slice(0, 200)}...` : body
              return `${Timeline.describeStatus(response.status)} ${JSON.stringify(snippet)}`
            })
          )
        )
      )
    )
    const line = outcomeLine(exit, timeline)
    write(Exit.isSuccess(exit) ? `${style.green("ok")}  ${line}` : `${style.red("failed")}  ${line}`)
    return Exit.isSuccess(exit)
  })

const main = Effect.suspend(() => {
  const mode = parseArgs(process.argv.slice(2))
  if (typeof mode === "string") return Console.error(mode).pipe(Effect.as(false))
  return mode._tag === "Url" ? runUrl(mode.url) : runScenarios
}).pipe(Effect.provide(NodeHttpClient.layerUndici))

NodeRuntime.runMain(main, {
  disablePrettyLogger: true,
  teardown: (exit, onExit) => onExit(Exit.isSuccess(exit) && exit.value ? 0 : 1)
})
