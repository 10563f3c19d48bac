/**
 * The page of `pnpm demo:browser` in Chromium: served as the command serves it (the chaos server
 * with CORS on, the page from another origin), loaded in headless Debian Chromium, it runs every
 * scenario of `pnpm demo` and draws them. The test reads what the page shows, checks the facts the
 * demo's end-to-end test checks, and saves a full-page screenshot: into a temporary directory,
 * so that a test run leaves the tree as it was, or where `BROWSER_SCREENSHOT` says;
 * `pnpm screenshot:browser` sets it to the committed picture the browser guide shows
 * (docs/images/browser-timeline.png). Skipped where Chromium is missing (systemBinaries).
 */
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { chromiumArgs, chromiumPath } from "@effect-http-resilience/conformance/chromium"
import { chromium as chromiumBinary, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type BrowserDemo, serveBrowserDemo } from "../../src/browserDemo.js"
import * as Scenarios from "../../src/demo/Scenarios.js"

const screenshot = Path.resolve(
  process.env.BROWSER_SCREENSHOT ?? Path.join(Os.tmpdir(), `browser-timeline-${process.pid}.png`)
)

/** What each scenario must show, in order: the facts the demo's own checks hold it to. */
const expected = [
  { attempts: 3, outcome: "failed", failure: "TransientStatus" },
  { attempts: 3, outcome: "ok", failure: undefined },
  { attempts: 1, outcome: "failed", failure: "TransientStatus" },
  { attempts: 3, outcome: "ok", failure: undefined },
  { attempts: 1, outcome: "failed", failure: "PermanentStatus" },
  { attempts: 3, outcome: "failed", failure: "TransientStatus" },
  { attempts: 2, outcome: "failed", failure: "TransientStatus" },
  { attempts: 3, outcome: "failed", failure: "ConnectionError" },
  { attempts: 1, outcome: "failed", failure: "DecodeError" },
  { attempts: 1, outcome: "ok", failure: undefined }
] as const

interface ShownScenario {
  readonly title: string
  readonly number: string | undefined
  readonly attempts: string | undefined
  readonly outcome: string | undefined
  readonly failure: string | undefined
  readonly ok: string | undefined
  readonly giveUp: string | undefined
  readonly outcomeText: string
  /** `✓ as expected`, or what the demo's check found wrong. */
  readonly verdict: string
  /** The attempts' marks on the drawing, `ok` or `failed` each. */
  readonly marks: ReadonlyArray<string>
  readonly waits: ReadonlyArray<{
    readonly millis: string | undefined
    readonly source: string | undefined
    readonly reason: string | undefined
  }>
  /** The bars of the waits on the drawing: `backoff` or `retry-after` each. */
  readonly waitBars: ReadonlyArray<string>
  readonly giveUps: ReadonlyArray<string | undefined>
  /** What the drawing writes: above each attempt's mark, on or under each wait's bar, where it gave up. */
  readonly drawn: {
    readonly results: ReadonlyArray<string>
    readonly waits: ReadonlyArray<string>
    readonly giveUp: ReadonlyArray<string>
  }
  readonly requests: string | undefined
  readonly note: string | undefined
}

const readScenarios = (page: Page): Promise<ReadonlyArray<ShownScenario>> =>
  page.locator("section.scenario").evaluateAll((sections) =>
    sections.map((section) => ({
      title: section.querySelector("h2")?.textContent ?? "",
      number: section.getAttribute("data-scenario") ?? undefined,
      attempts: section.getAttribute("data-attempts") ?? undefined,
      outcome: section.getAttribute("data-outcome") ?? undefined,
      failure: section.getAttribute("data-failure") ?? undefined,
      ok: section.getAttribute("data-ok") ?? undefined,
      giveUp: section.getAttribute("data-give-up") ?? undefined,
      outcomeText: section.querySelector(".outcome")?.textContent ?? "",
      verdict: section.querySelector(".verdict")?.textContent ?? "",
      marks: Array.from(section.querySelectorAll("svg .attempt"), (mark) =>
        mark.classList.contains("ok") ? "ok" : "failed"
      ),
      waits: Array.from(section.querySelectorAll('li[data-decision="retry"]'), (row) => ({
        millis: row.getAttribute("data-wait-millis") ?? undefined,
        source: row.getAttribute("data-wait-source") ?? undefined,
        reason: row.getAttribute("data-wait-reason") ?? undefined
      })),
      waitBars: Array.from(section.querySelectorAll("svg rect.wait"), (bar) =>
        bar.classList.contains("backoff") ? "backoff" : "retry-after"
      ),
      drawn: {
        results: Array.from(section.querySelectorAll("svg .attempt-result"), (text) => text.textContent ?? ""),
        waits: Array.from(section.querySelectorAll("svg .wait-label"), (text) => text.textContent ?? ""),
        giveUp: Array.from(section.querySelectorAll("svg .give-up"), (text) => text.textContent ?? "")
      },
      requests: section.getAttribute("data-requests") ?? undefined,
      note: section.querySelector(".note")?.textContent ?? undefined,
      giveUps: Array.from(
        section.querySelectorAll('li[data-decision="give-up"]'),
        (row) => row.getAttribute("data-give-up") ?? undefined
      )
    }))
  )

/**
 * The result of each attempt, from the labels above the marks: attempts too close for a label
 * each share one when they ended alike (`no answer ×3`), as on a fast machine.
 */
const attemptResults = (labels: ReadonlyArray<string> | undefined): ReadonlyArray<string> =>
  (labels ?? []).flatMap((label) => {
    const [, result = label, times = "1"] = /^(.*) ×(\d+)$/.exec(label) ?? []
    return Array.from({ length: Number(times) }, () => result)
  })

describe.skipIf(skipWithout(chromiumBinary))("the browser page of pnpm demo:browser", () => {
  let demo: BrowserDemo | undefined
  let browser: Browser | undefined
  let page: Page | undefined
  let shown: ReadonlyArray<ShownScenario> = []
  let state: string | undefined
  let status = ""
  const pageErrors: Array<string> = []

  beforeAll(async () => {
    demo = await serveBrowserDemo()
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [...chromiumArgs]
    })
    page = await browser.newPage({ viewport: { width: 1200, height: 900 }, deviceScaleFactor: 1 })
    page.on("pageerror", (error) => pageErrors.push(error.message))
    await page.goto(demo.url)
    // The scenarios wait about 11 s for real; a loaded machine makes everything else slower.
    await page.waitForSelector('body[data-state="done"], body[data-state="error"]', { timeout: 150_000 })
    state = await page.evaluate(() => document.body.dataset.state)
    status = (await page.locator("#status").textContent()) ?? ""
    shown = await readScenarios(page)
    await Fs.mkdir(Path.dirname(screenshot), { recursive: true })
    await page.screenshot({ path: screenshot, fullPage: true })
  }, 180_000)

  afterAll(async () => {
    await browser?.close()
    await demo?.close()
    if (process.env.BROWSER_SCREENSHOT === undefined) await Fs.rm(screenshot, { force: true })
  })

  it("runs every scenario to the end, without an error on the page", () => {
    expect(pageErrors).toEqual([])
    expect(state, status).toBe("done")
    expect(status).toBe(`all ${expected.length} scenarios behaved as expected`)
  })

  it("shows every scenario of pnpm demo, in its order, each behaving as the demo's check requires", () => {
    const titles = Scenarios.all("any").map((scenario, index) => `${index + 1}. ${scenario.title}`)
    expect(shown.map((scenario) => scenario.title)).toEqual(titles)
    expect(titles).toHaveLength(expected.length)
    for (const [index, scenario] of shown.entries()) {
      expect(scenario.number).toBe(String(index + 1))
      expect(scenario.ok, `${scenario.title}: ${scenario.verdict}`).toBe("true")
    }
  })

  it("shows each scenario's attempts and outcome, in data and in the drawing", () => {
    expect(shown.map(({ attempts, failure, outcome }) => ({ attempts: Number(attempts), outcome, failure }))).toEqual(
      expected
    )
    for (const [index, scenario] of shown.entries()) {
      const { attempts, outcome } = expected[index] ?? expected[0]
      const marks = Array.from({ length: attempts }, (_, attempt) =>
        attempt === attempts - 1 && outcome === "ok" ? "ok" : "failed"
      )
      expect(scenario.marks, scenario.title).toEqual(marks)
      expect(attemptResults(scenario.drawn.results), scenario.title).toHaveLength(attempts)
    }
    expect(attemptResults(shown[1]?.drawn.results)).toEqual(["503", "503", "ok"])
    expect(attemptResults(shown[7]?.drawn.results)).toEqual(["no answer", "no answer", "no answer"])
    expect(attemptResults(shown[8]?.drawn.results)).toEqual(["undecodable"])
  })

  it("counts one request per attempt, but for the browser's own resends after a connection reset", () => {
    for (const [index, scenario] of shown.entries()) {
      const attempts = expected[index]?.attempts
      if (index === 7) {
        // Chromium resends, on a new connection, a request whose reused keep-alive connection was
        // reset before any answer; the page says so when it happened.
        expect(Number(scenario.requests)).toBeGreaterThanOrEqual(3)
        expect(scenario.note !== undefined).toBe(Number(scenario.requests) > 3)
      } else {
        expect(Number(scenario.requests), scenario.title).toBe(attempts)
        expect(scenario.note, scenario.title).toBeUndefined()
      }
    }
  })

  it("labels a capped Retry-After as Retry-After (read through CORS), capped at maxDelay", () => {
    const [lasting503, recovering] = shown
    const capped = { millis: "2000", source: "retry-after", reason: "Retry-After 5.00s, capped at maxDelay" }
    expect(lasting503?.waits).toEqual([capped, capped])
    expect(lasting503?.waitBars).toEqual(["retry-after", "retry-after"])
    expect(lasting503?.drawn.waits).toEqual([
      "2.00s Retry-After 5.00s, capped at maxDelay",
      "2.00s Retry-After 5.00s, capped at maxDelay"
    ])
    expect(lasting503?.giveUps).toEqual(["attempts-exhausted"])
    expect(lasting503?.drawn.giveUp).toEqual(["gave up: attempts exhausted"])
    const asked = { millis: "1000", source: "retry-after", reason: "Retry-After 1.00s" }
    expect(recovering?.waits).toEqual([asked, asked])
    expect(recovering?.drawn.waits).toEqual(["1.00s Retry-After 1.00s", "1.00s Retry-After 1.00s"])
    // X-Attempt is one of the headers the chaos server exposes to other origins.
    expect(recovering?.outcomeText).toMatch(/^ok200 OK, X-Attempt: 3 \(attempt 3, \d+\.\d\ds\)$/)
  })

  it("labels exponential backoff as backoff, and says why a POST without a key was not retried", () => {
    const backoff = shown[5]
    expect(backoff?.waits).toEqual([
      { millis: "500", source: "backoff", reason: "backoff" },
      { millis: "1000", source: "backoff", reason: "backoff" }
    ])
    expect(backoff?.waitBars).toEqual(["backoff", "backoff"])
    expect(backoff?.drawn.waits).toEqual(["0.50s backoff", "1.00s backoff"])
    const unkeyed = shown[2]
    expect(unkeyed?.giveUps).toEqual(["not-idempotent"])
    expect(unkeyed?.giveUp).toBe("not-idempotent")
    expect(unkeyed?.drawn.giveUp).toEqual(["gave up: not idempotent"])
    expect(unkeyed?.outcomeText).toMatch(/not retried: POST is not idempotent/)
  })

  it("shows each decision in the words of pnpm demo on demand", async () => {
    if (page === undefined) throw new Error("the page did not load")
    const rows = page.locator(".decisions li")
    const decisions = shown.reduce((sum, scenario) => sum + scenario.waits.length + scenario.giveUps.length, 0)
    expect(await rows.count()).toBe(decisions)
    expect(await rows.first().isVisible()).toBe(false)
    await page.locator("#in-words").check()
    expect(await rows.first().isVisible()).toBe(true)
    expect(await rows.first().textContent()).toMatch(
      /^\+\d+\.\d\dsattempt 1503 Service Unavailable→ wait 2\.00s\(Retry-After 5\.00s, capped at maxDelay\)$/
    )
  })

  it("saves a full-page screenshot small enough for the README", async () => {
    const { size } = await Fs.stat(screenshot)
    expect(size).toBeGreaterThan(10_000)
    expect(size).toBeLessThan(300 * 1024)
  })
})
