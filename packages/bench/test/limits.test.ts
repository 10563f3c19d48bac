/**
 * The limits section runs and prints its figures: a tiny run of `--only=limits` (a chaos server
 * process and a client process per line, the Effect 4 one under the Node 22 that
 * scripts/node22.sh provides), then the shape of its JSON and markdown. No latency or throughput
 * is compared with anything: only counts (the server saw at least a request per successful call,
 * no limit refuses nothing, a fixed limit below the callers refuses some, the phases are the
 * capacities asked for) and what follows from the definitions (the ratios are the figures over
 * the route's own).
 */
import { describe, expect, it } from "vitest"
import type { BenchConfig } from "../src/config.js"
import {
  capacityConfigurations,
  capacityRoute,
  limitsLibraries,
  rateLimitConfigurations,
  rateLimitRoute
} from "../src/limits.js"
import { expectTable, tableAfter, tinyConfig, tinyRun } from "./helpers.js"

const lines = ["Effect 3", "Effect 4"]
// Per configuration, one row per line.
const capacityLabels = capacityRoute.shapes.flatMap((shape) =>
  capacityConfigurations.flatMap((configuration) =>
    lines.map((line) => `${shape.name}, ${line}: ${configuration.label}`)
  )
)
const rateLimitLabels = rateLimitConfigurations.flatMap((configuration) =>
  lines.map((line) => `${line}: ${configuration.label}`)
)
// 48 callers at a capacity of 64 (24 at 32), more than the fixed limit of 32, so that it refuses some; the bare Effect 3
// client as well: the section takes this library's two lines and nothing else.
const limitsConfig: BenchConfig = {
  ...tinyConfig,
  libraries: ["effect", ...limitsLibraries],
  limits: { ...tinyConfig.limits, callers: 48 }
}

describe("pnpm bench, the limits section", () => {
  const run = tinyRun(["limits"], 240_000, limitsConfig)

  it("runs every capacity row on each line through both capacities and counts the server's requests", () => {
    const { results } = run.output()
    // Its own chaos server: no other section ran.
    expect([results.happyPath, results.outage, results.hedging]).toEqual([null, null, null])
    const result = results.limits
    expect(result?.lines).toEqual(lines)
    expect(result?.capacity.map((row) => `${row.shape.name}, ${row.line}: ${row.label}`)).toEqual(capacityLabels)
    for (const row of result?.capacity ?? []) {
      expect(row.rounds).toHaveLength(limitsConfig.limits.rounds)
      expect(row.phases.map((phase) => phase.capacity)).toEqual([row.shape.before, row.shape.after])
      for (const phases of row.rounds) {
        const ok = phases.reduce((sum, phase) => sum + phase.ok, 0)
        const requests = phases.reduce((sum, phase) => sum + phase.requests, 0)
        // A successful call was a request the server answered; a refused one was never sent.
        expect(requests).toBeGreaterThanOrEqual(ok)
        for (const phase of phases) {
          expect(phase.ok).toBeGreaterThan(0)
          expect(phase.overloaded).toBeLessThanOrEqual(phase.requests)
          expect(phase.overloadedEarly).toBeLessThanOrEqual(phase.overloaded)
          expect(phase.okSettled).toBeLessThanOrEqual(phase.ok)
          expect(phase.p50Millis).toBeLessThanOrEqual(phase.p99Millis)
          if (row.label === "no limit") expect(phase.refused).toBe(0)
        }
        // 48 callers start at once against 32 permits: 16 are refused unsent at least.
        if (row.label === "fixed 32") expect(phases[0]?.refused).toBeGreaterThanOrEqual(Math.max(0, row.callers - 32))
      }
      // No limit against itself.
      if (row.label === "no limit") expect(row.versusNone.goodput).toBe(1)
      // One round in a tiny run: the median is that round's figure.
      expect(row.versusNone.p99SettledOfBase).toBe(row.phases[1]?.p99SettledOfBase)
      for (const [index, phase] of row.phases.entries()) {
        expect(phase.p99OfBase).toBeCloseTo(phase.p99Millis / capacityRoute.baseMillis, 9)
        // A tiny phase's second half at a capacity of 8 may end no call well (none to take a p99 of).
        const settled = row.rounds.every((round) => (round[index]?.okSettled ?? 0) > 0)
        if (settled) expect(phase.p99SettledOfBase).toBeGreaterThan(0)
        expect(phase.goodputOfCapacity).toBeCloseTo(
          phase.goodput / ((phase.capacity * 1000) / capacityRoute.baseMillis),
          9
        )
      }
    }
  })

  it("makes every rate-limited call on each line, and every request the server saw was allowed or a 429", () => {
    const result = run.output().results.limits
    expect(result?.rateLimit.map((row) => `${row.line}: ${row.label}`)).toEqual(rateLimitLabels)
    for (const row of result?.rateLimit ?? []) {
      expect(row.rounds).toHaveLength(limitsConfig.limits.rounds)
      for (const round of row.rounds) {
        expect(round.ok + round.failed).toBe(limitsConfig.limits.rateLimitCalls)
        // A call that succeeded was allowed once; the rest of the requests are 429s.
        expect(round.requests - round.limited).toBe(round.ok)
      }
    }
    expect(result?.rateLimitRoute).toEqual(rateLimitRoute)
  })

  it("prints both tables", () => {
    const { markdown } = run.output()
    const heading = "## 10. Limits on outgoing load"
    // Two rows per configuration and line: the capacity before the drop, then after.
    expectTable(
      tableAfter(markdown, heading),
      12,
      capacityLabels.flatMap((label) => [label, label])
    )
    expectTable(tableAfter(markdown, "Against no limit on the same line and shape"), 5, capacityLabels)
    const rateLimit = tableAfter(markdown, "The rate-limited")
    expect(rateLimit.slice(2).map((row) => row[0])).toEqual(rateLimitLabels)
    for (const row of rateLimit) expect(row).toHaveLength(6)
  })
})
