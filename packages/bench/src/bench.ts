/**
 * One run of the bench: the server in its own process, each section in turn, then the results
 * written as JSON, markdown and SVG.
 */
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { type BreakerResult, runBreaker } from "./breaker.js"
import type { BenchConfig } from "./config.js"
import { backoffModes, runContention } from "./contention.js"
import { type HappyPathResult, runHappyPath } from "./happyPath.js"
import { type HedgingResult, runHedging } from "./hedging.js"
import { type LimitsResult, runLimits } from "./limits.js"
import { type MemoryResult, runMemory } from "./memory.js"
import { type OutageResult, runOutage } from "./outage.js"
import { libraryById } from "./clients.js"
import { effect4Node, startServerProcess, startWorkers, stopWorkers } from "./processes.js"
import {
  type BenchResults,
  type ContentionResult,
  clientDescriptions,
  contentionResult,
  describeMachine,
  renderMarkdown
} from "./report.js"
import { type RetryCostResult, runRetryCost } from "./retryCost.js"
import { runSharedStore, type SharedStoreResult } from "./sharedStore.js"
import { runSparse, type SparseResult } from "./sparse.js"
import { contentionChart, throughputChart } from "./svg.js"

export const sectionNames = [
  "happy",
  "retry",
  "memory",
  "outage",
  "sparse",
  "breaker",
  "contention",
  "store",
  "hedging",
  "limits"
] as const
export type SectionName = (typeof sectionNames)[number]

export interface BenchOptions {
  readonly config: BenchConfig
  readonly sections: ReadonlyArray<SectionName>
  /** Where latest.json, latest.md and the SVG charts are written. */
  readonly outDir: string
  /** The command line, as reported. */
  readonly command: string
  readonly log: (line: string) => void
}

export interface BenchOutput {
  readonly results: BenchResults
  readonly markdown: string
  readonly files: ReadonlyArray<string>
}

export const runBench = async (options: BenchOptions): Promise<BenchOutput> => {
  const { config, log, sections } = options
  const started = performance.now()
  const machine = describeMachine()
  const date = new Date().toISOString()
  let happyPath: HappyPathResult | null = null
  let retryCost: RetryCostResult | null = null
  let memory: MemoryResult | null = null
  let outage: OutageResult | null = null
  let sparse: SparseResult | null = null
  let breaker: BreakerResult | null = null
  let contention: ContentionResult | null = null
  let sharedStore: SharedStoreResult | null = null
  let hedging: HedgingResult | null = null
  let limits: LimitsResult | null = null

  // Contention is simulated; hedging and limits start a chaos server of their own.
  const needsServer = sections.some(
    (section) => section !== "contention" && section !== "hedging" && section !== "limits"
  )
  if (needsServer) {
    const server = await startServerProcess()
    log(`server process listening on ${server.origin}`)
    try {
      const retrying = config.libraries.filter((library) => libraryById(library).retries)
      // Sections 1 and 2 share one process per library; section 3 needs fresh ones, with --expose-gc.
      if (sections.includes("happy") || sections.includes("retry")) {
        const libraries = sections.includes("happy") ? config.libraries : retrying
        log(`starting ${libraries.length} client processes`)
        const workers = await startWorkers(libraries, server.origin, { exposeGc: false })
        try {
          if (sections.includes("happy")) happyPath = await runHappyPath(workers, config.happyPath, log)
          if (sections.includes("retry")) retryCost = await runRetryCost(server, workers, config.retryCost, log)
        } finally {
          await stopWorkers(workers)
        }
      }
      if (sections.includes("memory")) {
        log(`starting ${retrying.length} fresh client processes with --expose-gc`)
        const workers = await startWorkers(retrying, server.origin, { exposeGc: true })
        try {
          memory = await runMemory(server, workers, config.memory, log)
        } finally {
          await stopWorkers(workers)
        }
      }
      // Each starts fresh client processes of its own, so that no budget or breaker state carries over.
      if (sections.includes("outage")) outage = await runOutage(server, config.outage, log, config.libraries)
      if (sections.includes("sparse")) sparse = await runSparse(server, config.sparse, log)
      if (sections.includes("breaker")) breaker = await runBreaker(server, config.breaker, log)
      // Per line, a redis-server and a fresh client process with the memory store, its control and the Redis store.
      if (sections.includes("store"))
        sharedStore = await runSharedStore(server, config.sharedStore, log, config.libraries)
    } finally {
      await server.stop()
    }
  }
  // One fresh client process per configuration, against a chaos server process of its own.
  if (sections.includes("hedging")) hedging = await runHedging(config.hedging, log, config.libraries)
  // A client process per line of this library, against a chaos server process of its own.
  if (sections.includes("limits")) limits = await runLimits(config.limits, log, config.libraries)
  if (sections.includes("contention")) {
    const { clientCounts, runs } = config.contention
    log(`contention: ${runs} seeded runs per cell, without and with the default retry budget`)
    contention = contentionResult(
      runContention(clientCounts, runs),
      runContention(clientCounts, runs, backoffModes, {}),
      runs
    )
  }

  await Fs.mkdir(options.outDir, { recursive: true })
  const files: Array<string> = []
  const write = async (name: string, content: string) => {
    const path = Path.join(options.outDir, name)
    await Fs.writeFile(path, content)
    files.push(path)
  }
  if (happyPath !== null) await write("throughput.svg", throughputChart(happyPath))
  if (contention !== null) await write("contention.svg", contentionChart(contention.cells))
  const results: BenchResults = {
    schemaVersion: 2,
    mode: config.mode,
    command: options.command,
    date,
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
    machine: { ...machine, effect4Node: effect4Node() },
    config,
    clients: clientDescriptions,
    happyPath,
    retryCost,
    memory,
    outage,
    sparse,
    breaker,
    contention,
    sharedStore,
    hedging,
    limits,
    charts: {
      throughput: happyPath === null ? null : "throughput.svg",
      contention: contention === null ? null : "contention.svg"
    }
  }
  const markdown = renderMarkdown(results)
  await write("latest.json", `${JSON.stringify(results, null, 2)}\n`)
  await write("latest.md", markdown)
  return { results, markdown, files }
}
