/**
 * The limits section runs and prints its figures: a tiny run of `--only=limits` (a chaos server
 * process, the Effect 3 client in the test's process), then the shape of its JSON and markdown.
 * No latency or throughput is compared with anything: only counts (the server saw at least a
 * request per successful call, the phases are the capacities asked for) and what follows from the
 * definitions (the ratios are the figures over the route's own).
 */
import { describe, expect, it } from "vitest"
import { capacityConfigurations, capacityRoute, rateLimitConfigurations, rateLimitRoute } from "../src/limits.js"
import { expectTable, tableAfter, tinyConfig, tinyRun } from "./helpers.js"

const capacityLabels = capacityConfigurations.map((configuration) => `Effect 3: ${configuration.label}`)
const rateLimitLabels = rateLimitConfigurations.map((configuration) => `Effect 3: ${configuration.label}`)

describe("pnpm bench, the limits section", () => {
  const run = tinyRun(["limits"], 120_000)

  it("runs every capacity row through both capacities and counts the server's requests", () => {
    const { results } = run.output()
    // Its own chaos server: no other section ran.
    expect([results.happyPath, results.outage, results.hedging]).toEqual([null, null, null])
    const result = results.limits
    expect(result?.capacity.map((row) => `Effect 3: ${row.label}`)).toEqual(capacityLabels)
    for (const row of result?.capacity ?? []) {
      expect(row.rounds).toHaveLength(tinyConfig.limits.rounds)
      expect(row.phases.map((phase) => phase.capacity)).toEqual([capacityRoute.before, capacityRoute.after])
      for (const phases of row.rounds) {
        for (const phase of phases) {
          expect(phase.ok).toBeGreaterThan(0)
          expect(phase.overloaded).toBeLessThanOrEqual(phase.requests)
          expect(phase.p50Millis).toBeLessThanOrEqual(phase.p99Millis)
        }
      }
      for (const phase of row.phases) {
        expect(phase.p99OfBase).toBeCloseTo(phase.p99Millis / capacityRoute.baseMillis, 9)
        expect(phase.goodputOfCapacity).toBeCloseTo(
          phase.goodput / ((phase.capacity * 1000) / capacityRoute.baseMillis),
          9
        )
      }
    }
  })

  it("makes every rate-limited call, and every request the server saw was allowed or a 429", () => {
    const result = run.output().results.limits
    expect(result?.rateLimit.map((row) => `Effect 3: ${row.label}`)).toEqual(rateLimitLabels)
    for (const row of result?.rateLimit ?? []) {
      expect(row.rounds).toHaveLength(tinyConfig.limits.rounds)
      for (const round of row.rounds) {
        expect(round.ok + round.failed).toBe(tinyConfig.limits.rateLimitCalls)
        // A call that succeeded was allowed once; the rest of the requests are 429s.
        expect(round.requests - round.limited).toBe(round.ok)
      }
    }
    expect(result?.rateLimitRoute).toEqual(rateLimitRoute)
  })

  it("prints both tables", () => {
    const { markdown } = run.output()
    const heading = "## 10. Limits on outgoing load"
    // Two rows per configuration: the capacity before the drop, then after.
    expectTable(
      tableAfter(markdown, heading),
      10,
      capacityLabels.flatMap((label) => [label, label])
    )
    const rateLimit = tableAfter(markdown, "The rate-limited")
    expect(rateLimit.slice(2).map((row) => row[0])).toEqual(rateLimitLabels)
    for (const row of rateLimit) expect(row).toHaveLength(6)
  })
})
