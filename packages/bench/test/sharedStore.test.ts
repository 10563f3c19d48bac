/**
 * The shared-store section runs and prints its figures: a tiny run of `--only=store` on both
 * lines (a redis-server of its own per line, real server and client processes, the Effect 4 one
 * under Node 22), then the shape of its JSON and markdown. No figure is compared with a
 * threshold: only what follows from the definitions (the memory store's ratio to itself, the
 * rounds and calls asked for) and that the Redis store did reach Redis (its batched flushes).
 */
import { redisServer, skipWithout } from "@effect-http-resilience/conformance/systemBinaries"
import { describe, expect, it } from "vitest"
import type { BenchConfig } from "../src/config.js"
import { readCommandStats, scriptCommands, sharedStoreLibraries } from "../src/sharedStore.js"
import { tableAfter, tinyConfig, tinyRun } from "./helpers.js"

const storeConfig: BenchConfig = { ...tinyConfig, libraries: sharedStoreLibraries }
const labels = ["effect-http-resilience", "effect-http-resilience-effect4"]
const concurrencies = storeConfig.sharedStore.concurrencies

describe.skipIf(skipWithout(redisServer))("pnpm bench, the shared-store section", () => {
  const run = tinyRun(["store"], 240_000, storeConfig)

  it("measures both lines at each concurrency, the memory store, its control and the Redis store, in every round", () => {
    const result = run.output().results.sharedStore
    expect(result?.rows.map((row) => `${row.label}@${row.concurrency}`)).toEqual(
      labels.flatMap((label) => concurrencies.map((concurrency) => `${label}@${concurrency}`))
    )
    expect(result?.goalRatio).toBe(1.03)
    expect(result?.redisVersion).toMatch(/^\d+\.\d+/)
    for (const row of result?.rows ?? []) {
      for (const store of [row.memory, row.memoryControl, row.redis]) {
        expect(store.rounds).toHaveLength(storeConfig.sharedStore.rounds)
        for (const figure of [store.p50Micros, store.microsPerCall, store.cpuMicrosPerCall]) {
          expect(figure).toBeGreaterThan(0)
        }
      }
      for (const ratio of [row.p50Ratio, row.cpuRatio, row.timeRatio, row.controlRatios.p50, row.controlRatios.cpu]) {
        expect(Number.isFinite(ratio)).toBe(true)
      }
      expect(row.p50RatioRange[0]).toBeLessThanOrEqual(row.p50Ratio)
      expect(row.p50RatioRange[1]).toBeGreaterThanOrEqual(row.p50Ratio)
      expect(row.withinGoal).toEqual({ p50: row.p50Ratio <= 1.03, cpu: row.cpuRatio <= 1.03 })
    }
    expect([run.output().results.happyPath, run.output().results.contention]).toEqual([null, null])
  })

  it("counts what each line's Redis store sent: its batched flushes, EVALSHA, told apart from what the scripts ran", () => {
    const result = run.output().results.sharedStore
    expect(result?.commands.map((row) => row.label)).toEqual(labels)
    const { callsPerRound, rounds } = storeConfig.sharedStore
    for (const row of result?.commands ?? []) {
      expect(row.redisCalls).toBe(rounds * concurrencies.length * callsPerRound)
      expect(row.sent.evalsha ?? 0).toBeGreaterThanOrEqual(1)
      expect(row.total).toBe(Object.values(row.sent).reduce((sum, calls) => sum + calls, 0))
      for (const name of Object.keys(row.sent)) expect(scriptCommands.has(name)).toBe(false)
      // Each flush runs the budget script, which reads Redis's clock once.
      expect(row.inScripts.time).toBe(row.sent.evalsha)
    }
  })

  it("measures each line under a rateLimit that binds, memory and Redis in every round, and what Redis received", () => {
    const result = run.output().results.sharedStore
    const { callsPerRound, rounds } = storeConfig.sharedStore
    expect(result?.rateLimited.map((row) => `${row.label}@${row.concurrency}`)).toEqual(
      labels.map((label) => `${label}@${Math.max(...concurrencies)}`)
    )
    for (const row of result?.rateLimited ?? []) {
      for (const store of [row.memory, row.redis]) expect(store.rounds).toHaveLength(rounds)
      expect(Number.isFinite(row.p50Ratio)).toBe(true)
      expect(row.withinGoal).toBe(row.p50Ratio <= 1.05)
      expect(row.redisCalls).toBe(rounds * callsPerRound)
      // The takes reached Redis: at least one lease.
      expect(row.sent.evalsha ?? 0).toBeGreaterThanOrEqual(1)
    }
  })

  it("prints the table, the goal with its verdict, and the commands", () => {
    const { markdown } = run.output()
    const rows = tableAfter(markdown, "## 8. Shared store")
    expect(rows).toHaveLength(2 + labels.length * concurrencies.length)
    for (const row of rows) expect(row).toHaveLength(12)
    expect(rows.slice(2).map((row) => row[0])).toEqual(labels.flatMap((label) => concurrencies.map(() => label)))
    for (const row of rows.slice(2)) {
      expect(row[4]).toMatch(/^\d+\.\d{3}×$/)
      expect(row[10]).toMatch(/^\d+\.\d{3}×, \d+\.\d{3}×$/)
      expect(row[11]).toMatch(/^(yes|no|time only|CPU only)$/)
    }
    expect(markdown).toMatch(/Goal \(issue #18\): the happy path with the Redis store within 3% of the memory store/)
    const commands = tableAfter(markdown, "What the client process sent to Redis")
    expect(commands.slice(2).map((row) => row[0])).toEqual(labels)
    for (const row of commands) expect(row).toHaveLength(8)
    // A subcommand (`script|load`) is written with a space: a `|` would split its cell.
    for (const row of commands.slice(2))
      expect(row[5]).toMatch(/^([A-Z]+( [A-Z]+)? \d+, )*EVALSHA \d+(, [A-Z]+( [A-Z]+)? \d+)*$/)
    // The rate-limited rows (issue #43): one per line, every call through each store a 200, and
    // what Redis received counted.
    const rateLimited = tableAfter(markdown, "Under a `rateLimit` that binds")
    expect(rateLimited.slice(2).map((row) => row[0])).toEqual(labels)
    for (const row of rateLimited) expect(row).toHaveLength(9)
    expect(markdown).not.toMatch(/NaN|undefined/)
  })
})

describe("reading INFO commandstats", () => {
  it("splits what clients sent from what the store's scripts ran, and leaves out INFO and CONFIG", () => {
    const reply =
      "$200\r\n# Commandstats\r\ncmdstat_evalsha:calls=3,usec=90,usec_per_call=30.00,rejected_calls=0,failed_calls=0\r\n" +
      "cmdstat_time:calls=3,usec=3\r\ncmdstat_hincrby:calls=3,usec=6\r\ncmdstat_script|load:calls=1,usec=40\r\n" +
      "cmdstat_config|resetstat:calls=1,usec=5\r\ncmdstat_info:calls=2,usec=50\r\n\r\n"
    expect(readCommandStats(reply)).toEqual({
      sent: { evalsha: 3, "script|load": 1 },
      inScripts: { time: 3, hincrby: 3 }
    })
  })
})
