/**
 * The Effect 4 rows of the bench: a tiny run of the happy path, the retry cost and the outage with
 * the Effect 4 clients (real server and client processes; the Effect 4 ones under the Node 22 that
 * scripts/node22.sh provides, as in `pnpm bench`), then the shape of their rows. Each ratio is
 * checked against the rounds it comes from, to the bare client and `retryTransient` of the Effect
 * 4 line; only counts are compared with exact values.
 */
import { describe, expect, it } from "vitest"
import { libraries } from "../src/clients.js"
import { type BenchConfig, quickConfig } from "../src/config.js"
import { outageClients } from "../src/outage.js"
import type { LibraryId } from "../src/protocol.js"
import { medianRatio } from "../src/stats.js"
import { expectTable, tableAfter, tinyConfig, tinyRun } from "./helpers.js"

const effect4Libraries: ReadonlyArray<LibraryId> = [
  "effect4",
  "effect4-retry-transient",
  "effect4-retry-transient-breaker",
  "effect4-http-resilience"
]
const effect4Retrying = effect4Libraries.filter((library) => library !== "effect4")
const labelOf = (id: LibraryId) => libraries.find((library) => library.id === id)?.label ?? id

// undici and the bare Effect 3 client as well: the Effect 4 rows must not be compared with the latter.
const effect4Config: BenchConfig = { ...tinyConfig, libraries: ["undici", "effect", ...effect4Libraries] }
const effect4OutageClients = outageClients.filter((client) => effect4Libraries.includes(client.library))

describe("pnpm bench, the Effect 4 rows", () => {
  const run = tinyRun(["happy", "retry", "outage"], 240_000, effect4Config)

  it("a quick run compares every Effect 4 client, under Node 22", () => {
    for (const library of effect4Libraries) expect(quickConfig.libraries).toContain(library)
    expect(effect4OutageClients.map((client) => client.id)).toEqual([
      "effect4-retry-transient",
      "effect4-retry-transient-breaker",
      "ours4-no-budget",
      "ours4-budget",
      "ours4-breaker",
      "ours4-per-call"
    ])
    const version = run.output().results.machine.effect4Node
    const [major = 0, minor = 0] = (version ?? "").slice(1).split(".").map(Number)
    expect(major > 22 || (major === 22 && minor >= 19), `Effect 4 clients ran on ${version}`).toBe(true)
    expect(run.output().markdown).toContain(`the Effect 4 clients on Node ${version}`)
  })

  it("happy path: a row per Effect 4 client and concurrency, its ratio to the bare Effect 4 client of the same rounds", () => {
    const rows = run.output().results.happyPath?.rows ?? []
    const rounds = (library: LibraryId, concurrency: number) =>
      rows.find((row) => row.library === library && row.concurrency === concurrency)?.roundRequestsPerSecond ?? []
    for (const concurrency of tinyConfig.happyPath.concurrencies) {
      for (const library of effect4Libraries) {
        const row = rows.find((candidate) => candidate.library === library && candidate.concurrency === concurrency)
        expect(row?.label).toBe(labelOf(library))
        expect(row?.roundRequestsPerSecond).toHaveLength(tinyConfig.happyPath.rounds)
        for (const rps of row?.roundRequestsPerSecond ?? []) expect(rps).toBeGreaterThan(0)
        expect(row?.ratioToEffect).toBe(medianRatio(rounds(library, concurrency), rounds("effect4", concurrency)))
        expect(row?.ratioToUndici).toBe(medianRatio(rounds(library, concurrency), rounds("undici", concurrency)))
        for (const latency of [row?.p50Millis, row?.p99Millis]) expect(latency).toBeGreaterThan(0)
      }
      expect(rows.find((row) => row.library === "effect4" && row.concurrency === concurrency)?.ratioToEffect).toBe(1)
    }
  })

  it("retry cost: every Effect 4 client that retries makes its one retry, compared with Effect 4's retryTransient", () => {
    const rows = run.output().results.retryCost?.rows ?? []
    expect(rows.map((row) => row.library)).toEqual(effect4Retrying)
    for (const row of rows) {
      expect(row.attemptsPerCall).toBe(2)
      expect(row.cpuMicrosPerRetriedCall).toBeGreaterThan(0)
      expect(Number.isFinite(row.cpuRatioToRetryTransient)).toBe(true)
      expect(Number.isFinite(row.allocationRatioToRetryTransient)).toBe(true)
    }
    const baseline = rows.find((row) => row.library === "effect4-retry-transient")
    expect([baseline?.cpuRatioToRetryTransient, baseline?.allocationRatioToRetryTransient]).toEqual([1, 1])
  })

  it("outage: every call fails; retryTransient and this library without a budget make 3 attempts a call, the budget fewer", () => {
    const outage = run.output().results.outage
    expect(outage?.rows.map((row) => row.id)).toEqual(effect4OutageClients.map((client) => client.id))
    const calls = effect4Config.outage.callsPerBatch
    for (const row of outage?.rows ?? []) {
      const batches = [row.unavailable.first, row.unavailable.second, row.refused.first, row.refused.second]
      for (const batch of batches) {
        expect(batch.failed).toBe(calls)
        // An open breaker sends nothing: below one attempt a call.
        if (!row.id.endsWith("breaker")) expect(batch.attempts).toBeGreaterThanOrEqual(calls)
        expect(batch.attempts).toBeLessThanOrEqual(3 * calls)
      }
      expect(row.unavailable.first.serverRequests).toBe(row.unavailable.first.attempts)
      expect(row.unavailable.second.serverRequests).toBe(row.unavailable.second.attempts)
      if (row.id === "effect4-retry-transient" || row.id === "ours4-no-budget") {
        for (const batch of batches) expect(batch.attempts, row.label).toBe(3 * calls)
      }
    }
    const budget = outage?.rows.find((row) => row.id === "ours4-budget")
    for (const phase of [budget?.unavailable, budget?.refused]) {
      expect(phase?.first.attempts).toBeLessThanOrEqual(calls + Math.ceil(calls * 0.1) + 100)
      expect(phase?.second.attempts).toBeLessThanOrEqual(calls + Math.ceil(calls * 0.1) + 1)
    }
  })

  it("prints the Effect 4 rows in each table, with the same columns", () => {
    const { markdown } = run.output()
    expectTable(tableAfter(markdown, "## 1. Happy path"), 11, effect4Config.libraries.map(labelOf))
    expectTable(tableAfter(markdown, "## 2. Cost of a retry"), 11, effect4Retrying.map(labelOf))
    expectTable(
      tableAfter(markdown, "## 4. Outage amplification"),
      5,
      effect4OutageClients.map((client) => client.label)
    )
    expect(markdown).not.toMatch(/NaN|undefined/)
  })
})
