/**
 * `pnpm demo` on either Effect line: the command line, the scenarios one by one with a timeline
 * of every attempt, and a single resilient GET. Effect-free, so that both lines print the same
 * output and exit alike: each line brings only the calls themselves (a {@link Line}).
 *
 * @since 0.3.0
 */
import { describeFailure, type Observed, type Outcome, type Scenario, all } from "./Scenarios.js"
import { make as makeTimeline, seconds, type Style, type Timeline } from "./Timeline.js"

/**
 * The Effect lines the demo runs on.
 */
const lines = ["effect3", "effect4"] as const

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
  /**
   * Whether the transport under the client sends a request again by itself, unseen by the client,
   * when the reused keep-alive connection it went on closes before any answer: a browser's `fetch`
   * does (Chromium resends on a fresh connection), Node's undici does not. Absent: it does not.
   */
  readonly transportResends?: boolean
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
 * How many attempts the call made: the failing one's number, or one more than those that failed.
 *
 * @since 0.3.0
 * @category formatting
 */
export const attemptsMade = (outcome: Outcome, timeline: Timeline): number =>
  outcome._tag === "Success" ? timeline.failedAttempts() + 1 : (outcome.failure?.attempt ?? timeline.failedAttempts())

/**
 * `200 OK, X-Attempt: 3 (attempt 3, 2.31s)`, or the failure and how long the call took.
 *
 * @since 0.3.0
 * @category formatting
 */
export const outcomeLine = (outcome: Outcome, timeline: Timeline): string => {
  const took = seconds(timeline.elapsed())
  if (outcome._tag === "Success") return `${outcome.value} (attempt ${attemptsMade(outcome, timeline)}, ${took})`
  return `${outcome.failure === undefined ? outcome.text : describeFailure(outcome.failure)} (${took})`
}

/**
 * `chaos server on http://127.0.0.1:PORT, effect-http-resilience on Effect 3 (...)`.
 *
 * @since 0.3.0
 * @category formatting
 */
export const headerLine = (line: Line, server: Server): string => `chaos server on ${server.url}, ${line.description}`

/**
 * `all 10 scenarios behaved as expected`, or how many misbehaved.
 *
 * @since 0.3.0
 * @category formatting
 */
export const summaryLine = (runs: ReadonlyArray<ScenarioRun>): string => {
  const misbehaved = runs.filter((run) => run.problem !== undefined).length
  return misbehaved === 0
    ? `all ${runs.length} scenarios behaved as expected`
    : `${misbehaved} of ${runs.length} scenarios misbehaved`
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
 * One scenario as it ran: how its call ended, its timeline, and whether it behaved.
 *
 * @since 0.3.0
 * @category models
 */
export interface ScenarioRun {
  /** 0-based, in the order the scenarios run. */
  readonly index: number
  readonly scenario: Scenario
  readonly outcome: Outcome
  readonly timeline: Timeline
  readonly observed: Observed
  /** `undefined` when the scenario behaved as it must; otherwise what was wrong (its own check). */
  readonly problem: string | undefined
}

/**
 * How scenarios are shown while they run: the terminal writes lines, the browser page draws.
 *
 * @since 0.3.0
 * @category models
 */
export interface ScenarioDisplay {
  /** A scenario is about to make its call, the server just reset: where its decisions go. */
  readonly started: (scenario: Scenario, index: number) => Timeline
  readonly finished: (run: ScenarioRun) => void
}

/**
 * Runs every scenario on `line` against `server`, one after another, each checked against what
 * the server and the clock saw.
 *
 * @since 0.3.0
 * @category running
 */
export const runEachScenario = async (
  line: Line,
  server: Server,
  display: ScenarioDisplay
): Promise<ReadonlyArray<ScenarioRun>> => {
  const runs: Array<ScenarioRun> = []
  // A fresh key for every run, so that the recovering services fail again on a server already used.
  for (const [index, scenario] of all(`demo-${Date.now().toString(36)}`).entries()) {
    await server.reset()
    const timeline = display.started(scenario, index)
    const outcome = await line.runScenario(scenario, server.url, timeline)
    const observed: Observed = {
      requests: await server.requests(),
      elapsedMillis: timeline.elapsed(),
      transportResends: line.transportResends === true
    }
    const run: ScenarioRun = {
      index,
      scenario,
      outcome,
      timeline,
      observed,
      problem: scenario.check(outcome, observed)
    }
    display.finished(run)
    runs.push(run)
  }
  return runs
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
  write(style.bold(headerLine(line, server)))
  const runs = await runEachScenario(line, server, {
    started: (scenario, index) => {
      write("")
      write(style.bold(`${index + 1}. ${scenario.title}`))
      write(style.cyan(`   ${scenario.request}`))
      return makeTimeline(write, style)
    },
    finished: ({ outcome, problem, timeline }) =>
      write(
        problem === undefined
          ? `   ${style.green("ok")}  ${outcomeLine(outcome, timeline)}`
          : `   ${style.red("UNEXPECTED")}  ${outcomeLine(outcome, timeline)}: ${problem}`
      )
  })
  const behaved = runs.every((run) => run.problem === undefined)
  write("")
  write((behaved ? style.green : style.red)(summaryLine(runs)))
  return behaved
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
