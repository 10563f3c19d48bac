/**
 * 10. Limits on outgoing load (issue #34): what a concurrency limit does when the server's
 * capacity drops, and what `rateLimitHeaders` and a client `rateLimit` save against a rate-limited
 * route. Both against the chaos server, in a process of its own.
 *
 * Capacity: `/api/chaos/capacity` serves N requests at once in `base` ms (N = 64), waits
 * base×c/N ms beyond N and answers 503 beyond shedAt×N. A closed loop of callers (each starts its
 * next call when its last ends) runs one phase at N = 64, then `POST /__capacity?limit=16` and a
 * second phase at 16. Rows: no limit, a fixed limit of 32, the adaptive limit (gradient2, AIMD),
 * each queueing up to every caller, so that nothing is refused unsent. Requests and 503s are the
 * server's counts; calls and latencies the client's, by the phase in which each call ended.
 *
 * Rate limit: `/api/chaos/rate-limit/:key` allows `limit` requests per window and answers 429
 * with `Retry-After` beyond; calls at a fixed concurrency with the defaults, with
 * `rateLimitHeaders`, and with a client `rateLimit` equal to the server's.
 *
 * Effect 3 only, in the bench's own process: each row builds a fresh client over a fresh undici
 * pool and a fresh memory store (limits and buckets live in the store). The waits measured are
 * the server's tens of milliseconds, not the client's microseconds of CPU.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { ResilienceStore, ResilientHttpClient, type RetryPolicy } from "effect-http-resilience"
import type { LimitsConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import { type ChaosServerProcess, startChaosServerProcess } from "./processes.js"
import { median, quantileSorted } from "./stats.js"

/** The capacity route's shape: 20 ms at capacity, shedding past twice it; 64, then 16. */
export const capacityRoute = { baseMillis: 20, shedAt: 2, before: 64, after: 16 } as const

/** The rate-limited route: 10 requests per 1 s window, announced in both header styles. */
export const rateLimitRoute = { limit: 10, windowSeconds: 1 } as const

interface LimitsRow {
  readonly label: string
  /** The policy options as written. */
  readonly option: string
}

interface LimitsConfiguration extends LimitsRow {
  readonly policy: (callers: number) => RetryPolicy.Options
}

/** The capacity rows, the baseline (no limit) first. */
export const capacityConfigurations: ReadonlyArray<LimitsConfiguration> = [
  { label: "no limit", option: "{}", policy: () => ({}) },
  {
    label: "fixed 32",
    option: "{ concurrency: { limit: 32, queue: callers } }",
    policy: (callers) => ({ concurrency: { limit: 32, queue: callers } })
  },
  {
    label: "adaptive (gradient2)",
    option: "{ concurrency: { adaptive: true, queue: callers } }",
    policy: (callers) => ({ concurrency: { adaptive: true, queue: callers } })
  },
  {
    label: "adaptive (AIMD)",
    option: '{ concurrency: { adaptive: true, algorithm: "aimd", queue: callers } }',
    policy: (callers) => ({ concurrency: { adaptive: true, algorithm: "aimd", queue: callers } })
  }
]

/** The rate-limit rows. */
export const rateLimitConfigurations: ReadonlyArray<LimitsConfiguration> = [
  { label: "defaults", option: "{}", policy: () => ({}) },
  { label: "rateLimitHeaders", option: "{ rateLimitHeaders: true }", policy: () => ({ rateLimitHeaders: true }) },
  {
    label: "rateLimit = server's",
    option: `{ rateLimit: { limit: ${rateLimitRoute.limit}, window: "${rateLimitRoute.windowSeconds} seconds" } }`,
    policy: () => ({ rateLimit: { limit: rateLimitRoute.limit, window: `${rateLimitRoute.windowSeconds} seconds` } })
  },
  {
    label: "rateLimit = server's + rateLimitHeaders",
    option: `{ rateLimit: { limit: ${rateLimitRoute.limit}, window: "${rateLimitRoute.windowSeconds} seconds" }, rateLimitHeaders: true }`,
    policy: () => ({
      rateLimit: { limit: rateLimitRoute.limit, window: `${rateLimitRoute.windowSeconds} seconds` },
      rateLimitHeaders: true
    })
  }
]

/** One phase of one capacity row in one round. */
interface CapacityPhase {
  readonly capacity: number
  readonly seconds: number
  readonly ok: number
  readonly failed: number
  /** Requests the server received on the route, and of those the 503s it shed. */
  readonly requests: number
  readonly overloaded: number
  readonly p50Millis: number
  readonly p99Millis: number
}

interface CapacityPhaseRow {
  readonly capacity: number
  /** Medians over rounds. */
  readonly goodput: number
  readonly p50Millis: number
  readonly p99Millis: number
  readonly requests: number
  readonly overloaded: number
  readonly failed: number
  /** Goodput over the route's throughput at capacity (capacity / base). */
  readonly goodputOfCapacity: number
  /** p99 over the server's own latency at capacity (base). */
  readonly p99OfBase: number
}

interface CapacityRow extends LimitsRow {
  readonly rounds: ReadonlyArray<ReadonlyArray<CapacityPhase>>
  readonly phases: ReadonlyArray<CapacityPhaseRow>
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
  readonly line: string
  readonly config: LimitsConfig
  readonly capacityRoute: typeof capacityRoute
  readonly rateLimitRoute: typeof rateLimitRoute
  readonly capacity: ReadonlyArray<CapacityRow>
  readonly rateLimit: ReadonlyArray<RateLimitRow>
}

const CapacityCounts = Schema.Struct({ requests: Schema.Number, overloaded: Schema.Number })
type CapacityCounts = typeof CapacityCounts.Type
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

/** The outcome of each call, when it ended (ms since the run started) and how long it took. */
interface CallRecord {
  readonly endedAt: number
  readonly millis: number
  readonly ok: boolean
}

/**
 * Calls `url` with a fresh client of `policy` from `callers` closed-loop fibers until
 * `untilMillis` after the start, or `count` calls in all.
 */
const runClosedLoop = async (
  policy: RetryPolicy.Options,
  url: string,
  stop: { readonly callers: number; readonly untilMillis?: number; readonly count?: number }
): Promise<{ readonly records: ReadonlyArray<CallRecord>; readonly started: number }> => {
  const runtime = ManagedRuntime.make(Layer.merge(NodeHttpClient.layerUndici, ResilienceStore.layerMemory()))
  try {
    const client = await runtime.runPromise(
      Effect.flatMap(HttpClient.HttpClient, (transport) =>
        Effect.provideService(ResilientHttpClient.make(policy), HttpClient.HttpClient, transport)
      )
    )
    const records: Array<CallRecord> = []
    const started = performance.now()
    let issued = 0
    const more = () =>
      (stop.count === undefined || issued < stop.count) &&
      (stop.untilMillis === undefined || performance.now() - started < stop.untilMillis)
    const call = Effect.suspend(() => {
      const callStarted = performance.now()
      const record = (ok: boolean) => {
        const now = performance.now()
        records.push({ endedAt: now - started, millis: now - callStarted, ok })
      }
      return Effect.match(Effect.scoped(Effect.flatMap(client.get(url), (response) => response.json)), {
        onFailure: () => record(false),
        onSuccess: () => record(true)
      })
    })
    const caller = Effect.whileLoop({
      while: () => {
        const go = more()
        if (go) issued++
        return go
      },
      body: () => call,
      step: () => undefined
    })
    await runtime.runPromise(
      Effect.forEach(Array.from({ length: stop.callers }), () => caller, { concurrency: "unbounded", discard: true })
    )
    return { records, started }
  } finally {
    await runtime.dispose()
  }
}

const phaseOf = (
  records: ReadonlyArray<CallRecord>,
  from: number,
  to: number,
  capacity: number,
  server: { readonly requests: number; readonly overloaded: number }
): CapacityPhase => {
  const inPhase = records.filter((record) => record.endedAt >= from && record.endedAt < to)
  const latencies = Float64Array.from(inPhase.filter((record) => record.ok).map((record) => record.millis)).sort()
  const ok = latencies.length
  return {
    capacity,
    seconds: (to - from) / 1000,
    ok,
    failed: inPhase.length - ok,
    requests: server.requests,
    overloaded: server.overloaded,
    p50Millis: quantileSorted(latencies, 0.5),
    p99Millis: quantileSorted(latencies, 0.99)
  }
}

const capacityUrl = (origin: string): string =>
  `${origin}/api/chaos/capacity?base=${capacityRoute.baseMillis}&shedAt=${capacityRoute.shedAt}`

/** One capacity row in one round: 64, then 16 from `phaseMillis` on. */
const capacityRound = async (
  server: ChaosServerProcess,
  configuration: LimitsConfiguration,
  config: LimitsConfig
): Promise<ReadonlyArray<CapacityPhase>> => {
  const { after, before } = capacityRoute
  await server.reset()
  const url = capacityUrl(server.origin)
  // The capacity drops while the callers run; the POST answers the counts up to then.
  let atDrop: CapacityCounts | undefined
  const drop = new Promise<void>((resolve, reject) =>
    setTimeout(() => {
      ask(server.origin, `/__capacity?limit=${after}`, "POST").then((counts) => {
        atDrop = decodeCapacity(counts)
        resolve()
      }, reject)
    }, config.phaseMillis)
  )
  const loop = runClosedLoop(configuration.policy(config.callers), url, {
    callers: config.callers,
    untilMillis: 2 * config.phaseMillis
  })
  const [{ records }] = await Promise.all([loop, drop])
  const end = await readStats(server.origin)
  const first = atDrop ?? { requests: Number.NaN, overloaded: Number.NaN }
  const endedLast = Math.max(2 * config.phaseMillis, ...records.map((record) => record.endedAt))
  return [
    phaseOf(records, 0, config.phaseMillis, before, first),
    phaseOf(records, config.phaseMillis, endedLast, after, {
      requests: end.capacity.requests - first.requests,
      overloaded: end.capacity.overloaded - first.overloaded
    })
  ]
}

/** A capacity row from its rounds: per phase, medians over rounds and the ratios to the route's own figures. */
const capacityRow = (configuration: LimitsRow, rounds: ReadonlyArray<ReadonlyArray<CapacityPhase>>): CapacityRow => {
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
      failed: of((round) => round.failed),
      goodputOfCapacity: goodput / ((phase.capacity * 1000) / capacityRoute.baseMillis),
      p99OfBase: p99Millis / capacityRoute.baseMillis
    }
  })
  return { label: configuration.label, option: configuration.option, rounds, phases }
}

const rateLimitRound = async (
  server: ChaosServerProcess,
  configuration: LimitsConfiguration,
  config: LimitsConfig,
  key: string
): Promise<RateLimitRound> => {
  await server.reset()
  const { limit, windowSeconds } = rateLimitRoute
  const url = `${server.origin}/api/chaos/rate-limit/${key}?limit=${limit}&window=${windowSeconds}&headers=both`
  const { records } = await runClosedLoop(configuration.policy(config.rateLimitConcurrency), url, {
    callers: config.rateLimitConcurrency,
    count: config.rateLimitCalls
  })
  const stats = await readStats(server.origin)
  const ok = records.filter((record) => record.ok).length
  return {
    ok,
    failed: records.length - ok,
    requests: stats.rateLimit.allowed + stats.rateLimit.limited,
    limited: stats.rateLimit.limited,
    seconds: Math.max(0, ...records.map((record) => record.endedAt)) / 1000
  }
}

const rateLimitRow = (configuration: LimitsConfiguration, rounds: ReadonlyArray<RateLimitRound>): RateLimitRow => {
  const of = (figure: (round: RateLimitRound) => number) => median(rounds.map(figure))
  return {
    label: configuration.label,
    option: configuration.option,
    rounds,
    requests: of((round) => round.requests),
    limited: of((round) => round.limited),
    failed: of((round) => round.failed),
    seconds: of((round) => round.seconds)
  }
}

/** Runs the section against a chaos server process of its own, each round's rows in another order. */
export const runLimits = async (config: LimitsConfig, log: (line: string) => void): Promise<LimitsResult> => {
  const server = await startChaosServerProcess()
  try {
    const capacityRounds = new Map<LimitsConfiguration, Array<ReadonlyArray<CapacityPhase>>>(
      capacityConfigurations.map((configuration) => [configuration, []])
    )
    const rateLimitRounds = new Map<LimitsConfiguration, Array<RateLimitRound>>(
      rateLimitConfigurations.map((configuration) => [configuration, []])
    )
    // The first row would otherwise run on cold code: half a phase of calls, not measured, warms it.
    log(`limits: chaos server on ${server.origin}; warming up`)
    await runClosedLoop({}, capacityUrl(server.origin), {
      callers: config.callers,
      untilMillis: config.phaseMillis / 2
    })
    for (let round = 0; round < config.rounds; round++) {
      for (const configuration of rotate(capacityConfigurations, round)) {
        const phases = await capacityRound(server, configuration, config)
        capacityRounds.get(configuration)?.push(phases)
        log(
          `limits: round ${round + 1}/${config.rounds}, ${configuration.label}: ` +
            phases.map((phase) => `${phase.capacity}: ${phase.ok} ok, ${phase.overloaded} 503s`).join("; ")
        )
      }
      for (const [index, configuration] of rotate(rateLimitConfigurations, round).entries()) {
        const figures = await rateLimitRound(server, configuration, config, `r${round}-${index}`)
        rateLimitRounds.get(configuration)?.push(figures)
        log(`limits: round ${round + 1}/${config.rounds}, ${configuration.label}: ${figures.limited} 429s`)
      }
    }
    return {
      line: "Effect 3",
      config,
      capacityRoute,
      rateLimitRoute,
      capacity: capacityConfigurations.map((configuration) =>
        capacityRow(configuration, capacityRounds.get(configuration) ?? [])
      ),
      rateLimit: rateLimitConfigurations.map((configuration) =>
        rateLimitRow(configuration, rateLimitRounds.get(configuration) ?? [])
      )
    }
  } finally {
    await server.stop()
  }
}
