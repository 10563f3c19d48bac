/**
 * The bench runs and its output is well formed: a tiny run of the sections that measure cost
 * and contention (real server and client processes, a few libraries, a handful of requests),
 * then the shape of the JSON, the markdown tables and the SVG charts. No figure is compared with
 * any threshold. The overload sections have their own tests (overload.test.ts).
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import { committedResultsDir, outDirOf, parseCommandLine } from "../src/cli.js"
import { backoffModes, defaultNetwork, policyFor, runContention, simulate } from "../src/contention.js"
import { RetryPolicy } from "effect-http-resilience"
import { expectTable, tableAfter, tinyConfig, tinyRun } from "./helpers.js"

const labels = ["undici.request", "Effect HttpClient", "Effect + retryTransient", "effect-http-resilience"]
const retryLabels = ["Effect + retryTransient", "effect-http-resilience"]

// A tag: its name, quoted attributes, and whether it closes or is self-closing.
const tagPattern = /<(\/?)([a-zA-Z]+)((?:\s+[a-zA-Z][a-zA-Z0-9:-]*="[^"<]*")*)\s*(\/?)>/g

/** Tags open and close in order, attributes are quoted: enough to call the SVG well formed. */
const expectWellFormedXml = (xml: string) => {
  const stack: Array<string> = []
  for (const match of xml.matchAll(tagPattern)) {
    const [, closing, name, , selfClosing] = match
    if (selfClosing === "/") continue
    if (closing === "/") expect(stack.pop()).toBe(name)
    else stack.push(name!)
  }
  expect(stack).toEqual([])
  const stripped = xml.replace(tagPattern, "")
  expect(stripped).not.toMatch(/[<>]/)
  expect(stripped).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/)
}

describe("pnpm bench, a tiny run of every section", () => {
  const run = tinyRun(["happy", "retry", "memory", "contention"], 120_000)

  it("writes latest.json with the machine, the date and every section", async () => {
    const json: unknown = JSON.parse(await Fs.readFile(Path.join(run.outDir(), "latest.json"), "utf8"))
    expect(json).toMatchObject({
      schemaVersion: 2,
      mode: "quick",
      command: "vitest",
      machine: {
        cpuModel: expect.any(String),
        cores: expect.any(Number),
        node: process.version
      },
      charts: { throughput: "throughput.svg", contention: "contention.svg" }
    })
    const results = run.output().results
    expect(Number.isNaN(Date.parse(results.date))).toBe(false)
    expect(results.happyPath?.rows.map((row) => `${row.library}@${row.concurrency}`)).toEqual(
      [1, 4].flatMap((concurrency) => tinyConfig.libraries.map((library) => `${library}@${concurrency}`))
    )
    for (const row of results.happyPath?.rows ?? []) expect(row.roundRequestsPerSecond).toHaveLength(5)
    expect(results.retryCost?.rows.map((row) => row.library)).toEqual([
      "effect-retry-transient",
      "effect-http-resilience"
    ])
    expect(results.memory?.rows.map((row) => row.library)).toEqual(["effect-retry-transient", "effect-http-resilience"])
    // Every retry the benchmarks ask for is made: no budget stands in the way of measuring one.
    for (const row of results.retryCost?.rows ?? []) expect(row.attemptsPerCall).toBe(2)
    // The ratio is the two medians printed beside it, and the spread brackets the median.
    const [transient, ours] = results.retryCost?.rows ?? []
    expect(ours?.cpuRatioToRetryTransient).toBeCloseTo(
      (ours?.cpuMicrosPerRetry ?? 0) / (transient?.cpuMicrosPerRetry ?? 1),
      9
    )
    for (const row of results.retryCost?.rows ?? []) {
      expect(row.cpuMicrosPerRetrySpread.p25).toBeLessThanOrEqual(row.cpuMicrosPerRetry)
      expect(row.cpuMicrosPerRetrySpread.p75).toBeGreaterThanOrEqual(row.cpuMicrosPerRetry)
      expect(row.allocatedBytesPerPlainCall).toBeGreaterThan(0)
    }
    for (const row of results.memory?.rows ?? []) expect(row.attemptsPerCall).toBe(3)
    expect(results.contention?.cells).toHaveLength(backoffModes.length * 2)
    expect(results.contention?.withBudget).toHaveLength(backoffModes.length * 2)
    for (const cell of results.contention?.cells ?? []) expect(cell.gaveUp).toBe(0)
    expect(results.contention?.retryBudget).toMatch(/default `RetryBudget`/)
    expect([results.outage, results.sparse, results.breaker]).toEqual([null, null, null])
  })

  it("prints one markdown table per benchmark, with the expected rows and columns", () => {
    const { markdown } = run.output()
    expectTable(tableAfter(markdown, "## 1. Happy path"), 11, labels)
    expectTable(tableAfter(markdown, "## 2. Cost of a retry"), 11, retryLabels)
    expectTable(tableAfter(markdown, "## 3. Memory and sockets"), 9, retryLabels)
    const modes = [
      "none (retry at once)",
      "exponential, no jitter",
      "full jitter",
      "equal jitter",
      "decorrelated jitter"
    ]
    expectTable(tableAfter(markdown, "Total write calls"), 3, modes)
    expectTable(tableAfter(markdown, "Simulated seconds"), 3, modes)
    const budget = tableAfter(markdown, "With a retry budget")
    expectTable(budget, 1 + 2 * 3, modes)
    expect(budget[0]).toEqual(["backoff", ...[5, 10].flatMap((n) => [`N=${n} writes`, `N=${n} gave up`, `N=${n} s`])])
    expect(markdown).not.toMatch(/TODO/)
  })

  it("draws the throughput ratios as bars and the contention as lines, in well-formed SVG", async () => {
    const throughput = await Fs.readFile(Path.join(run.outDir(), "throughput.svg"), "utf8")
    const contention = await Fs.readFile(Path.join(run.outDir(), "contention.svg"), "utf8")
    for (const svg of [throughput, contention]) {
      expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true)
      expect(svg.trim().endsWith("</svg>")).toBe(true)
      expectWellFormedXml(svg)
    }
    // A background, two legend swatches and one bar per library and concurrency.
    expect(throughput.match(/<rect /g)).toHaveLength(1 + 2 + labels.length * 2)
    for (const label of labels) expect(throughput).toContain(label)
    // One line per backoff mode in each of the two panels.
    expect(contention.match(/<polyline /g)).toHaveLength(backoffModes.length * 2)
  })

  it("writes a quick run to a git-ignored directory, never over the committed full-run results", () => {
    const git = (...args: Array<string>) =>
      ChildProcess.spawnSync("git", args, { cwd: committedResultsDir, encoding: "utf8" })
    const committed = git("ls-files", "-z", ".")
      .stdout.split("\0")
      .filter((file) => file !== "")
      .map((file) => Path.join(committedResultsDir, file))
    expect(committed).toContain(Path.join(committedResultsDir, "latest.json"))
    const quickDir = outDirOf(parseCommandLine(["--", "--quick"]))
    // Every file this run wrote, where `pnpm bench -- --quick` would write it.
    const quickFiles = run.output().files.map((file) => Path.join(quickDir, Path.basename(file)))
    expect(quickFiles).toHaveLength(4)
    for (const file of quickFiles) {
      expect(committed, `${file} is a committed result`).not.toContain(file)
      expect(git("check-ignore", "-q", file).status, `${file} is not git-ignored`).toBe(0)
    }
    expect(outDirOf(parseCommandLine([]))).toBe(committedResultsDir)
    expect(outDirOf(parseCommandLine(["--quick", "--out=/tmp/x"]))).toBe("/tmp/x")
  })
})

describe("the contention simulator", () => {
  it("is deterministic for a seed and uses the library's schedule", () => {
    const schedule = RetryPolicy.toSchedule(policyFor("full"))
    expect(simulate(20, schedule, 7)).toEqual(simulate(20, schedule, 7))
    const run = simulate(20, schedule, 7)
    expect(run.completed).toBe(true)
    expect(run.writeCalls).toBeGreaterThanOrEqual(20)
  })

  it("with the default budget shared by the clients, retries at most 10% of the calls plus the floor, and a refused client gives up", () => {
    const schedule = RetryPolicy.toSchedule(policyFor("none"))
    for (const clients of [25, 100]) {
      const run = simulate(clients, schedule, 3, defaultNetwork, {})
      expect(run.completed).toBe(true)
      // Finagle's bound holds within 9/10 of its 10 s ttl: N calls, at most ratio × N + 100 retries.
      expect(run.completionMillis).toBeLessThan(9_000)
      expect(run.writeCalls - clients).toBeLessThanOrEqual(Math.ceil(clients * 0.1) + 100)
      expect(run.gaveUp).toBeGreaterThan(0)
      expect(simulate(clients, schedule, 3, defaultNetwork, {})).toEqual(run)
    }
    const unbudgeted = simulate(100, schedule, 3)
    expect(unbudgeted.gaveUp).toBe(0)
    expect(unbudgeted.writeCalls - 100).toBeGreaterThan(110)
  })

  it("reports every mode and client count", () => {
    const cells = runContention([3, 6], 2)
    expect(cells.map((cell) => `${cell.mode}/${cell.clients}`)).toEqual(
      backoffModes.flatMap((mode) => [`${mode}/3`, `${mode}/6`])
    )
    for (const cell of cells) expect(cell.incompleteRuns).toBe(0)
  })
})

describe("the command line", () => {
  it("reads --quick, --only and --out, ignores a --, and rejects anything else", () => {
    expect(parseCommandLine([])).toEqual({
      quick: false,
      sections: ["happy", "retry", "memory", "outage", "sparse", "breaker", "contention", "store", "hedging", "limits"],
      outDir: undefined
    })
    expect(parseCommandLine(["--", "--quick", "--only=happy,contention", "--out=/tmp/x"])).toEqual({
      quick: true,
      sections: ["happy", "contention"],
      outDir: "/tmp/x"
    })
    expect(parseCommandLine(["--only=outage,sparse,breaker"]).sections).toEqual(["outage", "sparse", "breaker"])
    expect(() => parseCommandLine(["--only=nope"])).toThrow(/unknown section/)
    expect(() => parseCommandLine(["--fast"])).toThrow(/unknown option/)
  })
})
