/**
 * The overload sections run and their figures are well formed: a tiny run of the outage, sparse
 * failures and breaker sections (real server and client processes), then the JSON and the
 * markdown tables. Only figures that follow from counting are compared with exact values (3
 * attempts per call without a budget, the client's count equal to the server's, every sparse
 * failure retried once); nothing depends on how fast the machine is, except that a batch of
 * 60 calls ends within the budget's ttl.
 */
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import { breakerClients } from "../src/breaker.js"
import type { BenchConfig } from "../src/config.js"
import { outageClients } from "../src/outage.js"
import { refusedOrigin } from "../src/overload.js"
import { sparseClients } from "../src/sparse.js"
import { failsOnce } from "../src/worker.js"
import { expectTable, tableAfter, tinyConfig, tinyRun } from "./helpers.js"

// The outage section compares the clients of these libraries: the Effect 3 line's and the others'
// (the Effect 4 line's have a test of their own, effect4.test.ts).
const overloadConfig: BenchConfig = { ...tinyConfig, libraries: [...tinyConfig.libraries, "got", "ky"] }
const effect3OutageClients = outageClients.filter((client) => overloadConfig.libraries.includes(client.library))

describe("pnpm bench, a tiny run of the overload sections", () => {
  const run = tinyRun(["outage", "sparse", "breaker"], 180_000, overloadConfig)

  it("writes the three sections to latest.json and nothing else", async () => {
    const json: unknown = JSON.parse(await Fs.readFile(Path.join(run.outDir(), "latest.json"), "utf8"))
    expect(json).toMatchObject({ schemaVersion: 2, outage: {}, sparse: {}, breaker: {} })
    const output = run.output()
    const { results } = output
    expect([results.happyPath, results.retryCost, results.memory, results.contention]).toEqual([null, null, null, null])
    expect(output.files.map((file) => Path.basename(file))).toEqual(["latest.json", "latest.md"])
  })

  it("outage: every call fails; without a budget every client makes its 3 attempts, counted alike by client and server", () => {
    const outage = run.output().results.outage
    expect(outage?.rows.map((row) => row.id)).toEqual(effect3OutageClients.map((client) => client.id))
    const calls = tinyConfig.outage.callsPerBatch
    for (const row of outage?.rows ?? []) {
      const batches = [row.unavailable.first, row.unavailable.second, row.refused.first, row.refused.second]
      for (const batch of batches) {
        expect(batch.calls).toBe(calls)
        expect(batch.failed).toBe(calls)
        expect(batch.requestsPerCall).toBe(batch.attempts / calls)
      }
      // The client's own count is right where the server can check it.
      expect(row.unavailable.first.serverRequests).toBe(row.unavailable.first.attempts)
      expect(row.unavailable.second.serverRequests).toBe(row.unavailable.second.attempts)
      expect(row.refused.first.serverRequests).toBeNull()
      // Applied per call: one to three attempts a call, by how much of a budget the calls share.
      if (row.id === "ours-per-call") {
        for (const batch of batches) expect(batch.attempts).toBeGreaterThanOrEqual(calls)
        for (const batch of batches) expect(batch.attempts).toBeLessThanOrEqual(3 * calls)
      } else if (row.id !== "ours-budget" && row.id !== "ours-breaker") {
        for (const batch of batches) expect(batch.attempts, `${row.label}`).toBe(3 * calls)
      }
    }
    // The default budget: 10% of the calls plus the floor's 100 retries, then 10% once the floor is spent.
    const budget = outage?.rows.find((row) => row.id === "ours-budget")
    for (const phase of [budget?.unavailable, budget?.refused]) {
      expect(phase?.first.attempts).toBeLessThanOrEqual(calls + Math.ceil(calls * 0.1) + 100)
      expect(phase?.second.attempts).toBeLessThanOrEqual(calls + Math.ceil(calls * 0.1) + 1)
    }
  })

  it("sparse: the same calls fail once with and without the budget, and each is retried once", () => {
    const sparse = run.output().results.sparse
    const { calls, failingShare } = tinyConfig.sparse
    const failing = Array.from({ length: calls }, (_, index) => index).filter((index) => failsOnce(index, failingShare))
    expect(failing.length).toBeGreaterThan(0)
    expect(sparse?.rows.map((row) => row.id)).toEqual(sparseClients.map((client) => client.id))
    for (const row of sparse?.rows ?? []) {
      expect(row.callsFailingOnce).toBe(failing.length)
      expect(row.succeeded).toBe(calls)
      expect(row.successRate).toBe(1)
      expect(row.retries).toBe(failing.length)
    }
  })

  it("breaker: one row per client, with the outage as the server timed it", () => {
    const breaker = run.output().results.breaker
    expect(breaker?.rows.map((row) => row.id)).toEqual(breakerClients.map((client) => client.id))
    expect(breaker?.measuredOutageMillis).toBeGreaterThanOrEqual(tinyConfig.breaker.outageMillis - 1)
    const { afterMillis, outageMillis, ratePerSecond, warmupMillis } = tinyConfig.breaker
    for (const row of breaker?.rows ?? []) {
      expect(row.calls).toBe(Math.round((ratePerSecond * (warmupMillis + outageMillis + afterMillis)) / 1000))
      expect(row.callsFailed).toBeLessThanOrEqual(row.calls)
      expect(row.loadFactorDuringOutage).toBeCloseTo(
        (row.requestsDuringOutage * 1000) / (breaker?.measuredOutageMillis ?? Number.NaN) / ratePerSecond,
        9
      )
      if (row.millisToFirstSuccess !== null) expect(row.millisToFirstSuccess).toBeGreaterThanOrEqual(0)
    }
  })

  it("prints one markdown table per section, with the expected rows and columns", () => {
    const { markdown } = run.output()
    expectTable(
      tableAfter(markdown, "## 4. Outage amplification"),
      5,
      effect3OutageClients.map((client) => client.label)
    )
    expectTable(
      tableAfter(markdown, "## 5. Sparse failures still retry"),
      7,
      sparseClients.map((client) => client.label)
    )
    expectTable(
      tableAfter(markdown, "## 6. Circuit breaker"),
      7,
      breakerClients.map((client) => client.label)
    )
    expect(markdown).not.toMatch(/NaN|undefined/)
  })
})

describe("the overload helpers", () => {
  it("scatters about 5% of the calls as failing once, over the whole range", () => {
    const indices = Array.from({ length: 10_000 }, (_, index) => index)
    const failing = indices.filter((index) => failsOnce(index, 0.05))
    expect(failing.length).toBeGreaterThan(400)
    expect(failing.length).toBeLessThan(600)
    expect(failing.filter((index) => index < 5_000).length).toBeGreaterThan(200)
    expect(failing.filter((index) => index >= 5_000).length).toBeGreaterThan(200)
    expect(indices.some((index) => failsOnce(index, 0))).toBe(false)
    expect(indices.every((index) => failsOnce(index, 1))).toBe(true)
  })

  it("finds an origin that refuses connections", async () => {
    const origin = await refusedOrigin()
    await expect(fetch(`${origin}/`)).rejects.toMatchObject({ cause: { code: "ECONNREFUSED" } })
  })
})
