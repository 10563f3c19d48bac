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
import type { BreakerResult } from "./breaker.js"
import type { HappyPathResult } from "./happyPath.js"
import { extraShare, type HedgingResult, type HedgingRow } from "./hedging.js"
import { callersFor, type LimitsResult } from "./limits.js"
import type { MemoryResult } from "./memory.js"
import type { OutageResult } from "./outage.js"
import type { RetryCostResult } from "./retryCost.js"
import type { SharedStoreResult } from "./sharedStore.js"
import type { SparseResult } from "./sparse.js"

export interface Machine {
  readonly cpuModel: string
  readonly cores: number
  readonly node: string
  /** The Node the Effect 4 clients ran under (Node 22, which their transport needs); null if none ran. */
  readonly effect4Node: string | null
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
  effect4Node: null,
  platform: Os.platform(),
  arch: Os.arch(),
  totalMemoryBytes: Os.totalmem(),
  loadAverageAtStart: Os.loadavg().map((load) => Math.round(load * 100) / 100)
})

const retryBudgetNote =
  "With a retry budget: the N clients share the library's default `RetryBudget` (Finagle: 10% of calls plus a " +
  "floor of 10 retries per second of its 10 s ttl, lent up front), on simulated time; each client's write is one " +
  "call, depositing when it starts, each conflict asks for a retry, and a client refused one gives up."

export interface ContentionResult {
  readonly network: { readonly meanMillis: number; readonly deviationMillis: number }
  readonly backoffBaseMillis: number
  readonly backoffCapMillis: number
  readonly runsPerCell: number
  /** Without a retry budget. */
  readonly cells: ReadonlyArray<ContentionCell>
  /** The same runs with the library's default retry budget, shared by the N clients. */
  readonly withBudget: ReadonlyArray<ContentionCell>
  readonly retryBudget: string
}

export interface BenchResults {
  readonly schemaVersion: 2
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
  readonly outage: OutageResult | null
  readonly sparse: SparseResult | null
  readonly breaker: BreakerResult | null
  readonly contention: ContentionResult | null
  readonly sharedStore: SharedStoreResult | null
  readonly hedging: HedgingResult | null
  /** Null when the section did not run; absent from results written before it existed. */
  readonly limits: LimitsResult | null
  readonly charts: { readonly throughput: string | null; readonly contention: string | null }
}

export const contentionResult = (
  cells: ReadonlyArray<ContentionCell>,
  withBudget: ReadonlyArray<ContentionCell>,
  runs: number
): ContentionResult => ({
  network: defaultNetwork,
  backoffBaseMillis,
  backoffCapMillis,
  runsPerCell: runs,
  cells,
  withBudget,
  retryBudget: retryBudgetNote
})

export const clientDescriptions = libraries.map(({ description, id, label }) => ({ id, label, description }))

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")
const integer = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a")
const ratio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(2)}×` : "n/a")
/** A ratio to judge a goal of a few percent by: three decimals, so that 1.031× does not read as 1.03×. */
const fineRatio = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(3)}×` : "n/a")
const kib = (bytes: number): string => fixed(bytes / 1024, 1)
const mib = (bytes: number): string => fixed(bytes / (1024 * 1024), 1)

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const line = (cells: ReadonlyArray<string>) => `| ${cells.join(" | ")} |`
  return [line(header), line(header.map((_, index) => (index === 0 ? "---" : "---:"))), ...rows.map(line)].join("\n")
}

const happyPathTable = (result: HappyPathResult): string => {
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

const retryCostTable = (result: RetryCostResult): string =>
  table(
    [
      "client",
      "CPU µs / plain call",
      "KiB allocated / plain call",
      "CPU µs / retried call",
      "CPU µs / retry",
      "p25",
      "p75",
      "KiB allocated / retry",
      "CPU / retry × retryTransient",
      "alloc / retry × retryTransient",
      "requests / call"
    ],
    result.rows.map((row) => [
      row.label,
      fixed(row.cpuMicrosPerPlainCall, 0),
      kib(row.allocatedBytesPerPlainCall),
      fixed(row.cpuMicrosPerRetriedCall, 0),
      fixed(row.cpuMicrosPerRetry, 0),
      fixed(row.cpuMicrosPerRetrySpread.p25, 0),
      fixed(row.cpuMicrosPerRetrySpread.p75, 0),
      kib(row.allocatedBytesPerRetry),
      ratio(row.cpuRatioToRetryTransient),
      ratio(row.allocationRatioToRetryTransient),
      fixed(row.attemptsPerCall, 2)
    ])
  )

const memoryTable = (result: MemoryResult): string =>
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

const contentionTables = (result: ContentionResult): string => {
  const counts = [...new Set(result.cells.map((cell) => cell.clients))].sort((a, b) => a - b)
  const pivot = (
    cells: ReadonlyArray<ContentionCell>,
    columns: ReadonlyArray<{ readonly header: string; readonly value: (cell: ContentionCell) => string }>
  ) =>
    table(
      ["backoff", ...counts.flatMap((count) => columns.map((column) => `N=${count}${column.header}`))],
      backoffModes
        .filter((mode) => cells.some((cell) => cell.mode === mode))
        .map((mode) => [
          backoffLabels[mode],
          ...counts.flatMap((count) => {
            const cell = cells.find((candidate) => candidate.mode === mode && candidate.clients === count)
            return columns.map((column) => (cell === undefined ? "n/a" : column.value(cell)))
          })
        ])
    )
  const incomplete = [...result.cells, ...result.withBudget].reduce((sum, cell) => sum + cell.incompleteRuns, 0)
  return [
    "Total write calls until every client has written (mean):",
    "",
    pivot(result.cells, [{ header: "", value: (cell) => integer(cell.writeCalls) }]),
    "",
    "Simulated seconds until every client has written (mean):",
    "",
    pivot(result.cells, [{ header: "", value: (cell) => fixed(cell.completionMillis / 1000, 2) }]),
    "",
    `${result.retryBudget} Write calls, clients that gave up, and seconds until every client has written or ` +
      "given up (mean):",
    "",
    pivot(result.withBudget, [
      { header: " writes", value: (cell) => integer(cell.writeCalls) },
      { header: " gave up", value: (cell) => fixed(cell.gaveUp, 1) },
      { header: " s", value: (cell) => fixed(cell.completionMillis / 1000, 2) }
    ]),
    ...(incomplete > 0 ? ["", `${incomplete} runs hit the simulator's bounds before every client had written.`] : [])
  ].join("\n")
}

const unrefusingBudgetNote =
  "Every call here fails at least once, so this library (either line) runs with a retry budget that never runs " +
  "dry (`retryBudget: { ratio: 1000 }`): the default one would refuse most of these retries, as it should; " +
  "its bookkeeping is paid all the same. Likewise Effect 4's `withCircuitBreaker` runs with a breaker that " +
  "never opens (`consecutive(Number.MAX_SAFE_INTEGER)`)."

const percent = (share: number): string => fixed(share * 100, 1)

const outageTable = (result: OutageResult): string => {
  const n = integer(result.callsPerBatch)
  return table(
    [
      "client",
      `503: requests / call, first ${n} calls`,
      `503: next ${n} calls`,
      `refused: attempts / call, first ${n} calls`,
      `refused: next ${n} calls`
    ],
    result.rows.map((row) => [
      row.label,
      fixed(row.unavailable.first.requestsPerCall, 2),
      fixed(row.unavailable.second.requestsPerCall, 2),
      fixed(row.refused.first.requestsPerCall, 2),
      fixed(row.refused.second.requestsPerCall, 2)
    ])
  )
}

const sparseTable = (result: SparseResult): string =>
  table(
    ["client", "calls", "calls failing once", "succeeded", "success %", "retries", "requests / call"],
    result.rows.map((row) => [
      row.label,
      integer(row.calls),
      integer(row.callsFailingOnce),
      integer(row.succeeded),
      percent(row.successRate),
      integer(row.retries),
      fixed(row.requestsPerCall, 3)
    ])
  )

const breakerTable = (result: BreakerResult): string =>
  table(
    [
      "client",
      "requests during the outage",
      "requests / s",
      "× calls / s",
      "ms from recovery to first success",
      "calls failed",
      "calls"
    ],
    result.rows.map((row) => [
      row.label,
      integer(row.requestsDuringOutage),
      integer(row.requestsPerSecondDuringOutage),
      ratio(row.loadFactorDuringOutage),
      row.millisToFirstSuccess === null ? "n/a" : integer(row.millisToFirstSuccess),
      integer(row.callsFailed),
      integer(row.calls)
    ])
  )

const withinGoal = (row: SharedStoreResult["rows"][number]): string =>
  row.withinGoal.p50 && row.withinGoal.cpu
    ? "yes"
    : row.withinGoal.p50
      ? "time only"
      : row.withinGoal.cpu
        ? "CPU only"
        : "no"

const sharedStoreTable = (result: SharedStoreResult): string =>
  table(
    [
      "client",
      "in flight",
      "memory p50 µs",
      "Redis p50 µs",
      "p50 × memory",
      "rounds' range",
      "memory CPU µs / call",
      "Redis CPU µs / call",
      "CPU × memory",
      "µs / call × memory",
      "control p50, CPU × memory",
      `within ${fixed((result.goalRatio - 1) * 100, 0)}%`
    ],
    result.rows.map((row) => [
      row.label,
      integer(row.concurrency),
      fixed(row.memory.p50Micros, 0),
      fixed(row.redis.p50Micros, 0),
      fineRatio(row.p50Ratio),
      `${fixed(row.p50RatioRange[0], 3)}–${fixed(row.p50RatioRange[1], 3)}`,
      fixed(row.memory.cpuMicrosPerCall, 0),
      fixed(row.redis.cpuMicrosPerCall, 0),
      fineRatio(row.cpuRatio),
      fineRatio(row.timeRatio),
      `${fineRatio(row.controlRatios.p50)}, ${fineRatio(row.controlRatios.cpu)}`,
      withinGoal(row)
    ])
  )

const commandList = (counts: Readonly<Record<string, number>>): string =>
  Object.entries(counts)
    .sort(([, a], [, b]) => b - a)
    // `script|load` is Redis's name for a subcommand; a `|` would split the markdown cell.
    .map(([name, calls]) => `${name.replaceAll("|", " ").toUpperCase()} ${integer(calls)}`)
    .join(", ") || "none"

const sharedStoreCommandsTable = (result: SharedStoreResult): string =>
  table(
    [
      "client",
      "calls through the Redis store",
      "seconds counted",
      "sync intervals in them",
      "commands sent",
      "of which",
      "per 1,000 calls",
      "run by the scripts in Redis"
    ],
    result.commands.map((row) => [
      row.label,
      integer(row.redisCalls),
      fixed(row.measuredSeconds, 1),
      integer(Math.floor((row.measuredSeconds * 1000) / result.syncIntervalMillis)),
      integer(row.total),
      commandList(row.sent),
      fixed((row.total / row.redisCalls) * 1000, 2),
      commandList(row.inScripts)
    ])
  )

const rateLimitedTable = (result: SharedStoreResult): string =>
  table(
    [
      "client",
      "in flight",
      "memory p50 µs",
      "Redis p50 µs",
      "p50 × memory",
      "rounds' range",
      `within ${fixed((result.rateLimitedGoalRatio - 1) * 100, 0)}%`,
      "commands sent per 1,000 calls",
      "of which"
    ],
    result.rateLimited.map((row) => [
      row.label,
      integer(row.concurrency),
      fixed(row.memory.p50Micros, 0),
      fixed(row.redis.p50Micros, 0),
      fineRatio(row.p50Ratio),
      `${fixed(row.p50RatioRange[0], 3)}–${fixed(row.p50RatioRange[1], 3)}`,
      row.withinGoal ? "yes" : "no",
      fixed((row.total / row.redisCalls) * 1000, 2),
      commandList(row.sent)
    ])
  )

/** The control's ratios, latency and CPU, from the smallest to the largest. */
const controlRange = (result: SharedStoreResult): string => {
  const ratios = result.rows.flatMap((row) => [row.controlRatios.p50, row.controlRatios.cpu])
  return `${fixed(Math.min(...ratios), 3)}–${fineRatio(Math.max(...ratios))}`
}

/** The goal and whether every row meets it. */
const sharedStoreVerdict = (result: SharedStoreResult): string => {
  const where = (missed: ReadonlyArray<SharedStoreResult["rows"][number]>) =>
    missed.map((row) => `${row.label} at ${row.concurrency} in flight`).join(", ")
  const missedP50 = result.rows.filter((row) => !row.withinGoal.p50)
  const missedCpu = result.rows.filter((row) => !row.withinGoal.cpu)
  return (
    `Goal (issue #18): the happy path with the Redis store within ${fixed((result.goalRatio - 1) * 100, 0)}% of ` +
    `the memory store, a median ratio of at most ${fineRatio(result.goalRatio)}. Median latency: ` +
    (missedP50.length === 0 ? "met in every row" : `not met for ${where(missedP50)}`) +
    "; CPU per call: " +
    (missedCpu.length === 0 ? "met in every row." : `not met for ${where(missedCpu)}.`) +
    ` The control, the memory store against itself, came out at ${controlRange(result)} in this run: a ` +
    "difference of that size is this run's noise, not the store's."
  )
}

/** A hedging row's first cell: its line, then its configuration. */
const rowLabel = (row: HedgingRow): string => `${row.line}: ${row.label}`

const delayCell = (row: HedgingRow): string => {
  if (row.hedgeDelayMillis === null) return row.mode === "off" ? "–" : "no hedge sent"
  const [low, high] = row.hedgeDelayRange ?? [row.hedgeDelayMillis, row.hedgeDelayMillis]
  return low === high
    ? fixed(row.hedgeDelayMillis, 2)
    : `${fixed(row.hedgeDelayMillis, 2)} (${fixed(low, 2)}–${fixed(high, 2)})`
}

const hedgingTable = (result: HedgingResult): string =>
  table(
    [
      "configuration",
      "`hedging`",
      "p50 ms",
      "p95 ms",
      "p99 ms",
      "p99.9 ms",
      "extra requests %",
      "losers aborted %",
      "p99 × no hedging",
      "p99.9 × no hedging",
      "hedge delay ms",
      "goal met"
    ],
    result.rows.map((row) => [
      rowLabel(row),
      row.mode === "off" ? "off" : `\`${row.option}\``,
      fixed(row.p50Millis, 1),
      fixed(row.p95Millis, 1),
      fixed(row.p99Millis, 1),
      fixed(row.p999Millis, 1),
      percent(row.extraRequests),
      percent(row.abandoned),
      ratio(row.p99Ratio),
      ratio(row.p999Ratio),
      delayCell(row),
      row.atP95 ? (row.meetsGoal ? "yes" : "no") : "–"
    ])
  )

/** Round by round, what the learnt delay came out as, in the warm-up and in the measured calls. */
const hedgingRoundsTable = (result: HedgingResult): string => {
  const learnt = result.rows.filter((row) => row.mode === "percentile" || row.mode === "percentile-budget")
  const summary = (delay: HedgingRow["rounds"][number]["hedgeDelayMillis"]) =>
    delay === null
      ? "no hedge sent"
      : delay.min === delay.max
        ? fixed(delay.median, 2)
        : `${fixed(delay.median, 2)} (${fixed(delay.min, 2)}–${fixed(delay.max, 2)})`
  return table(
    [
      "configuration",
      "seed",
      "load average",
      "slow draws",
      "warm-up hedges",
      "warm-up hedge delay ms",
      "hedges",
      "hedge delay ms",
      "p99 ms",
      "extra requests %"
    ],
    learnt.flatMap((row) =>
      row.rounds.map((round) => [
        rowLabel(row),
        integer(round.seed),
        fixed(round.loadAverage, 1),
        integer(result.seeds.find((seed) => seed.seed === round.seed)?.slowDraws ?? Number.NaN),
        integer(round.warmup.hedges),
        summary(round.warmup.hedgeDelayMillis),
        integer(round.hedges),
        summary(round.hedgeDelayMillis),
        fixed(round.p99Millis, 1),
        percent(extraShare(round))
      ])
    )
  )
}

/** The goal of issue #20 and, for each configuration that hedges at the 95th percentile, whether it is met. */
const hedgingVerdict = (result: HedgingResult): string => {
  const { goal } = result
  const judged = result.rows.filter((row) => row.atP95)
  const figures = (row: HedgingRow) =>
    `${rowLabel(row)}: p99 cut by ${percent(1 - row.p99Ratio)}% for ${percent(row.extraRequests)}% extra requests, ` +
    (row.meetsGoal ? "met" : "not met")
  return (
    `Goal (issue #20): hedging at the 95th percentile cuts p99 by ${percent(goal.minP99Cut)}% or more for at ` +
    `most ${percent(goal.maxExtraRequests)}% extra requests. ${judged.map(figures).join("; ")}.`
  )
}

/** Per capacity row and phase: goodput, latency, what the server shed and what the limit refused, with the ratios issue #34 names. */
const limitsCapacityTable = (result: LimitsResult): string =>
  table(
    [
      "configuration",
      "capacity",
      "goodput calls/s",
      "× capacity",
      "p50 ms",
      "p99 ms",
      `p99 × ${result.capacityRoute.baseMillis} ms`,
      "p99 settled ×",
      "requests sent",
      "503s received",
      "refused unsent",
      "calls failed"
    ],
    result.capacity.flatMap((row) =>
      row.phases.map((phase) => [
        `${row.shape.name}, ${row.line}: ${row.label}`,
        integer(phase.capacity),
        integer(phase.goodput),
        ratio(phase.goodputOfCapacity),
        fixed(phase.p50Millis, 1),
        fixed(phase.p99Millis, 1),
        ratio(phase.p99OfBase),
        ratio(phase.p99SettledOfBase),
        integer(phase.requests),
        integer(phase.overloaded),
        integer(phase.refused),
        integer(phase.failed)
      ])
    )
  )

/** Per capacity row, issue #43's figures against no limit's on the same line and shape. */
const limitsVersusNoneTable = (result: LimitsResult): string =>
  table(
    [
      "configuration",
      "goodput before the drop × no limit's",
      `503s in ${fixed(result.capacityRoute.earlyMillis / 1000, 0)} s after it × no limit's`,
      "settled goodput × capacity",
      `settled p99 × ${result.capacityRoute.baseMillis} ms`
    ],
    result.capacity.map((row) => [
      `${row.shape.name}, ${row.line}: ${row.label}`,
      ratio(row.versusNone.goodput),
      ratio(row.versusNone.overloadedEarly),
      ratio(row.versusNone.settledOfCapacity),
      ratio(row.versusNone.p99SettledOfBase)
    ])
  )

const limitsRateLimitTable = (result: LimitsResult): string =>
  table(
    ["configuration", "policy", "requests sent", "429s received", "calls failed", "seconds"],
    result.rateLimit.map((row) => [
      `${row.line}: ${row.label}`,
      `\`${row.option}\``,
      integer(row.requests),
      integer(row.limited),
      integer(row.failed),
      fixed(row.seconds, 1)
    ])
  )

const limitsSection = (result: LimitsResult): ReadonlyArray<string> => {
  const { baseMillis, earlyMillis, shapes } = result.capacityRoute
  const { config } = result
  const options = result.capacity
    .filter((row) => row.line === result.lines[0] && row.shape.name === shapes[0].name)
    .map((row) => `${row.label} \`${row.option}\``)
    .join(", ")
  const shapeList = shapes
    .map((shape) => `${shape.name} (\`shedAt=${shape.shedAt}\`, ${callersFor(shape, config)} callers)`)
    .join(", ")
  return [
    "",
    `## 10. Limits on outgoing load (${result.lines.join(" and ")}, ${config.rounds} round(s), ` +
      `${config.callers} closed-loop callers)`,
    "",
    `The chaos server's \`/api/chaos/capacity?base=${baseMillis}&shedAt=S\`: N requests at once in ` +
      `${baseMillis} ms, base×c/N ms beyond N, a 503 beyond S×N (S = 1: at once beyond capacity, no latency to ` +
      `learn from). Shapes: ${shapeList}; callers each starting its next call when its last ends, for ` +
      `${fixed(config.phaseMillis / 1000, 1)} s at the first N, then \`POST /__capacity?limit=\` the second and as ` +
      `long at it. Rows: ${options}; each limit with the ` +
      "default queue (0): a call beyond the limit fails at once, unsent (refused unsent: `ConnectionError` " +
      `"ConcurrencyLimited"), and its caller pauses ${baseMillis} ms before its next call. Each row a fresh client ` +
      "(its defaults, retries and budget on) over a fresh undici pool and memory store, in a client process per line " +
      "(Effect 4 under Node 22). Goodput: successful calls per second ended in the phase; × capacity: over N / base, " +
      `what the route serves at capacity; p99 × ${baseMillis} ms: over the server's own latency at capacity; ` +
      "p99 settled ×: the same over the calls that ended in the phase's second half, once a limit has settled. " +
      "Requests and 503s are the server's counts; latencies (successful calls), refusals and other failures " +
      "(calls failed) the client's. Medians over rounds.",
    "",
    limitsCapacityTable(result),
    "",
    "Against no limit on the same line and shape (issue #43): goodput in the phase before the drop over no " +
      `limit's; the server's 503s in the first ${fixed(earlyMillis / 1000, 0)} s after the drop (the whole phase ` +
      "when shorter) over no limit's; goodput in the second half after the drop over N / base; p99 there over " +
      "the server's latency. Medians over rounds.",
    "",
    limitsVersusNoneTable(result),
    "",
    `The rate-limited \`/api/chaos/rate-limit/:key?limit=${result.rateLimitRoute.limit}&window=` +
      `${result.rateLimitRoute.windowSeconds}&headers=both\` (429 with \`Retry-After\` beyond the limit): ` +
      `${config.rateLimitCalls} calls per row and line, ${config.rateLimitConcurrency} at once, on a fresh key and client.`,
    "",
    limitsRateLimitTable(result)
  ]
}

export const renderMarkdown = (results: BenchResults): string => {
  const { machine } = results
  const sections: Array<string> = [
    `# pnpm bench (${results.mode})`,
    "",
    `\`${results.command}\` on ${results.date}: ${machine.cpuModel}, ${machine.cores} cores, Node ${machine.node} ` +
      `(${machine.platform}/${machine.arch})` +
      (machine.effect4Node === null ? "" : `, the Effect 4 clients on Node ${machine.effect4Node}`) +
      `, load average ${machine.loadAverageAtStart.join(" / ")} at the start; ` +
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
      "`× Effect`: throughput relative to the bare Effect `HttpClient` of the same line over the same undici " +
        "transport (Effect 3's for every row but the Effect 4 ones, which are relative to the bare Effect 4 client, " +
        "both on the same Node); `× undici`: relative to raw `undici.request`, on the system's Node.",
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
      `Per retry: the CPU time and JS heap bytes of a call retried once, minus those of a plain call in the same ` +
        `round (the second exchange included), each round interleaving ${results.config.retryCost.batchesPerRound} ` +
        "batches of each kind and measuring each batch alone; the median over rounds, and the spread of the rounds " +
        "(`p25`, `p75`); `× retryTransient`: the median per retry over the same line's `retryTransient`'s " +
        "(Effect 4's for the Effect 4 rows). got and undici's `RetryAgent` are told to retry " +
        `at once (they would wait 1 s and 500 ms on \`Retry-After: 0\`). ${unrefusingBudgetNote}`,
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
        "after its last round (pooled idle sockets do not). Heap Δ: heap used after a forced GC minus before. " +
        unrefusingBudgetNote,
      "",
      memoryTable(results.memory)
    )
  }
  if (results.outage !== null) {
    const outage = results.outage
    sections.push(
      "",
      `## 4. Outage amplification (batches of ${integer(outage.callsPerBatch)} calls, concurrency ` +
        `${outage.concurrency}, every call failing)`,
      "",
      "Requests per call against a total outage: every answer a 503 with `Retry-After: 0` (counted by the " +
        "server), then every connection refused (attempts counted by each client under its retries). Each " +
        "client runs in a fresh process; in each phase a second batch follows the first at once, within the " +
        "retry budget's 10 s ttl, so its figure is the budget's once its floor (10 retries per second of ttl, " +
        "lent up front) is used up. Every client allows 3 attempts per call; got is told to retry at once. " +
        "The breaker is `circuitBreaker: CircuitBreaker.perOrigin()` (Polly's defaults: 10% failures of at least 100 attempts in 30 s, " +
        "then 5 s open), with the default budget, on either line. Effect 4's `withCircuitBreaker` has no " +
        "defaults: it runs after `retryTransient` (as Effect's docs advise) with `rate({ threshold: 0.1, size: " +
        "100 })` (10% failures of the last 100 calls, at least 100 recorded) and 5 s open, so it counts calls " +
        'where this library\'s breaker counts attempts. "Applied per call": the defaults, with `withResilience` ' +
        "applied inside the effect of each call (the package README's pattern), so each call builds its own " +
        "client. The Effect 4 clients run under Node 22.",
      "",
      outageTable(outage)
    )
  }
  if (results.sparse !== null) {
    const sparse = results.sparse
    sections.push(
      "",
      `## 5. Sparse failures still retry (${integer(sparse.calls)} calls, concurrency ${sparse.concurrency}, ` +
        `${percent(sparse.failingShare)}% failing once)`,
      "",
      "A scattered share of the calls gets a 503 (`Retry-After: 0`) at its first attempt and succeeds at " +
        "the next; the same calls with and without the default retry budget, each on a fresh client.",
      "",
      sparseTable(sparse)
    )
  }
  if (results.breaker !== null) {
    const breaker = results.breaker
    sections.push(
      "",
      `## 6. Circuit breaker: a ${fixed(breaker.outageMillis / 1000, 0)} s outage, then recovery ` +
        `(${breaker.ratePerSecond} calls/s per client)`,
      "",
      `Each client starts ${breaker.ratePerSecond} calls per second whatever happens to them (an open loop): ` +
        `${fixed(breaker.warmupMillis / 1000, 0)} s healthy, ${fixed(breaker.outageMillis / 1000, 0)} s of 503 ` +
        `without \`Retry-After\`, ${fixed(breaker.afterMillis / 1000, 1)} s healthy again; all clients at once, ` +
        "each in a fresh process. The server counts the requests during the outage (which lasted " +
        `${fixed(breaker.measuredOutageMillis / 1000, 2)} s by its clock) and the time from its end to each ` +
        "client's first 2xx; `× calls / s`: requests per second during the outage over calls started per second. " +
        "Calls failed: over the whole run. The breaker is `circuitBreaker: CircuitBreaker.perOrigin()` (5 s break), with the default budget.",
      "",
      breakerTable(breaker)
    )
  }
  if (results.contention !== null) {
    const contention = results.contention
    sections.push(
      "",
      `## 7. Contention (simulated time, ${contention.runsPerCell} seeded runs per cell)`,
      "",
      `N clients each make one optimistic-concurrency write to one record; network delay per message ` +
        `N(${contention.network.meanMillis} ms, ${contention.network.deviationMillis} ms); the waits are ` +
        `the library's \`RetryPolicy\` schedule, backoff base ${contention.backoffBaseMillis} ms, cap ` +
        `${contention.backoffCapMillis / 1000} s.`,
      "",
      contentionTables(contention)
    )
  }
  if (results.sharedStore !== null) {
    const store = results.sharedStore
    sections.push(
      "",
      `## 8. Shared store: the happy path with \`layerRedis\` (${store.rounds} rounds of ` +
        `${integer(store.callsPerRound)} calls per store and concurrency)`,
      "",
      "This library's defaults, built once, over the same undici transport and server as section 1, every call " +
        "a 200: with the default memory store, and with its calls run under `layerRedis` on a " +
        `local redis-server ${store.redisVersion} (loopback, nothing on disk, default \`syncInterval\` of ` +
        `${integer(store.syncIntervalMillis)} ms; on Effect 4 over \`NodeRedis.layer\`). One client process per ` +
        "line holds both clients and a control, a second client with the memory store; the three take turns " +
        "in interleaved rounds after a warm-up. p50: the median latency of a round's calls, the figure the goal " +
        "is judged on; CPU: the client process's, over the calls; µs / call: a round's wall time over its calls " +
        "(throughput's inverse). Each figure is a median over rounds, each ratio the median of the same-round " +
        "ratios, and the range the smallest and largest of those for the p50. The control's ratios are what the " +
        "memory store measures against itself in the same run: the noise the Redis store's ratios lie within.",
      "",
      sharedStoreTable(store),
      "",
      sharedStoreVerdict(store),
      "",
      "What the client process sent to Redis during the measured rounds, as Redis counts it (`CONFIG " +
        "RESETSTAT` before the first round, `INFO commandstats` one sync interval after the last, the bench's " +
        "own commands left out), next to the sync intervals in that time; the commands the store's Lua scripts " +
        "ran inside Redis, which it counts as well, in the last column. A call that goes well makes no round " +
        "trip of its own: its deposit is counted locally and flushed with the others, one `EVALSHA` per origin " +
        "at most once a `syncInterval` while there are deposits (a `PING` is the probe of a store that found " +
        "Redis too slow, a `SCAN` its reading of the cool-downs when Redis answers again).",
      "",
      sharedStoreCommandsTable(store),
      "",
      `Under a \`rateLimit\` that binds (issue #43): ${integer(store.rateLimit.limit)} calls a second, which the ` +
        "calls in flight exceed, so each waits for its turn; the same store, memory or `layerRedis`, with no " +
        "control, in interleaved rounds. On Redis a call takes a send time leased from the fleet's bucket, a " +
        "batch of them in one `EVALSHA`, and makes no round trip of its own most of the time. Goal: the p50 " +
        `within ${fixed((store.rateLimitedGoalRatio - 1) * 100, 0)}% of the memory store's; the commands are ` +
        "what Redis received in those rounds (`CONFIG RESETSTAT`, then `INFO commandstats` one sync interval " +
        "after the last), retry-budget flushes included, per 1,000 calls through the Redis store.",
      "",
      rateLimitedTable(store)
    )
  }
  if (results.hedging !== null) {
    const hedging = results.hedging
    const { fastMillis, p95Millis, slowMillis, slowShare } = hedging.distribution
    sections.push(
      "",
      `## 9. Hedged requests (${hedging.rounds} rounds of ${integer(hedging.callsPerRound)} calls per ` +
        `configuration and line, ${integer(hedging.ratePerSecond)} calls/s, ${hedging.lines.join(" and ")})`,
      "",
      `The chaos server's \`/api/chaos/latency/:key\`: ${fastMillis} ms typical, ${slowMillis} ms for ` +
        `${percent(slowShare)}% of the requests, drawn per request (hedges included) from a seeded mulberry32 ` +
        `(seeds ${hedging.seeds.map((seed) => seed.seed).join(", ")}: ` +
        `${hedging.seeds.map((seed) => integer(seed.slowDraws)).join(", ")} slow among the first ` +
        `${integer(hedging.callsPerRound)} requests). Its 95th percentile, as the server waits, is ${p95Millis} ms: ` +
        `exactly ${percent(1 - slowShare)}% of the requests wait ${fastMillis} ms, so it sits at the boundary. ` +
        `This library built once per configuration on each line (${hedging.lines.join(", ")}; one row per line, ` +
        "Effect 4 under the Node 22 of its other rows), each in a fresh client process, " +
        `\`retryBudget: "none"\` but in the last configuration, 2 copies at most (the default); calls started at a fixed rate (an open loop, at most ` +
        `${hedging.concurrency} in flight). Each process first warms up against a second chaos server (another ` +
        "origin: a cold process's first calls would be the learnt 95th percentile for 30 s); in each round, " +
        `each configuration's measured calls follow ${integer(hedging.warmupCalls)} warm-up calls on a key of ` +
        "their own (the learnt delay's window then holds its 20 samples and more; the rounds are over 30 s apart, " +
        "so each starts from an empty window), every configuration of a round, on either line, on the same draws. Extra " +
        "requests: the requests the server received over the " +
        "calls, minus one; losers aborted: the requests whose client left before the answer (the server's " +
        "`abandoned`); latencies per call, in the client; hedge delay: the delay of the hedges the library " +
        "reported sending (`Hedge` decisions), the median of the rounds' medians and the smallest and largest. " +
        "Each figure is a median over rounds, each ratio a median of same-round ratios to no hedging on the same line.",
      "",
      hedgingTable(hedging),
      "",
      hedgingVerdict(hedging),
      "",
      "The learnt delay, round by round: the hedges of the warm-up (from the fallback, 2 s, until the window " +
        "holds 20 samples, then learnt) and of the measured calls, with the delay each went after (median, " +
        "smallest–largest); load average: the machine's (1 minute) when the measured calls started; slow draws: " +
        "among the round's first requests, what its calls would meet without hedging.",
      "",
      hedgingRoundsTable(hedging)
    )
  }
  if (results.limits !== null) sections.push(...limitsSection(results.limits))
  if (results.charts.throughput !== null || results.charts.contention !== null) {
    sections.push("", "## Charts", "")
    for (const chart of [results.charts.throughput, results.charts.contention]) {
      if (chart !== null) sections.push(`- [${chart}](${chart})`)
    }
  }
  return `${sections.join("\n")}\n`
}
