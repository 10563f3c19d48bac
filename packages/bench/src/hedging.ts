/**
 * 9. Hedged requests (issue #20): what `hedging` does to the tail of a latency distribution and
 * what it costs in requests. The chaos server's `/api/chaos/latency/:key` answers its n-th
 * request for a key after 5 ms, or after 500 ms when the n-th number of mulberry32(seed) is below
 * 0.05: 5% slow, seeded, so a run repeats. Every request to the key draws, hedges included: a
 * hedge of a slow request draws its own number, as an independent copy would.
 *
 * One fresh client process per line and configuration (no hedging, the baseline; a fixed 10 ms;
 * a fixed delay at the distribution's 95th percentile; the delay learnt at the 95th percentile;
 * that with the default retry budget), each this library on the Effect 3 line, or on the Effect 4
 * line under Node 22 (`packages/bench-effect4`), with `retryBudget: "none"` but the last. Each
 * process first warms up against a second chaos server (another origin: the
 * latency windows are per origin, and a cold process's first calls, hundreds of milliseconds,
 * would otherwise be the learnt 95th percentile for the next 30 s). Then in each round every
 * configuration, in turn (each round in another order), runs a warm-up on a key of its own (so
 * that the learnt delay's window holds its 20 samples and more; the rounds are over 30 s apart,
 * so each starts from an empty window), then the measured calls on the round's key, from the
 * server's reset: every configuration of a round, on either line, sees the same sequence of
 * draws, and each round another seed. Each line's rows are compared with its own baseline. The calls are started at a fixed rate (an open loop), so that every
 * configuration offers the server the same load whatever hedging does to latency.
 *
 * The requests are the server's count (`/__stats`), the losing copies its `abandoned` count;
 * the latencies are the client's, per call; the only figure read from the library is the delay of
 * each hedge it sent (its `Hedge` decisions), which is how the learnt delay is known.
 */
import * as Os from "node:os"
import { latencyDraw } from "../../chaos-server/src/internal/latency.js"
import { hedgingDelays } from "./benchClient.js"
import { libraryById } from "./clients.js"
import type { HedgingConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import {
  type ChaosServerProcess,
  type HedgingClientProcess,
  jobTimeoutMillis,
  startChaosServerProcess,
  startHedgingClientProcess
} from "./processes.js"
import type { HedgingMode, HedgingRunResult, LibraryId } from "./protocol.js"
import { median, medianRatio, quantileSorted } from "./stats.js"

/** This library on each line: the clients the section compares, when the run includes them. */
export const hedgingLibraries: ReadonlyArray<LibraryId> = ["effect-http-resilience", "effect4-http-resilience"]

/** "Effect 3" or "Effect 4": the line of one of {@link hedgingLibraries}, as the tables say it. */
export const lineOf = (library: LibraryId): string => (libraryById(library).effect4 ? "Effect 4" : "Effect 3")

/** The latency distribution of issue #20: 5 ms typical, 500 ms slow, 5% slow. */
export const latencyDistribution = { fastMillis: 5, slowMillis: 500, slowShare: 0.05 } as const

/** The goal of issue #20: hedging at the 95th percentile cuts p99 by 80% or more for at most 6% extra requests. */
const hedgingGoal = { minP99Cut: 0.8, maxExtraRequests: 0.06 } as const

export interface HedgingConfiguration {
  readonly mode: HedgingMode
  readonly label: string
  /** The `hedging` option as written, or "off". */
  readonly option: string
  /** Judged against {@link hedgingGoal}: a configuration that hedges at the 95th percentile. */
  readonly atP95: boolean
}

/** The configurations compared, the baseline first. */
export const hedgingConfigurations: ReadonlyArray<HedgingConfiguration> = [
  { mode: "off", label: "no hedging", option: "off", atP95: false },
  {
    mode: "fixed-10ms",
    label: `fixed ${hedgingDelays.anchorMillis} ms`,
    option: `{ delay: "${hedgingDelays.anchorMillis} millis" }`,
    atP95: false
  },
  {
    mode: "fixed-p95",
    label: `fixed ${hedgingDelays.p95Millis} ms (the distribution's p95)`,
    option: `{ delay: "${hedgingDelays.p95Millis} millis" }`,
    atP95: true
  },
  { mode: "percentile", label: "learnt p95", option: "{ delay: { percentile: 95 } }", atP95: true },
  {
    mode: "percentile-budget",
    label: "learnt p95, default budget",
    option: "{ delay: { percentile: 95 } }",
    atP95: true
  }
]

/**
 * The `p`th percentile (nearest rank: the smallest latency at least `p`% of requests wait no
 * longer than) of a two-point distribution, as the server waits. With exactly 5% slow, 95% of the
 * requests wait `fastMillis` or less: the 95th percentile is the fast latency, at the boundary;
 * any share of slow requests above 5% moves it to the slow one.
 */
export const distributionPercentile = (
  p: number,
  distribution: { readonly fastMillis: number; readonly slowMillis: number; readonly slowShare: number }
): number => (1 - distribution.slowShare >= p / 100 - 1e-12 ? distribution.fastMillis : distribution.slowMillis)

/** How many of requests 1..n of a key are slow with `seed`: what the calls of a round without hedging meet. */
export const slowDraws = (seed: number, n: number, slowShare: number = latencyDistribution.slowShare): number => {
  let slow = 0
  for (let index = 1; index <= n; index++) if (latencyDraw(seed, index) < slowShare) slow++
  return slow
}

/** The measured round's seed; its warm-up draws from another. */
const roundSeed = (round: number): number => round + 1
const warmupSeed = (round: number): number => 1_001 + round

/** A summary of hedge delays (in milliseconds): median, smallest, largest; null when no hedge went. */
export interface DelaySummary {
  readonly median: number
  readonly min: number
  readonly max: number
}

export const summarizeDelays = (delays: ReadonlyArray<number>): DelaySummary | null =>
  delays.length === 0 ? null : { median: median(delays), min: Math.min(...delays), max: Math.max(...delays) }

/** One configuration's measured calls in one round. */
export interface HedgingRound {
  readonly seed: number
  readonly calls: number
  /** Requests the server received for them (every copy). */
  readonly requests: number
  /** Of those, requests whose client left before the answer: losing copies, aborted. */
  readonly abandoned: number
  /** Hedges the library reported sending (its `Hedge` decisions): `requests - calls` when nothing was retried. */
  readonly hedges: number
  readonly hedgeDelayMillis: DelaySummary | null
  /** Latency percentiles of the round's calls (linear interpolation), in milliseconds. */
  readonly p50Millis: number
  readonly p95Millis: number
  readonly p99Millis: number
  readonly p999Millis: number
  readonly maxMillis: number
  /** The machine's 1-minute load average when the measured calls started: it is shared, and its noise is the fast calls' tail. */
  readonly loadAverage: number
  /** The client process's CPU time per call (user + system, the hedges' included), in microseconds. */
  readonly cpuMicrosPerCall: number
  /** The warm-up before it: calls, requests and the hedges' delays. */
  readonly warmup: {
    readonly calls: number
    readonly requests: number
    readonly hedges: number
    readonly hedgeDelayMillis: DelaySummary | null
  }
}

export interface HedgingRow {
  /** This library on one line, and that line as the tables say it ("Effect 3", "Effect 4"). */
  readonly library: LibraryId
  readonly line: string
  readonly mode: HedgingMode
  readonly label: string
  readonly option: string
  readonly atP95: boolean
  readonly rounds: ReadonlyArray<HedgingRound>
  /** Medians over rounds. */
  readonly p50Millis: number
  readonly p95Millis: number
  readonly p99Millis: number
  readonly p999Millis: number
  /** Median over rounds of requests / calls - 1: the extra requests, as a share of calls. */
  readonly extraRequests: number
  /** Median over rounds of abandoned requests / calls. */
  readonly abandoned: number
  /** Median over rounds of the same round's p99 over its line's baseline's. */
  readonly p99Ratio: number
  readonly p999Ratio: number
  /** The median over rounds of each round's median hedge delay; null when no hedge went. */
  readonly hedgeDelayMillis: number | null
  /** The smallest and largest hedge delay of all rounds. */
  readonly hedgeDelayRange: readonly [number, number] | null
  /** p99 cut by at least 80% and at most 6% extra requests (only judged where `atP95`). */
  readonly meetsGoal: boolean
}

export interface HedgingResult {
  /** The lines measured, in the rows' order within each configuration. */
  readonly lines: ReadonlyArray<string>
  readonly rounds: number
  readonly callsPerRound: number
  readonly warmupCalls: number
  readonly ratePerSecond: number
  readonly concurrency: number
  readonly distribution: typeof latencyDistribution & { readonly p95Millis: number }
  /** Per round: its seed and the slow draws among its first `callsPerRound` requests. */
  readonly seeds: ReadonlyArray<{ readonly seed: number; readonly slowDraws: number }>
  readonly goal: typeof hedgingGoal
  /** Per configuration, one row per line. */
  readonly rows: ReadonlyArray<HedgingRow>
}

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

// Lets the server see the sockets of aborted copies close before it is asked what it counted.
const settleMillis = 300

const latencyUrl = (origin: string, key: string, seed: number): string => {
  const { fastMillis, slowMillis, slowShare } = latencyDistribution
  return `${origin}/api/chaos/latency/${key}?fast=${fastMillis}&slow=${slowMillis}&slowShare=${slowShare}&seed=${seed}`
}

/** The figures of one measured batch. */
const roundFigures = (
  result: HedgingRunResult,
  server: { readonly requests: number; readonly abandoned: number },
  seed: number,
  warmup: HedgingRound["warmup"],
  loadAverage: number
): HedgingRound => {
  const sorted = Float64Array.from(result.latenciesMs).sort()
  return {
    seed,
    calls: result.latenciesMs.length,
    requests: server.requests,
    abandoned: server.abandoned,
    hedges: result.hedgeDelaysMs.length,
    hedgeDelayMillis: summarizeDelays(result.hedgeDelaysMs),
    p50Millis: quantileSorted(sorted, 0.5),
    p95Millis: quantileSorted(sorted, 0.95),
    p99Millis: quantileSorted(sorted, 0.99),
    p999Millis: quantileSorted(sorted, 0.999),
    maxMillis: sorted[sorted.length - 1] ?? Number.NaN,
    loadAverage,
    cpuMicrosPerCall: result.cpuMicros / result.latenciesMs.length,
    warmup
  }
}

/** The requests beyond one per call, as a share of the calls. */
export const extraShare = (round: { readonly calls: number; readonly requests: number }): number =>
  (round.requests - round.calls) / round.calls

// Figures are judged as printed, not below a rounding error of the goal.
const tolerance = 1e-9

/** A configuration's row on the line of `library` from its rounds and that line's baseline's, round by round. */
export const hedgingRow = (
  library: LibraryId,
  configuration: HedgingConfiguration,
  rounds: ReadonlyArray<HedgingRound>,
  baseline: ReadonlyArray<HedgingRound>
): HedgingRow => {
  const of = (list: ReadonlyArray<HedgingRound>, figure: (round: HedgingRound) => number) => list.map(figure)
  const extraRequests = median(of(rounds, extraShare))
  const p99Ratio = medianRatio(
    of(rounds, (round) => round.p99Millis),
    of(baseline, (round) => round.p99Millis)
  )
  const delays = rounds.flatMap((round) => (round.hedgeDelayMillis === null ? [] : [round.hedgeDelayMillis]))
  return {
    library,
    line: lineOf(library),
    mode: configuration.mode,
    label: configuration.label,
    option: configuration.option,
    atP95: configuration.atP95,
    rounds,
    p50Millis: median(of(rounds, (round) => round.p50Millis)),
    p95Millis: median(of(rounds, (round) => round.p95Millis)),
    p99Millis: median(of(rounds, (round) => round.p99Millis)),
    p999Millis: median(of(rounds, (round) => round.p999Millis)),
    extraRequests,
    abandoned: median(of(rounds, (round) => round.abandoned / round.calls)),
    p99Ratio,
    p999Ratio: medianRatio(
      of(rounds, (round) => round.p999Millis),
      of(baseline, (round) => round.p999Millis)
    ),
    hedgeDelayMillis: delays.length === 0 ? null : median(delays.map((delay) => delay.median)),
    hedgeDelayRange:
      delays.length === 0
        ? null
        : [Math.min(...delays.map((delay) => delay.min)), Math.max(...delays.map((delay) => delay.max))],
    meetsGoal:
      p99Ratio <= 1 - hedgingGoal.minP99Cut + tolerance && extraRequests <= hedgingGoal.maxExtraRequests + tolerance
  }
}

/** One client process of the section: this library on one line, in one configuration. */
interface HedgingClientSpec {
  readonly library: LibraryId
  readonly mode: HedgingMode
}

const startClients = async (
  specs: ReadonlyArray<{ readonly library: LibraryId; readonly configuration: HedgingConfiguration }>
): Promise<Array<HedgingClientProcess>> => {
  const started: Array<HedgingClientProcess> = []
  try {
    // Two at a time: starting a process is CPU-bound, and this machine has few cores.
    for (let index = 0; index < specs.length; index += 2) {
      const batch = specs.slice(index, index + 2)
      started.push(
        ...(await Promise.all(
          batch.map(({ configuration, library }) => startHedgingClientProcess(library, configuration.mode))
        ))
      )
    }
    return started
  } catch (error) {
    await Promise.all(started.map((client) => client.stop()))
    throw error
  }
}

const nameOf = (client: HedgingClientSpec): string => `${lineOf(client.library)} ${client.mode}`
// A latency key per line, configuration and use: no two batches of a round share one.
const keyOf = (client: HedgingClientSpec, use: string): string =>
  `${libraryById(client.library).effect4 ? "e4" : "e3"}-${client.mode}-${use}`

/**
 * Runs the section for each line of this library among `libraries` (null when neither is there):
 * its own chaos server process and one fresh client process per line and configuration.
 */
export const runHedging = async (
  config: HedgingConfig,
  log: (line: string) => void,
  libraries: ReadonlyArray<LibraryId>
): Promise<HedgingResult | null> => {
  const { callsPerRound, concurrency, ratePerSecond, rounds, warmupCalls } = config
  const lines = hedgingLibraries.filter((library) => libraries.includes(library))
  if (lines.length === 0) return null
  const specs = hedgingConfigurations.flatMap((configuration) => lines.map((library) => ({ library, configuration })))
  const server: ChaosServerProcess = await startChaosServerProcess()
  try {
    log(`hedging: chaos server on ${server.origin}; starting ${specs.length} client processes`)
    const clients = await startClients(specs)
    try {
      const samples = new Map<HedgingClientProcess, Array<HedgingRound>>(clients.map((client) => [client, []]))
      const batch = (client: HedgingClientProcess, url: string, count: number) =>
        client.run({ url, count, concurrency, ratePerSecond }, jobTimeoutMillis(count))
      // A fresh process's first calls are slow (compiling, connecting): on another origin, whose window
      // the measured calls never read, as many as two warm-ups, every configuration's code run hot.
      log(`hedging: warming up each client process on ${server.warmupOrigin}`)
      for (const client of clients) {
        const warm = await batch(client, latencyUrl(server.warmupOrigin, keyOf(client, "process"), 1), 2 * warmupCalls)
        if (warm.ok !== 2 * warmupCalls)
          throw new Error(`hedging (${nameOf(client)}): ${warm.failed} warm-up calls failed`)
      }
      for (let round = 0; round < rounds; round++) {
        const seed = roundSeed(round)
        log(`hedging: round ${round + 1}/${rounds} (seed ${seed})`)
        for (const client of rotate(clients, round)) {
          await server.reset()
          const warm = await batch(
            client,
            latencyUrl(server.origin, keyOf(client, `warmup-${round}`), warmupSeed(round)),
            warmupCalls
          )
          await sleep(settleMillis)
          const warmStats = await server.stats()
          await server.reset()
          const loadAverage = Os.loadavg()[0] ?? Number.NaN
          const measured = await batch(
            client,
            latencyUrl(server.origin, keyOf(client, `round-${round}`), seed),
            callsPerRound
          )
          await sleep(settleMillis)
          const stats = await server.stats()
          if (measured.ok !== callsPerRound || warm.ok !== warmupCalls)
            throw new Error(`hedging (${nameOf(client)}): ${measured.failed + warm.failed} calls failed`)
          const figures = roundFigures(
            measured,
            stats,
            seed,
            {
              calls: warmupCalls,
              requests: warmStats.requests,
              hedges: warm.hedgeDelaysMs.length,
              hedgeDelayMillis: summarizeDelays(warm.hedgeDelaysMs)
            },
            loadAverage
          )
          samples.get(client)?.push(figures)
          log(
            `hedging: ${nameOf(client)}: p99 ${figures.p99Millis.toFixed(1)} ms, ${figures.requests - figures.calls} extra ` +
              `requests, hedge delay ${figures.hedgeDelayMillis?.median.toFixed(2) ?? "-"} ms`
          )
        }
      }
      const roundsOf = (library: LibraryId, mode: HedgingMode): ReadonlyArray<HedgingRound> => {
        const client = clients.find((candidate) => candidate.library === library && candidate.mode === mode)
        return (client === undefined ? undefined : samples.get(client)) ?? []
      }
      return {
        lines: lines.map(lineOf),
        rounds,
        callsPerRound,
        warmupCalls,
        ratePerSecond,
        concurrency,
        distribution: { ...latencyDistribution, p95Millis: distributionPercentile(95, latencyDistribution) },
        seeds: Array.from({ length: rounds }, (_, round) => ({
          seed: roundSeed(round),
          slowDraws: slowDraws(roundSeed(round), callsPerRound)
        })),
        goal: hedgingGoal,
        rows: specs.map(({ configuration, library }) =>
          hedgingRow(library, configuration, roundsOf(library, configuration.mode), roundsOf(library, "off"))
        )
      }
    } finally {
      await Promise.all(clients.map((client) => client.stop()))
    }
  } finally {
    await server.stop()
  }
}
