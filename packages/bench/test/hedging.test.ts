/**
 * The hedging section runs and prints its figures: a tiny run of `--only=hedging` (a chaos server
 * process and one client process per line and configuration, the Effect 4 ones under the Node 22
 * that scripts/node22.sh provides), then the shape of its JSON and markdown.
 * No latency is compared with anything: only counts (the calls asked for, no request lost or
 * made up, no hedge without hedging, a fixed delay reported as configured) and what follows from
 * the definitions (the baseline is 1.00× itself, the distribution's draws).
 */
import { describe, expect, it } from "vitest"
import { hedgingDelays, hedgingPolicyFor } from "../src/benchClient.js"
import type { BenchConfig } from "../src/config.js"
import {
  distributionPercentile,
  type HedgingRound,
  hedgingConfigurations,
  hedgingLibraries,
  hedgingRow,
  latencyDistribution,
  slowDraws,
  summarizeDelays
} from "../src/hedging.js"
import { medianRatio } from "../src/stats.js"
import { tableAfter, tinyConfig, tinyRun } from "./helpers.js"

const lines = ["Effect 3", "Effect 4"]
// Per configuration, one row per line.
const labels = hedgingConfigurations.flatMap((configuration) => lines.map((line) => `${line}: ${configuration.label}`))
// The bare Effect 3 client as well: the section takes this library's two lines and nothing else.
const hedgingConfig: BenchConfig = { ...tinyConfig, libraries: ["effect", ...hedgingLibraries] }

describe("pnpm bench, the hedging section", () => {
  const run = tinyRun(["hedging"], 360_000, hedgingConfig)

  it("measures every configuration on each line in every round, and counts requests as the server saw them", () => {
    const result = run.output().results.hedging
    const { callsPerRound, rounds } = tinyConfig.hedging
    expect(result?.lines).toEqual(lines)
    expect(result?.rows.map((row) => `${row.line} ${row.mode}`)).toEqual(
      ["off", "fixed-10ms", "fixed-p95", "percentile", "percentile-budget"].flatMap((mode) =>
        lines.map((line) => `${line} ${mode}`)
      )
    )
    expect(result?.rows.map((row) => row.library)).toEqual(hedgingConfigurations.flatMap(() => hedgingLibraries))
    expect(result?.seeds.map((seed) => seed.seed)).toEqual([1, 2])
    for (const row of result?.rows ?? []) {
      expect(row.rounds).toHaveLength(rounds)
      for (const round of row.rounds) {
        expect(round.calls).toBe(callsPerRound)
        // Every call sent one request; beyond that, only hedges (a hedge interrupted before it was written never arrives).
        expect(round.requests).toBeGreaterThanOrEqual(round.calls)
        expect(round.requests).toBeLessThanOrEqual(round.calls + round.hedges)
        expect(round.abandoned).toBeLessThanOrEqual(round.requests - round.calls)
        expect(round.warmup.calls).toBe(tinyConfig.hedging.warmupCalls)
        expect(round.p50Millis).toBeLessThanOrEqual(round.p99Millis)
        expect(round.p99Millis).toBeLessThanOrEqual(round.p999Millis)
        expect(round.p999Millis).toBeLessThanOrEqual(round.maxMillis)
      }
    }
    for (const library of hedgingLibraries) {
      const of = (mode: string) => result?.rows.find((row) => row.library === library && row.mode === mode)
      const off = of("off")
      // Without hedging, exactly one request per call, and the baseline is itself.
      for (const round of off?.rounds ?? [])
        expect([round.requests, round.hedges, round.abandoned]).toEqual([callsPerRound, 0, 0])
      expect([off?.extraRequests, off?.p99Ratio, off?.hedgeDelayMillis]).toEqual([0, 1, null])
      // A fixed delay is the delay every hedge goes after.
      for (const [mode, millis] of [
        ["fixed-10ms", hedgingDelays.anchorMillis],
        ["fixed-p95", hedgingDelays.p95Millis]
      ] as const) {
        for (const round of of(mode)?.rounds ?? []) {
          if (round.hedgeDelayMillis !== null)
            expect(round.hedgeDelayMillis).toEqual({ median: millis, min: millis, max: millis })
        }
      }
      // Each line's ratios are to its own baseline, round by round.
      for (const row of result?.rows.filter((candidate) => candidate.library === library) ?? []) {
        const p99 = (rounds: ReadonlyArray<HedgingRound>) => rounds.map((round) => round.p99Millis)
        expect(row.p99Ratio).toBe(medianRatio(p99(row.rounds), p99(off?.rounds ?? [])))
      }
    }
  })

  it("prints the table, the goal with its verdict, and the learnt delay round by round", () => {
    const { markdown } = run.output()
    const rows = tableAfter(markdown, "## 9. Hedged requests")
    expect(rows).toHaveLength(2 + labels.length)
    for (const row of rows) expect(row).toHaveLength(12)
    expect(rows.slice(2).map((row) => row[0])).toEqual(labels)
    for (const baseline of [rows[2], rows[3]]) expect(baseline?.slice(8, 10)).toEqual(["1.00×", "1.00×"])
    for (const row of rows.slice(2)) expect(row[11]).toMatch(/^(yes|no|–)$/)
    expect(markdown).toMatch(/Goal \(issue #20\): hedging at the 95th percentile cuts p99 by 80\.0% or more/)
    expect(markdown).toContain("## 9. Hedged requests")
    expect(markdown).toMatch(/calls\/s, Effect 3 and Effect 4\)/)
    for (const line of lines) expect(markdown).toContain(`${line}: learnt p95: p99 cut by`)
    const byRound = tableAfter(markdown, "The learnt delay, round by round")
    // The two learnt configurations on each line, a row per round.
    expect(byRound).toHaveLength(2 + 2 * lines.length * tinyConfig.hedging.rounds)
    for (const row of byRound) expect(row).toHaveLength(10)
    expect(markdown).not.toMatch(/NaN|undefined/)
  })
})

describe("the hedging section's definitions", () => {
  it("the distribution's 95th percentile is its typical latency: exactly 95% wait 5 ms", () => {
    expect(distributionPercentile(95, latencyDistribution)).toBe(5)
    expect(distributionPercentile(95, { ...latencyDistribution, slowShare: 0.051 })).toBe(500)
    expect(distributionPercentile(99, latencyDistribution)).toBe(500)
    expect(hedgingDelays.p95Millis).toBe(distributionPercentile(95, latencyDistribution))
  })

  it("counts the slow draws the chaos server makes for a seed", () => {
    expect(slowDraws(1, 0)).toBe(0)
    // mulberry32(1): 206 of the first 4,000 numbers are below 0.05; every number is below 1.
    expect(slowDraws(1, 4_000)).toBe(206)
    expect(slowDraws(1, 100, 1)).toBe(100)
  })

  it("hedges in every configuration but the baseline, with no budget but in the last", () => {
    expect(hedgingPolicyFor("off")).toEqual({ retryBudget: "none" })
    expect(hedgingPolicyFor("fixed-10ms")).toEqual({ retryBudget: "none", hedging: { delay: "10 millis" } })
    expect(hedgingPolicyFor("fixed-p95")).toEqual({ retryBudget: "none", hedging: { delay: "5 millis" } })
    expect(hedgingPolicyFor("percentile")).toEqual({ retryBudget: "none", hedging: { percentile: 95 } })
    expect(hedgingPolicyFor("percentile-budget")).toEqual({ hedging: { percentile: 95 } })
  })

  it("judges a row by same-round ratios and medians: p99 cut by 80% or more for at most 6% extra", () => {
    const round = (p99Millis: number, requests: number, delays: ReadonlyArray<number> = []): HedgingRound => ({
      seed: 1,
      calls: 100,
      requests,
      abandoned: 0,
      hedges: requests - 100,
      hedgeDelayMillis: summarizeDelays(delays),
      p50Millis: 5,
      p95Millis: 10,
      p99Millis,
      p999Millis: p99Millis,
      maxMillis: p99Millis,
      loadAverage: 1,
      cpuMicrosPerCall: 100,
      warmup: { calls: 10, requests: 10, hedges: 0, hedgeDelayMillis: null }
    })
    const baseline = [round(500, 100), round(400, 100), round(600, 100)]
    const learnt = hedgingConfigurations.find((configuration) => configuration.mode === "percentile")!
    const met = hedgingRow(
      "effect4-http-resilience",
      learnt,
      [round(50, 105, [20, 30]), round(100, 106, [25]), round(60, 104, [10, 40])],
      baseline
    )
    expect(met.p99Ratio).toBeCloseTo(0.1)
    expect(met.extraRequests).toBeCloseTo(0.05)
    expect([met.line, met.hedgeDelayMillis, met.hedgeDelayRange, met.meetsGoal]).toEqual([
      "Effect 4",
      25,
      [10, 40],
      true
    ])
    const library = "effect-http-resilience"
    expect(hedgingRow(library, learnt, [round(50, 107), round(100, 107), round(60, 107)], baseline).meetsGoal).toBe(
      false
    )
    expect(hedgingRow(library, learnt, [round(150, 101), round(100, 101), round(150, 101)], baseline).meetsGoal).toBe(
      false
    )
    expect(summarizeDelays([])).toBeNull()
  })
})
