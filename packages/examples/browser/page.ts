/**
 * The browser page of `pnpm demo:browser`: the scenarios of `pnpm demo`, run on the Effect 3 line
 * (`effect-http-resilience` over `@effect/platform`'s `FetchHttpClient`) against the chaos server
 * named by `?server=URL`, of another origin, each call's timeline drawn as it happens.
 *
 * When every scenario has run, `document.body.dataset.state` is `"done"` (`"error"` if the page
 * itself failed), and each scenario's `<section>` carries `data-scenario` (its number),
 * `data-attempts`, `data-outcome` (`ok` or `failed`) and `data-ok` (whether it behaved as the
 * demo's own check requires), for the test that loads this page in Chromium.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Driver from "../src/demo/Driver.js"
import * as Effect3 from "../src/demo/Effect3.js"
import type { Scenario } from "../src/demo/Scenarios.js"
import * as Timeline from "../src/demo/Timeline.js"
import { drawTimeline, type Ending, type RecordedDecision } from "./TimelineDrawing.js"

type Attributes = Readonly<Record<string, string | number>>

const element = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes,
  ...children: ReadonlyArray<Node | string>
): HTMLElementTagNameMap[K] => {
  const created = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes)) created.setAttribute(name, String(value))
  created.append(...children)
  return created
}

const byId = (id: string): HTMLElement => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`index.html has no #${id}`)
  return found
}

/** One decision as the terminal writes it, in parts a stylesheet can colour. */
const decisionRow = ({ atMillis, decision }: RecordedDecision): HTMLLIElement => {
  const common = [
    element("span", { class: "at" }, `+${Timeline.seconds(atMillis)}`),
    element("span", {}, `attempt ${decision.failure.attempt}`),
    element("span", { class: "failed" }, Timeline.describeFailedAttempt(decision.failure))
  ]
  if (decision._tag === "GiveUp") {
    return element(
      "li",
      { "data-decision": "give-up", "data-give-up": decision.reason },
      ...common,
      element("span", { class: "then" }, "→ give up"),
      element("span", {}, `(${Timeline.describeGiveUp(decision.reason)})`)
    )
  }
  const reason = Timeline.describeWaitReason(decision)
  return element(
    "li",
    {
      "data-decision": "retry",
      "data-wait-millis": decision.delayMillis,
      "data-wait-source": decision.source,
      "data-wait-reason": reason
    },
    ...common,
    element("span", { class: "then" }, `→ wait ${Timeline.seconds(decision.delayMillis)}`),
    element("span", { class: decision.source === "backoff" ? "why backoff" : "why retry-after" }, `(${reason})`)
  )
}

/**
 * A scenario's card: its heading, its timeline redrawn at each decision, the decisions in words,
 * and its outcome once it ends.
 */
const scenarioCard = (scenario: Scenario, index: number) => {
  const records: Array<RecordedDecision> = []
  const rows = element("ol", { class: "decisions" })
  const outcomeLine = element("p", { class: "outcome" }, "running…")
  const verdict = element("span", { class: "verdict" })
  let drawing = drawTimeline(records, undefined)
  const section = element(
    "section",
    { class: "scenario running", "data-scenario": index + 1 },
    element("header", {}, element("h2", {}, `${index + 1}. ${scenario.title}`), verdict),
    element("p", { class: "request" }, scenario.request),
    drawing,
    rows,
    outcomeLine
  )
  const redraw = (ending: Ending | undefined) => {
    const next = drawTimeline(records, ending)
    drawing.replaceWith(next)
    drawing = next
  }
  const timeline = Timeline.track((decision, atMillis) => {
    const recorded = { decision, atMillis }
    records.push(recorded)
    rows.append(decisionRow(recorded))
    redraw(undefined)
  })
  const finish = ({ observed, outcome, problem }: Driver.ScenarioRun) => {
    redraw({ outcome, elapsedMillis: timeline.elapsed() })
    const behaved = problem === undefined
    section.className = `scenario ${behaved ? "behaved" : "misbehaved"}`
    const attempts = Driver.attemptsMade(outcome, timeline)
    Object.assign(section.dataset, {
      attempts: String(attempts),
      requests: String(observed.requests),
      outcome: outcome._tag === "Success" ? "ok" : "failed",
      ok: String(behaved)
    })
    if (outcome._tag === "Failure" && outcome.failure !== undefined) {
      section.dataset.failure = outcome.failure._tag
      if (outcome.failure.giveUpReason !== undefined) section.dataset.giveUp = outcome.failure.giveUpReason
    }
    // Whether the call succeeded and whether the scenario behaved are two things: a 400 that
    // fails at once is the scenario behaving.
    verdict.textContent = behaved ? "✓ as expected" : `✗ UNEXPECTED: ${problem}`
    const ended = outcome._tag === "Success" ? "ok" : "failed"
    outcomeLine.replaceChildren(
      element("span", { class: `badge ${ended}` }, ended),
      element("span", { class: "summary" }, Driver.outcomeLine(outcome, timeline))
    )
    if (observed.requests > attempts) {
      section.append(
        element(
          "p",
          { class: "note" },
          `The server saw ${observed.requests} requests for ${attempts} attempts: the browser resent a request by itself, ` +
            "on a new connection, when the reused keep-alive one was reset before any answer (RFC 9110 §9.2.2)."
        )
      )
    }
  }
  return { section, timeline, finish }
}

/** `HeadlessChrome/131`, `Firefox/133`: which browser ran the calls, for the header. */
const browserName = (): string =>
  /(?:HeadlessChrome|Chrome|Firefox|Version)\/\d+/.exec(navigator.userAgent)?.[0] ?? "this browser"

const serverFromQuery = (): string => {
  const server = new URLSearchParams(location.search).get("server")
  if (server === null || !URL.canParse(server)) {
    throw new Error("name the chaos server in the address: ?server=http://127.0.0.1:PORT (pnpm demo:browser does)")
  }
  return server.replace(/\/+$/, "")
}

const main = async (): Promise<void> => {
  const status = byId("status")
  const scenarios = byId("scenarios")
  const serverUrl = serverFromQuery()
  const runtime = await ManagedRuntime.make(FetchHttpClient.layer).runtime()
  // A browser resends a request whose reused connection closed before any answer; the reset
  // scenario's check allows for it, and its card says when it happened.
  const line: Driver.Line = { ...Effect3.line(runtime, `FetchHttpClient in ${browserName()}`), transportResends: true }
  const server = Effect3.chaosServer(serverUrl, runtime)
  byId("header").textContent = Driver.headerLine(line, server)
  const cards = new Map<number, ReturnType<typeof scenarioCard>>()
  const runs = await Driver.runEachScenario(line, server, {
    started: (scenario, index) => {
      status.textContent = `running scenario ${index + 1}…`
      const card = scenarioCard(scenario, index)
      cards.set(index, card)
      scenarios.append(card.section)
      return card.timeline
    },
    finished: (run) => cards.get(run.index)?.finish(run)
  })
  const behaved = runs.every((run) => run.problem === undefined)
  status.textContent = Driver.summaryLine(runs)
  status.className = behaved ? "behaved" : "misbehaved"
  document.body.dataset.state = "done"
}

/** The page itself failed (no server named, a server not answering): say so, and let the test know. */
const showError = (error: unknown): void => {
  const status = document.getElementById("status")
  if (status !== null) {
    status.textContent = `the page failed: ${error instanceof Error ? error.message : String(error)}`
    status.className = "misbehaved"
  }
  document.body.dataset.state = "error"
}

main().catch(showError)
