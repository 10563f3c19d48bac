/**
 * The results of a run, as one JSON document and as markdown tables.
 */
import * as Os from "node:os"
import { libraries } from "./clients.js"
import type { BenchConfig } from "./config.js"
import {
  backoffBaseMillis,
  backoffCapMillis,
  backoffLabels,
  backoffModes,
  type ContentionCell,
  defaultNetwork
} from "./contention.js"
import type { HappyPathResult } from "./happyPath.js"
import type { MemoryResult } from "./memory.js"
import type { RetryCostResult } from "./retryCost.js"

export interface Machine {
  readonly cpuModel: string
  readonly cores: number
  readonly node: string
  readonly platform: string
  readonly arch: string
  readonly totalMemoryBytes: number
  /** 1, 5 and 15 minute load averages when the run started: the machine is shared. */
  readonly loadAverageAtStart: ReadonlyArray<number>
}

export const describeMachine = (): Machine => ({
  cpuModel: Os.cpus()[0]?.model.trim() ?? "unknown",
  cores: Os.availableParallelism(),
  node: process.version,
  platform: Os.platform(),
  arch: Os.arch(),
  totalMemoryBytes: Os.totalmem(),
  loadAverageAtStart: Os.loadavg().map((load) => Math.round(load * 100) / 100)
})

export const retryBudgetNote =
  "Retry budget: not measured yet. The library has no retry budget so far; it arrives with its own issue, and with it this comparison."

export interface ContentionResult {
  readonly network: { readonly meanMillis: number; readonly deviationMillis: number }
  readonly backoffBaseMillis: number
  readonly backoffCapMillis: number
  readonly runsPerCell: number
  readonly cells: ReadonlyArray<ContentionCell>
  readonly retryBudget: string
}

export interface BenchResults {
  readonly schemaVersion: 1
  readonly mode: BenchConfig["mode"]
  readonly command: string
  readonly date: string
  readonly durationSeconds: number
  readonly machine: Machine
  readonly config: BenchConfig
  readonly clients: ReadonlyArray<{ readonly id: string; readonly label: string; readonly description: string }>
  readonly happyPath: HappyPathResult | null
  readonly retryCost: RetryCostResult | null
  readonly memory: MemoryResult | null
  readonly contention: ContentionResult | null
  readonly charts: { readonly throughput: string | null; readonly contention: string | null }
}

export const contentionResult = (cells: ReadonlyArray<ContentionCell>, runs: number): ContentionResult => ({
  network: defaultNetwork,
  backoffBaseMillis,
  backoffCapMillis,
  runsPerCell: runs,
  cells,
  retryBudget: retryBudgetNote
})

export const clientDescriptions = libraries.map(({ description, id, label }) => ({ id, label, description }))

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")
const integer = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a")
const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a")
const kib = (bytes: number): string => fixed(bytes / 1024, 1)
const mib = (bytes: number): string => fixed(bytes / (1024 * 1024), 1)

export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const line = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`
  return [line(header), line(header.map((_, index) => (index === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n")
}

export const happyPathTable = (result: HappyPathResult): string => {
  const concurrencies = [...new Set(result.rows.map((row) => row.concurrency))]
  const header = ["client"]
  for (const concurrency of concurrencies) {
    header.push(`req/s c=${concurrency}`, "× Effect", "× undici", "p50 ms", "p99 ms")
  }
  const labels = [...new Set(result.rows.map((row) => row.label))]
  const rows = labels.map((label) => {
    const cells = [label]
    for (const concurrency of concurrencies) {
      const row = result.rows.find((candidate) => candidate.label === label && candidate.concurrency === concurrency)
      if (row === undefined) cells.push("n/a", "n/a", "n/a", "n/a", "n/a")
      else {
        cells.push(
          integer(row.requestsPerSecond),
          ratio(row.ratioToEffect),
          ratio(row.ratioToUndici),
          fixed(row.p50Millis, 2),
          fixed(row.p99Millis, 2)
        )
      }
    }
    return cells
  })
  return table(header, rows)
}

export const retryCostTable = (result: RetryCostResult): string =>
  table(
    [
      "client",
      "CPU µs / plain call",
      "CPU µs / retried call",
      "CPU µs / retry",
      "KiB allocated / retry",
      "CPU / retry × retryTransient",
      "alloc / retry × retryTransient",
      "requests / call"
    ],
    result.rows.map((row) => [
      row.label,
      fixed(row.cpuMicrosPerPlainCall, 0),
      fixed(row.cpuMicrosPerRetriedCall, 0),
      fixed(row.cpuMicrosPerRetry, 0),
      kib(row.allocatedBytesPerRetry),
      ratio(row.cpuRatioToRetryTransient),
      ratio(row.allocationRatioToRetryTransient),
      fixed(row.attemptsPerCall, 2)
    ])
  )

export const memoryTable = (result: MemoryResult): string =>
  table(
    [
      "client",
      "peak RSS MiB",
      "peak heap MiB",
      "connections opened / round",
      "of which still open after",
      "requests / call",
      "active sockets after",
      "heap Δ after GC / round KiB",
      "heap Δ after GC, all rounds KiB"
    ],
    result.rows.map((row) => [
      row.label,
      mib(row.peakRssBytes),
      mib(row.peakHeapBytes),
      integer(row.connectionsOpenedPerRound),
      integer(row.connectionsLeftOpenPerRound),
      fixed(row.attemptsPerCall, 2),
      integer(row.activeSocketsAfter),
      kib(row.heapGrowthPerRoundBytes),
      kib(row.heapGrowthOverallBytes)
    ])
  )

export const contentionTables = (result: ContentionResult): string => {
  const counts = [...new Set(result.cells.map((cell) => cell.clients))].sort((a, b) => a - b)
  const pivot = (value: (cell: ContentionCell) => string) =>
    table(
      ["backoff", ...counts.map((count) => `N=${count}`)],
      backoffModes
        .filter((mode) => result.cells.some((cell) => cell.mode === mode))
        .map((mode) => [
          backoffLabels[mode],
          ...counts.map((count) => {
            const cell = result.cells.find((candidate) => candidate.mode === mode && candidate.clients === count)
            return cell === undefined ? "n/a" : value(cell)
          })
        ])
    )
  const incomplete = result.cells.reduce((sum, cell) => sum + cell.incompleteRuns, 0)
  return [
    "Total write calls until every client has written (mean):",
    "",
    pivot((cell) => integer(cell.writeCalls)),
    "",
    "Simulated seconds until every client has written (mean):",
    "",
    pivot((cell) => fixed(cell.completionMillis / 1000, 2)),
    ...(incomplete > 0 ? ["", `${incomplete} runs hit the simulator's bounds before every client had written.`] : []),
    "",
    result.retryBudget
  ].join("\n")
}

export const renderMarkdown = (results: BenchResults): string => {
  const { machine } = results
  const sections: Array<string> = [
    `# pnpm bench (${results.mode})`,
    "",
    `\`${results.command}\` on ${results.date}: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node} ` +
      `(${machine.platform}/${machine.arch}), load average ${machine.loadAverageAtStart.join(" / ")} at the start; ` +
      `${fixed(results.durationSeconds, 0)} s. The server and every client run in processes of their own; each ` +
      "figure is a median over interleaved rounds after a warm-up, each ratio a median of same-round ratios."
  ]
  if (results.happyPath !== null) {
    const config = results.config.happyPath
    sections.push(
      "",
      `## 1. Happy path (${integer(results.happyPath.requestsMeasured)} requests per client and concurrency: ` +
        `${config.rounds} rounds of ${integer(config.requestsPerRound)})`,
      "",
      "`× Effect`: throughput relative to the bare Effect `HttpClient` over the same undici transport; " +
        "`× undici`: relative to raw `undici.request`.",
      "",
      happyPathTable(results.happyPath)
    )
  }
  if (results.retryCost !== null) {
    const config = results.retryCost
    sections.push(
      "",
      `## 2. Cost of a retry (${integer(config.callsMeasured)} calls failing once with 503 + \`Retry-After: 0\`, ` +
        `concurrency ${results.config.retryCost.concurrency})`,
      "",
      "Per retry: the CPU time and JS heap bytes of a call retried once, minus those of a plain call in the same " +
        "round (the second exchange included). got and undici's `RetryAgent` are told to retry at once " +
        "(they would wait 1 s and 500 ms on `Retry-After: 0`).",
      "",
      retryCostTable(results.retryCost)
    )
  }
  if (results.memory !== null) {
    sections.push(
      "",
      `## 3. Memory and sockets (${integer(results.memory.callsMeasured)} calls against a lasting 503, ` +
        `3 attempts each, concurrency ${results.config.memory.concurrency}, \`--expose-gc\`)`,
      "",
      "Connections opened per round and, of those, still open after it (a warm-up round fills the pools " +
        "first), as the server counts them; active sockets: TCP sockets still keeping the client process alive " +
        "after its last round (pooled idle sockets do not). Heap Δ: heap used after a forced GC minus before.",
      "",
      memoryTable(results.memory)
    )
  }
  if (results.contention !== null) {
    const contention = results.contention
    sections.push(
      "",
      `## 4. Contention (simulated time, ${contention.runsPerCell} seeded runs per cell)`,
      "",
      `N clients each make one optimistic-concurrency write to one record; network delay per message ` +
        `N(${contention.network.meanMillis} ms, ${contention.network.deviationMillis} ms); the waits are ` +
        `the library's \`RetryPolicy\` schedule, backoff base ${contention.backoffBaseMillis} ms, cap ` +
        `${contention.backoffCapMillis / 1000} s.`,
      "",
      contentionTables(contention)
    )
  }
  if (results.charts.throughput !== null || results.charts.contention !== null) {
    sections.push("", "## Charts", "")
    for (const chart of [results.charts.throughput, results.charts.contention]) {
      if (chart !== null) sections.push(`- [${chart}](${chart})`)
    }
  }
  return `${sections.join("\n")}\n`
}
