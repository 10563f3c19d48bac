/** What the bench's tests share: a tiny configuration, a tiny run, and readers of the markdown tables. */
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { afterAll, beforeAll, expect } from "vitest"
import { type BenchOutput, runBench, type SectionName } from "../src/bench.js"
import type { BenchConfig } from "../src/config.js"

export const tinyConfig: BenchConfig = {
  mode: "quick",
  libraries: ["undici", "effect", "effect-retry-transient", "effect-http-resilience"],
  happyPath: { rounds: 5, requestsPerRound: 10, warmupRequests: 5, concurrencies: [1, 4] },
  retryCost: { rounds: 3, callsPerRound: 6, batchesPerRound: 2, warmupCalls: 3, concurrency: 4 },
  // 250 retries: more than a default budget's floor, which the retry mode must not run into.
  memory: { rounds: 5, callsPerRound: 25, warmupCalls: 3, concurrency: 4 },
  // All in one wave (concurrency = calls), so that the connection-refused waits stay short.
  outage: { callsPerBatch: 60, concurrency: 60 },
  sparse: { calls: 200, concurrency: 16, failingShare: 0.05 },
  breaker: { ratePerSecond: 50, warmupMillis: 300, outageMillis: 600, afterMillis: 300, concurrency: 64 },
  contention: { clientCounts: [5, 10], runs: 2 },
  sharedStore: { rounds: 2, callsPerRound: 20, warmupCalls: 10, concurrencies: [1, 4] },
  hedging: { rounds: 2, callsPerRound: 60, warmupCalls: 30, ratePerSecond: 300, concurrency: 32 },
  limits: { rounds: 1, phaseMillis: 600, callers: 24, rateLimitCalls: 12, rateLimitConcurrency: 4 }
}

export interface TinyRun {
  /** The temporary directory the run wrote to. */
  readonly outDir: () => string
  readonly output: () => BenchOutput
}

/**
 * Runs the given sections of the bench with `config` ({@link tinyConfig} by default) once, before
 * the tests of the calling `describe`, into a temporary directory removed after them.
 */
export const tinyRun = (
  sections: ReadonlyArray<SectionName>,
  timeoutMillis: number,
  config: BenchConfig = tinyConfig
): TinyRun => {
  let outDir = ""
  let output: BenchOutput | undefined
  beforeAll(async () => {
    outDir = await Fs.mkdtemp(Path.join(Os.tmpdir(), "bench-test-"))
    output = await runBench({ config, sections, outDir, command: "vitest", log: () => undefined })
  }, timeoutMillis)
  afterAll(async () => {
    if (outDir !== "") await Fs.rm(outDir, { recursive: true, force: true })
  })
  return {
    outDir: () => outDir,
    output: () => {
      if (output === undefined) throw new Error("the tiny run has not completed")
      return output
    }
  }
}

/** The rows of the first markdown table after `heading`: its cells, header and separator included. */
export const tableAfter = (markdown: string, heading: string): Array<Array<string>> => {
  const start = markdown.indexOf(heading)
  expect(start, `no "${heading}" in the markdown`).toBeGreaterThanOrEqual(0)
  const lines = markdown.slice(start).split("\n")
  const first = lines.findIndex((line) => line.startsWith("|"))
  const rows: Array<Array<string>> = []
  for (const line of lines.slice(first)) {
    if (!line.startsWith("|")) break
    rows.push(
      line
        .slice(1, -1)
        .split("|")
        .map((cell) => cell.trim())
    )
  }
  return rows
}

export const expectTable = (rows: Array<Array<string>>, columns: number, firstColumn: ReadonlyArray<string>) => {
  expect(rows.length).toBe(firstColumn.length + 2)
  for (const row of rows) expect(row.length).toBe(columns)
  expect(rows[1]!.every((cell) => /^-+:?$/.test(cell))).toBe(true)
  expect(rows.slice(2).map((row) => row[0])).toEqual(firstColumn)
  for (const row of rows.slice(2)) {
    for (const cell of row.slice(1)) expect(cell).toMatch(/^(n\/a|-?[\d,]+(\.\d+)?×?)$/)
  }
}
