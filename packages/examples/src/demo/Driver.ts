/**
 * `pnpm demo` on either Effect line: the command line, the scenarios one by one with a timeline
 * of every attempt, and a single resilient GET. Effect-free, so that both lines print the same
 * output and exit alike: each line brings only the calls themselves (a {@link Line}).
 *
 * @since 0.3.0
 */
import { describeFailure, type Outcome, type Scenario, all } from "./Scenarios.js"
import { make as makeTimeline, seconds, type Style, type Timeline } from "./Timeline.js"

/**
 * The Effect lines the demo runs on.
 *
 * @since 0.3.0
 * @category models
 */
export const lines = ["effect3", "effect4"] as const

/**
 * @since 0.3.0
 * @category models
 */
export type LineName = (typeof lines)[number]

/**
 * What the command line asks for: the scenarios (against the chaos server, or against a server
 * already running at `server`, as the Effect 4 line is given its own), or one GET of `url`.
 *
 * @since 0.3.0
 * @category models
 */
export type Mode =
  | { readonly _tag: "Scenarios"; readonly line: LineName; readonly server: string | undefined }
  | { readonly _tag: "Url"; readonly line: LineName; readonly url: string }

/**
 * @since 0.3.0
 * @category models
 */
export const usage = `usage: pnpm demo [-- [--line ${lines.join("|")}] [--url <URL>]]`

const isLine = (name: string): name is LineName => lines.some((line) => line === name)

/**
 * Reads `[--line effect3|effect4] [--url <URL> | --server <URL>]` (a `--` is ignored); a string
 * when the command line is wrong: what to print. `--server` is how the Effect 3 process hands the
 * chaos server it runs to the Effect 4 one.
 *
 * @since 0.3.0
 * @category parsing
 */
export const parseArgs = (args: ReadonlyArray<string>): Mode | string => {
  const rest = args.filter((arg) => arg !== "--")
  let line: LineName = "effect3"
  let url: string | undefined
  let server: string | undefined
  for (let index = 0; index < rest.length; index += 2) {
    const [option, value] = [rest[index], rest[index + 1]]
    if (value === undefined) return usage
    if (option === "--line" && isLine(value)) line = value
    else if ((option === "--url" || option === "--server") && !URL.canParse(value)) {
      return `not a URL: ${value}\n${usage}`
    } else if (option === "--url") url = value
    else if (option === "--server") server = value
    else return usage
  }
  if (url !== undefined) return server === undefined ? { _tag: "Url", line, url } : usage
  return { _tag: "Scenarios", line, server }
}

/**
 * One Effect line's calls: each runs with a resilient client made from its policy, every
 * decision recorded on the timeline.
 *
 * @since 0.3.0
 * @category models
 */
export interface Line {
  /** Which package on which Effect, for the first line of the output. */
  readonly description: string
  readonly runScenario: (scenario: Scenario, baseUrl: string, timeline: Timeline) => Promise<Outcome>
  /** A GET of `url` with the default policy; its summary is the status and the start of the body. */
  readonly get: (url: string, timeline: Timeline) => Promise<Outcome>
}

/**
 * The chaos server the scenarios run against.
 *
 * @since 0.3.0
 * @category models
 */
export interface Server {
  readonly url: string
  readonly reset: () => Promise<void>
  /** Requests received since the last reset. */
  readonly requests: () => Promise<number>
}

/**
 * `200 OK, X-Attempt: 3 (attempt 3, 2.31s)`, or the failure and how long the call took.
 *
 * @since 0.3.0
 * @category formatting
 */
export const outcomeLine = (outcome: Outcome, timeline: Timeline): string => {
  const took = seconds(timeline.elapsed())
  if (outcome._tag === "Success") return `${outcome.value} (attempt ${timeline.failedAttempts() + 1}, ${took})`
  return `${outcome.failure === undefined ? outcome.text : describeFailure(outcome.failure)} (${took})`
}

/**
 * Where the demo writes, and how.
 *
 * @since 0.3.0
 * @category models
 */
export interface Output {
  readonly write: (line: string) => void
  readonly style: Style
}

/**
 * Runs every scenario on `line` against `server`, writing headings, timelines and outcomes;
 * `true` when every scenario behaved as it must.
 *
 * @since 0.3.0
 * @category running
 */
export const runScenarios = async (line: Line, server: Server, output: Output): Promise<boolean> => {
  const { style, write } = output
  write(style.bold(`chaos server on ${server.url}, ${line.description}`))
  const scenarios = all(`demo-${Date.now().toString(36)}`)
  let misbehaved = 0
  for (const [index, scenario] of scenarios.entries()) {
    await server.reset()
    write("")
    write(style.bold(`${index + 1}. ${scenario.title}`))
    write(style.cyan(`   ${scenario.request}`))
    const timeline = makeTimeline(write, style)
    const outcome = await line.runScenario(scenario, server.url, timeline)
    const problem = scenario.check(outcome, { requests: await server.requests(), elapsedMillis: timeline.elapsed() })
    if (problem === undefined) {
      write(`   ${style.green("ok")}  ${outcomeLine(outcome, timeline)}`)
    } else {
      misbehaved++
      write(`   ${style.red("UNEXPECTED")}  ${outcomeLine(outcome, timeline)}: ${problem}`)
    }
  }
  write("")
  write(
    misbehaved === 0
      ? style.green(`all ${scenarios.length} scenarios behaved as expected`)
      : style.red(`${misbehaved} of ${scenarios.length} scenarios misbehaved`)
  )
  return misbehaved === 0
}

/**
 * One resilient GET of `url` with the default policy, with its timeline; `true` when it succeeded.
 *
 * @since 0.3.0
 * @category running
 */
export const runUrl = async (line: Line, url: string, output: Output): Promise<boolean> => {
  const { style, write } = output
  write(style.bold(`GET ${url} with the default policy, ${line.description}`))
  const timeline = makeTimeline(write, style)
  const outcome = await line.get(url, timeline)
  const succeeded = outcome._tag === "Success"
  write(`${succeeded ? style.green("ok") : style.red("failed")}  ${outcomeLine(outcome, timeline)}`)
  return succeeded
}

/**
 * The summary of a successful GET of any URL: the status and the first 200 characters of the body.
 *
 * @since 0.3.0
 * @category formatting
 */
export const bodySummary = (statusLine: string, body: string): string =>
  `${statusLine} ${JSON.stringify(body.length > 200 ? `${body.slice(0, 200)}...` : body)}`
