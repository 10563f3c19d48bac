/**
 * 10. Limits on outgoing load (issue #34): what a concurrency limit does when the server's
 * capacity drops, and what `rateLimitHeaders` and a client `rateLimit` save against a rate-limited
 * route. Both against the chaos server, in a process of its own.
 *
 * Capacity: `/api/chaos/capacity` serves N requests at once in `base` ms, waits base×c/N ms beyond N
 * and answers 503 beyond shedAt×N. Three shapes (issue #43): slow then shed (shedAt 2) from 64 to 16,
 * and shed at once (shedAt 1: no latency to learn from) from 32 to 8 and from 64 to 16. A closed loop of
 * callers (1.5 per unit of the first capacity; each starts its next call when its last ends) runs one
 * phase at the first capacity, then the parent sends `POST /__capacity?limit=` the second, and a second
 * phase runs at it. Per row, against no limit's on the same line and shape: goodput before the drop,
 * 503s in the 5 s after it (the whole phase when shorter), goodput in its second half over capacity,
 * and p99 there over the server's latency. Rows: no limit, a fixed limit of 32,
 * the adaptive limit (gradient2, AIMD), each with the default queue of 0: a call beyond the limit
 * fails at once, unsent (`ConnectionError` "ConcurrencyLimited"), and its caller pauses `base` ms
 * before its next call (think time after a refusal, so that refused callers do not spin). A limit
 * is there to shed the excess fast at the client: with a queue as long as the callers, a call's
 * latency would include its wait in that queue (Little's law: 96 callers at 800 calls/s wait
 * 120 ms), and no limit could keep p99 near the server's own. Requests and 503s are the server's
 * counts; calls, refusals and latencies (of successful calls) the client's, by the phase in which
 * each call ended.
 *
 * Rate limit: `/api/chaos/rate-limit/:key` allows `limit` requests per window and answers 429
 * with `Retry-After` beyond; calls at a fixed concurrency with the defaults, with
 * `rateLimitHeaders`, and with a client `rateLimit` equal to the server's.
 *
 * Each line of this library (Effect 3; Effect 4 under Node 22) runs in a client process of its
 * own (`limitsClientMain.ts`, the hedging section's pattern), each run on a fresh client over a
 * fresh undici pool and a fresh memory store (limits and buckets live in the store). The
 * capacity drop and the server's counts stay in this process; the clients' times are ms since
 * the epoch, placed against the drop's. The waits measured are the server's tens of
 * milliseconds, not the client's microseconds of CPU.
 */
import * as Schema from "effect/Schema"
import { rateLimitRoute } from "./benchClient.js"
import type { LimitsConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import { hedgingLibraries, lineOf } from "./hedging.js"
import {
  type ChaosServerProcess,
  type LimitsClientProcess,
  startChaosServerProcess,
  startLimitsClientProcess
} from "./processes.js"
import type { LibraryId, LimitsMode, LimitsRunResult } from "./protocol.js"
import { median, quantileSorted } from "./stats.js"

export { rateLimitRoute }

/** This library on each line: the section's clients, when the run includes them. */
export const limitsLibraries: ReadonlyArray<LibraryId> = hedgingLibraries

/** One shape of the capacity route: where it sheds (beyond shedAt × N), its capacity before and after the drop. */
export interface CapacityShape {
  readonly name: string
  readonly shedAt: number
  readonly before: number
  readonly after: number
}

/**
 * The capacity route: 20 ms at capacity; 503s counted in the first 5 s after the drop; three shapes, slow
 * then shed (the route's default) and shed at once beyond capacity (a server with no queue: no latency signal).
 */
export const capacityRoute = {
  baseMillis: 20,
  earlyMillis: 5_000,
  shapes: [
    { name: "slow then shed 64→16", shedAt: 2, before: 64, after: 16 },
    { name: "shed at once 32→8", shedAt: 1, before: 32, after: 8 },
    { name: "shed at once 64→16", shedAt: 1, before: 64, after: 16 }
  ]
} as const satisfies {
  readonly baseMillis: number
  readonly earlyMillis: number
  readonly shapes: ReadonlyArray<CapacityShape>
}

/** A shape's callers: `config.callers` at a capacity of 64, as many per unit of capacity at another. */
export const callersFor = (shape: CapacityShape, config: LimitsConfig): number =>
  Math.max(1, Math.round((config.callers * shape.before) / 64))

interface LimitsConfiguration {
  readonly mode: LimitsMode
  readonly label: string
  /** The policy options as written (`limitsPolicyFor(mode)`). */
  readonly option: string
}

/** The capacity rows, the baseline (no limit) first; each limit with the default queue (0). */
export const capacityConfigurations: ReadonlyArray<LimitsConfiguration> = [
  { mode: "none", label: "no limit", option: "{}" },
  { mode: "fixed-32", label: "fixed 32", option: "{ concurrencyLimit: ConcurrencyLimit.fixed(32) }" },
  {
    mode: "adaptive-gradient2",
    label: "adaptive (gradient2)",
    option: "{ concurrencyLimit: ConcurrencyLimit.adaptive() }"
  },
  {
    mode: "adaptive-aimd",
    label: "adaptive (AIMD)",
    option: '{ concurrencyLimit: ConcurrencyLimit.adaptive({ algorithm: "aimd" }) }'
  }
]

const rateLimitOption = `rateLimit: RateLimit.make({ limit: ${rateLimitRoute.limit}, window: "${rateLimitRoute.windowSeconds} seconds" })`

/** The rate-limit rows. */
export const rateLimitConfigurations: ReadonlyArray<LimitsConfiguration> = [
  { mode: "none", label: "defaults", option: "{}" },
  { mode: "rate-limit-headers", label: "rateLimitHeaders", option: "{ rateLimitHeaders: RateLimit.fromHeaders() }" },
  { mode: "rate-limit", label: "rateLimit = server's", option: `{ ${rateLimitOption} }` },
  {
    mode: "rate-limit-and-headers",
    label: "rateLimit = server's + rateLimitHeaders",
    option: `{ ${rateLimitOption}, rateLimitHeaders: RateLimit.fromHeaders() }`
  }
]

/** One phase of one capacity row in one round. */
interface CapacityPhase {
  readonly capacity: number
  readonly seconds: number
  readonly ok: number
  /** Calls refused unsent by the concurrency limit (`ConnectionError` "ConcurrencyLimited"). */
  readonly refused: number
  /** Calls that failed otherwise (a 503 past the retries, say). */
  readonly failed: number
  /** Requests the server received on the route, and of those the 503s it shed. */
  readonly requests: number
  readonly overloaded: number
  /** Over the successful calls. */
  readonly p50Millis: number
  readonly p99Millis: number
  /** Over the successful calls that ended in the phase's second half: once a limit has settled. */
  readonly p99SettledMillis: number
  /** Successful calls that ended in the phase's second half. */
  readonly okSettled: number
  /** The server's 503s in the phase's first `earlyMillis` (all of them when the phase is shorter). */
  readonly overloadedEarly: number
}

interface CapacityPhaseRow {
  readonly capacity: number
  /** Medians over rounds. */
  readonly goodput: number
  readonly p50Millis: number
  readonly p99Millis: number
  readonly requests: number
  readonly overloaded: number
  readonly refused: number
  readonly failed: number
  /** Goodput over the route's throughput at capacity (capacity / base). */
  readonly goodputOfCapacity: number
  /** p99 over the server's own latency at capacity (base), and the same in the phase's second half. */
  readonly p99OfBase: number
  readonly p99SettledOfBase: number
}

interface LimitsRow {
  /** This library on one line, and that line as the tables say it ("Effect 3", "Effect 4"). */
  readonly library: LibraryId
  readonly line: string
  readonly label: string
  readonly option: string
}

interface CapacityRow extends LimitsRow {
  readonly shape: CapacityShape
  readonly callers: number
  readonly rounds: ReadonlyArray<ReadonlyArray<CapacityPhase>>
  readonly phases: ReadonlyArray<CapacityPhaseRow>
  /** Against no limit's row on the same line and shape (issue #43's figures); medians over rounds. */
  readonly versusNone: CapacityVersusNone
}

interface CapacityVersusNone {
  /** Goodput before the drop over no limit's. */
  readonly goodput: number
  /** 503s in the first `earlyMillis` after the drop over no limit's. */
  readonly overloadedEarly: number
  /** Goodput in the second half after the drop over the route's throughput at capacity (N / base). */
  readonly settledOfCapacity: number
  /** p99 in the second half after the drop over the server's latency (base). */
  readonly p99SettledOfBase: number
}

interface RateLimitRow extends LimitsRow {
  readonly rounds: ReadonlyArray<RateLimitRound>
  /** Medians over rounds. */
  readonly requests: number
  readonly limited: number
  readonly failed: number
  readonly seconds: number
}

interface RateLimitRound {
  readonly ok: number
  readonly failed: number
  readonly requests: number
  readonly limited: number
  readonly seconds: number
}

export interface LimitsResult {
  /** The lines measured, in the rows' order within each configuration. */
  readonly lines: ReadonlyArray<string>
  readonly config: LimitsConfig
  readonly capacityRoute: typeof capacityRoute
  readonly rateLimitRoute: typeof rateLimitRoute
  /** Per configuration, one row per line. */
  readonly capacity: ReadonlyArray<CapacityRow>
  readonly rateLimit: ReadonlyArray<RateLimitRow>
}

const CapacityCounts = Schema.Struct({ requests: Schema.Number, overloaded: Schema.Number })
const decodeCapacity = Schema.decodeUnknownSync(CapacityCounts)
const decodeStats = Schema.decodeUnknownSync(
  Schema.Struct({
    capacity: CapacityCounts,
    rateLimit: Schema.Struct({ allowed: Schema.Number, limited: Schema.Number })
  })
)

const ask = async (origin: string, path: string, method: "GET" | "POST"): Promise<unknown> => {
  const response = await fetch(`${origin}${path}`, { method, signal: AbortSignal.timeout(10_000) })
  if (!response.ok) throw new Error(`chaos server: ${method} ${path} answered ${response.status}`)
  return response.json()
}
const readStats = async (origin: string) => decodeStats(await ask(origin, "/__stats", "GET"))

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

// The clock the client processes stamp their calls with: comparable across processes.
const epochNow = (): number => performance.timeOrigin + performance.now()

// A bound on one run: generous, since the machine is shared, but never unlimited.
const runTimeoutMillis = (millis: number): number => 60_000 + 2 * millis

const phaseOf = (
  calls: LimitsRunResult["calls"],
  from: number,
  to: number,
  capacity: number,
  server: { readonly requests: number; readonly overloaded: number; readonly overloadedEarly: number }
): CapacityPhase => {
  const inPhase = calls.filter((call) => call.endedAt >= from && call.endedAt < to)
  const latenciesOf = (ended: typeof inPhase) =>
    Float64Array.from(ended.filter((call) => call.outcome === "ok").map((call) => call.millis)).sort()
  const latencies = latenciesOf(inPhase)
  const settled = latenciesOf(inPhase.filter((call) => call.endedAt >= (from + to) / 2))
  const okSettled = settled.length
  const refused = inPhase.filter((call) => call.outcome === "refused").length
  return {
    capacity,
    seconds: (to - from) / 1000,
    ok: latencies.length,
    refused,
    failed: inPhase.length - latencies.length - refused,
    requests: server.requests,
    overloaded: server.overloaded,
    p50Millis: quantileSorted(latencies, 0.5),
    p99Millis: quantileSorted(latencies, 0.99),
    p99SettledMillis: quantileSorted(settled, 0.99),
    okSettled,
    overloadedEarly: server.overloadedEarly
  }
}

// A loop, not Math.max(...): a full run's refusals make tens of thousands of calls, past what a spread takes.
const lastEnd = (calls: LimitsRunResult["calls"], atLeast: number): number =>
  calls.reduce((last, call) => Math.max(last, call.endedAt), atLeast)

const capacityUrl = (origin: string, shape: CapacityShape): string =>
  `${origin}/api/chaos/capacity?base=${capacityRoute.baseMillis}&shedAt=${shape.shedAt}`

/** One capacity row on one line in one round: the shape's first capacity, then its second from `phaseMillis` on. */
const capacityRound = async (
  server: ChaosServerProcess,
  client: LimitsClientProcess,
  configuration: LimitsConfiguration,
  shape: CapacityShape,
  config: LimitsConfig
): Promise<ReadonlyArray<CapacityPhase>> => {
  const { baseMillis, earlyMillis } = capacityRoute
  await server.reset()
  await ask(server.origin, `/__capacity?limit=${shape.before}`, "POST")
  const loop = client.run(
    {
      url: capacityUrl(server.origin, shape),
      mode: configuration.mode,
      callers: callersFor(shape, config),
      untilMillis: 2 * config.phaseMillis,
      refusedPauseMillis: baseMillis
    },
    runTimeoutMillis(2 * config.phaseMillis)
  )
  // The capacity drops while the callers run; the POST answers the counts up to then, and the
  // phases split where it was answered. The 503s of the drop's first seconds are read then.
  const drop = sleep(config.phaseMillis).then(async () => {
    const counts = decodeCapacity(await ask(server.origin, `/__capacity?limit=${shape.after}`, "POST"))
    const at = epochNow()
    await sleep(Math.min(earlyMillis, config.phaseMillis))
    const early = decodeCapacity(await ask(server.origin, "/__capacity", "GET"))
    return { at, counts, early }
  })
  const [{ calls, startedAt }, { at, counts, early }] = await Promise.all([loop, drop])
  const end = await readStats(server.origin)
  if (startedAt >= at) throw new Error(`limits: the capacity dropped before the ${configuration.label} callers started`)
  const endedLast = lastEnd(calls, startedAt + 2 * config.phaseMillis)
  return [
    phaseOf(calls, startedAt, at, shape.before, { ...counts, overloadedEarly: counts.overloaded }),
    // Up to and including the last call's end.
    phaseOf(calls, at, endedLast + 1e-6, shape.after, {
      requests: end.capacity.requests - counts.requests,
      overloaded: end.capacity.overloaded - counts.overloaded,
      overloadedEarly: early.overloaded - counts.overloaded
    })
  ]
}

/** Medians over rounds of a figure of the phase after the drop, or of its ratio to no limit's in the same round. */
const versusNone = (
  rounds: ReadonlyArray<ReadonlyArray<CapacityPhase>>,
  none: ReadonlyArray<ReadonlyArray<CapacityPhase>>,
  config: LimitsConfig
): CapacityVersusNone => {
  const of = (figure: (round: ReadonlyArray<CapacityPhase>, index: number) => number) =>
    median(rounds.map((round, index) => figure(round, index)))
  const ratioTo = (mine: number, theirs: number | undefined) =>
    theirs === undefined || theirs === 0 ? (mine === 0 ? 1 : Number.POSITIVE_INFINITY) : mine / theirs
  const settledSeconds = config.phaseMillis / 2000
  return {
    goodput: of((round, index) => ratioTo(round[0]?.ok ?? 0, none[index]?.[0]?.ok)),
    overloadedEarly: of((round, index) => ratioTo(round[1]?.overloadedEarly ?? 0, none[index]?.[1]?.overloadedEarly)),
    settledOfCapacity: of((round) => {
      const after = round[1]
      if (after === undefined) return 0
      return after.okSettled / settledSeconds / ((after.capacity * 1000) / capacityRoute.baseMillis)
    }),
    p99SettledOfBase: of((round) => (round[1]?.p99SettledMillis ?? 0) / capacityRoute.baseMillis)
  }
}

/** A capacity row from its rounds: per phase, medians over rounds and the ratios to the route's own figures. */
const capacityRow = (
  library: LibraryId,
  configuration: LimitsConfiguration,
  shape: CapacityShape,
  rounds: ReadonlyArray<ReadonlyArray<CapacityPhase>>,
  none: ReadonlyArray<ReadonlyArray<CapacityPhase>>,
  config: LimitsConfig
): CapacityRow => {
  const phases = (rounds[0] ?? []).map((phase, index) => {
    const of = (figure: (phase: CapacityPhase) => number) =>
      median(rounds.flatMap((round) => (round[index] === undefined ? [] : [figure(round[index])])))
    const goodput = of((round) => round.ok / round.seconds)
    const p99Millis = of((round) => round.p99Millis)
    return {
      capacity: phase.capacity,
      goodput,
      p50Millis: of((round) => round.p50Millis),
      p99Millis,
      requests: of((round) => round.requests),
      overloaded: of((round) => round.overloaded),
      refused: of((round) => round.refused),
      failed: of((round) => round.failed),
      goodputOfCapacity: goodput / ((phase.capacity * 1000) / capacityRoute.baseMillis),
      p99OfBase: p99Millis / capacityRoute.baseMillis,
      p99SettledOfBase: of((round) => round.p99SettledMillis) / capacityRoute.baseMillis
    }
  })
  return {
    library,
    line: lineOf(library),
    label: configuration.label,
    option: configuration.option,
    shape,
    callers: callersFor(shape, config),
    rounds,
    phases,
    versusNone: versusNone(rounds, none, config)
  }
}

const rateLimitRound = async (
  server: ChaosServerProcess,
  client: LimitsClientProcess,
  configuration: LimitsConfiguration,
  config: LimitsConfig,
  key: string
): Promise<RateLimitRound> => {
  await server.reset()
  const { limit, windowSeconds } = rateLimitRoute
  const url = `${server.origin}/api/chaos/rate-limit/${key}?limit=${limit}&window=${windowSeconds}&headers=both`
  const { calls, startedAt } = await client.run(
    {
      url,
      mode: configuration.mode,
      callers: config.rateLimitConcurrency,
      count: config.rateLimitCalls,
      refusedPauseMillis: capacityRoute.baseMillis
    },
    runTimeoutMillis(config.rateLimitCalls * 1000)
  )
  const stats = await readStats(server.origin)
  const ok = calls.filter((call) => call.outcome === "ok").length
  return {
    ok,
    failed: calls.length - ok,
    requests: stats.rateLimit.allowed + stats.rateLimit.limited,
    limited: stats.rateLimit.limited,
    seconds: (lastEnd(calls, startedAt) - startedAt) / 1000
  }
}

const rateLimitRow = (
  library: LibraryId,
  configuration: LimitsConfiguration,
  rounds: ReadonlyArray<RateLimitRound>
): RateLimitRow => {
  const of = (figure: (round: RateLimitRound) => number) => median(rounds.map(figure))
  return {
    library,
    line: lineOf(library),
    label: configuration.label,
    option: configuration.option,
    rounds,
    requests: of((round) => round.requests),
    limited: of((round) => round.limited),
    failed: of((round) => round.failed),
    seconds: of((round) => round.seconds)
  }
}

const capacityLog = (
  round: number,
  config: LimitsConfig,
  library: LibraryId,
  configuration: LimitsConfiguration,
  shape: CapacityShape,
  phases: ReadonlyArray<CapacityPhase>
): string =>
  `limits: round ${round + 1}/${config.rounds}, ${lineOf(library)}: ${shape.name}: ${configuration.label}: ` +
  phases
    .map(
      (phase) =>
        `${phase.capacity}: ${phase.ok} ok, ${phase.refused} refused, ${phase.overloaded} 503s ` +
        `(${phase.overloadedEarly} early)`
    )
    .join("; ")

// A line's key prefix: no two runs of a round share a rate-limit key.
const keyPrefix = (library: LibraryId): string => (lineOf(library) === "Effect 4" ? "e4" : "e3")

/**
 * Runs the section for each line of this library among `libraries` (null when neither is there),
 * against a chaos server process of its own, one client process per line; each round's rows in
 * another order, the lines of a row one after the other.
 */
export const runLimits = async (
  config: LimitsConfig,
  log: (line: string) => void,
  libraries: ReadonlyArray<LibraryId>
): Promise<LimitsResult | null> => {
  const lines = limitsLibraries.filter((library) => libraries.includes(library))
  if (lines.length === 0) return null
  const server = await startChaosServerProcess()
  try {
    log(`limits: chaos server on ${server.origin}; starting ${lines.length} client processes`)
    const started = await Promise.allSettled(lines.map(startLimitsClientProcess))
    const clients = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []))
    try {
      const failure = started.find((result) => result.status === "rejected")
      if (failure !== undefined) throw failure.reason
      const { shapes } = capacityRoute
      const roundsKey = (library: LibraryId, shape: CapacityShape, mode: LimitsMode) =>
        `${library} ${shape.name} ${mode}`
      const capacityRounds = new Map(
        clients.flatMap((client) =>
          shapes.flatMap((shape) =>
            capacityConfigurations.map((configuration) => [
              roundsKey(client.library, shape, configuration.mode),
              [] as ReadonlyArray<CapacityPhase>[]
            ])
          )
        )
      )
      const rateLimitRounds = new Map(
        clients.flatMap((client) =>
          rateLimitConfigurations.map((configuration) => [
            `${client.library} ${configuration.mode}`,
            [] as RateLimitRound[]
          ])
        )
      )
      // A process's first row would otherwise run on cold code: half a phase of calls, not measured, warms it.
      log("limits: warming up each client process")
      for (const client of clients) {
        await server.reset()
        await client.run(
          {
            url: capacityUrl(server.origin, capacityRoute.shapes[0]),
            mode: "none",
            callers: config.callers,
            untilMillis: config.phaseMillis / 2,
            refusedPauseMillis: capacityRoute.baseMillis
          },
          runTimeoutMillis(config.phaseMillis)
        )
      }
      for (let round = 0; round < config.rounds; round++) {
        for (const shape of shapes) {
          for (const configuration of rotate(capacityConfigurations, round)) {
            for (const client of rotate(clients, round)) {
              const phases = await capacityRound(server, client, configuration, shape, config)
              capacityRounds.get(roundsKey(client.library, shape, configuration.mode))?.push(phases)
              log(capacityLog(round, config, client.library, configuration, shape, phases))
            }
          }
        }
        for (const [index, configuration] of rotate(rateLimitConfigurations, round).entries()) {
          for (const client of rotate(clients, round)) {
            const key = `${keyPrefix(client.library)}-r${round}-${index}`
            const figures = await rateLimitRound(server, client, configuration, config, key)
            rateLimitRounds.get(`${client.library} ${configuration.mode}`)?.push(figures)
            log(
              `limits: round ${round + 1}/${config.rounds}, ${lineOf(client.library)}: ${configuration.label}: ` +
                `${figures.limited} 429s`
            )
          }
        }
      }
      return {
        lines: lines.map(lineOf),
        config,
        capacityRoute,
        rateLimitRoute,
        capacity: shapes.flatMap((shape) =>
          capacityConfigurations.flatMap((configuration) =>
            lines.map((library) => {
              const roundsOf = (mode: LimitsMode) => capacityRounds.get(roundsKey(library, shape, mode)) ?? []
              return capacityRow(library, configuration, shape, roundsOf(configuration.mode), roundsOf("none"), config)
            })
          )
        ),
        rateLimit: rateLimitConfigurations.flatMap((configuration) =>
          lines.map((library) =>
            rateLimitRow(library, configuration, rateLimitRounds.get(`${library} ${configuration.mode}`) ?? [])
          )
        )
      }
    } finally {
      await Promise.all(clients.map((client) => client.stop()))
    }
  } finally {
    await server.stop()
  }
}
