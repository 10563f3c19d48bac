/**
 * 8. Shared store: what `layerRedis` costs on the happy path (every call a 200),
 * against the default memory store, on each Effect line. Its promise (issue #18): a call that
 * goes well makes no Redis round trip of its own (its retry-budget deposit is counted locally and
 * flushed, one `EVALSHA` per origin, every `syncInterval`, 1 s by default); the goal: within 3% of
 * the memory store.
 *
 * Per line, a redis-server of its own on a free loopback port (nothing on disk) and one fresh
 * client process of this library, over the same undici transport and bench server as the happy
 * path (section 1), holding three clients, each its defaults built once as in section 1: one with
 * the memory store, a second one with it (the control: what the same store measures against
 * itself in this run), and one with its calls run under `layerRedis` (a store that
 * lives as long as the client). They run in interleaved rounds after a warm-up (each round in
 * another order), and each ratio is a median of same-round ratios. The figure the goal is judged
 * on is the median latency of a round's calls, robust to the bursts of a shared machine; the
 * CPU time of the client process per call is the other. Redis counts the commands it receives
 * during the measured rounds (`CONFIG RESETSTAT`, then `INFO commandstats` one flush interval
 * after the last round, so that the last deposits are counted too); the commands the store's Lua
 * scripts run inside Redis, which it counts as well, are told apart from those sent.
 *
 * Then the rate-limited rows (issue #43): the same two stores with calls under a `rateLimit` that
 * binds (2,000 a second, at the section's largest concurrency), where on Redis a call takes a send
 * time leased from the fleet's bucket; their latency against the memory store's (goal: within 5%),
 * and what Redis received per 1,000 calls, counted apart (its own `CONFIG RESETSTAT` and `INFO`).
 */
import { budgetScript, coolDownScript, rateLimitScript } from "../../core/src/SharedStore.js"
import { startRedis } from "../../resilience/test/support/redisServer.js"
import { libraryById } from "./clients.js"
import type { SharedStoreConfig } from "./config.js"
import { rotate } from "./happyPath.js"
import { jobTimeoutMillis, type ServerProcess, startWorkerProcess } from "./processes.js"
import type { ClientMode, Job, LibraryId } from "./protocol.js"
import { median, medianRatio } from "./stats.js"
import { sharedStoreRateLimit } from "./benchClient.js"

/** This library on each line: the clients the section compares, when the run includes them. */
export const sharedStoreLibraries: ReadonlyArray<LibraryId> = ["effect-http-resilience", "effect4-http-resilience"]

/** The goal of issue #18: the Redis store's happy path within 3% of the memory store's. */
const sharedStoreGoalRatio = 1.03

/** `layerRedis`'s default `syncInterval`, which the bench keeps: how often deposits reach Redis. */
const syncIntervalMillis = 1_000

/** The memory store, the same again (the control), and the Redis store: one client each. */
const stores: ReadonlyArray<ClientMode> = ["happy", "happy-control", "happy-redis"]

/** One round of one store: its calls' figures. */
interface StoreRound {
  /** The median of the round's call latencies, in microseconds. */
  readonly p50Micros: number
  /** The round's wall time over its calls, in microseconds: at c=64 the inverse of throughput. */
  readonly microsPerCall: number
  /** The client process's CPU time (user + system) over the calls, in microseconds. */
  readonly cpuMicrosPerCall: number
}

/** One store's figures: each a median over rounds. */
interface StoreFigures extends StoreRound {
  readonly rounds: ReadonlyArray<StoreRound>
}

interface SharedStoreRow {
  readonly library: LibraryId
  readonly label: string
  readonly concurrency: number
  readonly memory: StoreFigures
  /** A second client with the memory store, built as the first: the control. */
  readonly memoryControl: StoreFigures
  readonly redis: StoreFigures
  /** Median over rounds of the Redis store's median latency over the memory store's, in the same round: the goal's figure. */
  readonly p50Ratio: number
  /** The smallest and largest of those same-round ratios: how much the rounds disagree. */
  readonly p50RatioRange: readonly [number, number]
  /** The same median ratio for wall time per call (throughput's inverse). */
  readonly timeRatio: number
  /** The same median ratio for CPU time per call. */
  readonly cpuRatio: number
  /**
   * The control's median latency and CPU ratios to the first memory-store client: what the same
   * store measures against itself in this run, the noise a ratio of the Redis store lies within.
   */
  readonly controlRatios: { readonly p50: number; readonly cpu: number }
  /** Whether the median-latency and CPU ratios are within {@link sharedStoreGoalRatio}. */
  readonly withinGoal: { readonly p50: boolean; readonly cpu: boolean }
}

/** What Redis received from one line's client process during the measured rounds. */
interface SharedStoreCommands {
  readonly library: LibraryId
  readonly label: string
  /** Calls made through the Redis store in the measured rounds. */
  readonly redisCalls: number
  /**
   * From `CONFIG RESETSTAT` to `INFO commandstats`, in seconds: every round of the three clients
   * and the wait for the last flush, in which the store flushes at most once a `syncInterval`.
   */
  readonly measuredSeconds: number
  /** Commands the client process sent, by name (lower case, as Redis names them). */
  readonly sent: Readonly<Record<string, number>>
  /** All of them. */
  readonly total: number
  /** Commands the store's Lua scripts ran inside Redis, which `INFO commandstats` counts too. */
  readonly inScripts: Readonly<Record<string, number>>
}

/** The rate-limited rows' goal (issue #43): a call under `rateLimit` on Redis within 5% of memory. */
const rateLimitedGoalRatio = 1.05

/** One line's rate-limited comparison, and what Redis received meanwhile. */
interface RateLimitedRow {
  readonly library: LibraryId
  readonly label: string
  readonly concurrency: number
  readonly memory: StoreFigures
  readonly redis: StoreFigures
  readonly p50Ratio: number
  readonly p50RatioRange: readonly [number, number]
  readonly withinGoal: boolean
  readonly redisCalls: number
  readonly sent: Readonly<Record<string, number>>
  readonly total: number
}

export interface SharedStoreResult {
  /** The rate-limited rows' goal ratio, and their `rateLimit`. */
  readonly rateLimitedGoalRatio: number
  readonly rateLimit: typeof sharedStoreRateLimit
  readonly rateLimited: ReadonlyArray<RateLimitedRow>
  readonly rounds: number
  readonly callsPerRound: number
  readonly goalRatio: number
  readonly syncIntervalMillis: number
  /** As `INFO server` says it, e.g. `7.0.15`. */
  readonly redisVersion: string
  readonly rows: ReadonlyArray<SharedStoreRow>
  readonly commands: ReadonlyArray<SharedStoreCommands>
}

const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis))

const okJob = (mode: ClientMode, count: number, concurrency: number): Job => ({
  mode,
  route: "ok",
  keyPrefix: "store",
  count,
  concurrency,
  latencies: true,
  allocations: false,
  memory: false
})

/** The payload of a RESP bulk-string reply (`$<length>\r\n<payload>\r\n`). */
const bulkPayload = (reply: string): string => {
  const start = reply.indexOf("\r\n")
  return start === -1 ? reply : reply.slice(start + 2)
}

/**
 * The commands the store's Lua scripts run inside Redis (`redis.call('TIME')` …): `INFO
 * commandstats` counts them as well as the `EVALSHA` that ran them, though no client sent them.
 */
export const scriptCommands: ReadonlySet<string> = new Set(
  [...`${budgetScript}\n${coolDownScript}\n${rateLimitScript}`.matchAll(/redis\.call\('([A-Za-z]+)'/g)].flatMap(
    ([, name]) => (name === undefined ? [] : [name.toLowerCase()])
  )
)

export interface CommandCounts {
  /** Commands the clients sent, by name (lower case, `script|load` for a subcommand). */
  readonly sent: Record<string, number>
  /** Commands the scripts ran inside Redis, by name. */
  readonly inScripts: Record<string, number>
}

/**
 * `INFO commandstats` read as calls per command, split into what clients sent and what the
 * store's scripts ran, without the bench's own `INFO` and `CONFIG`.
 */
export const readCommandStats = (reply: string): CommandCounts => {
  const sent: Record<string, number> = {}
  const inScripts: Record<string, number> = {}
  for (const match of bulkPayload(reply).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    const [, name, calls] = match
    if (name === undefined || calls === undefined) continue
    const command = name.split("|")[0] ?? name
    if (command === "info" || command === "config") continue
    if (scriptCommands.has(command)) inScripts[name] = Number(calls)
    else sent[name] = Number(calls)
  }
  return { sent, inScripts }
}

const figuresOf = (list: ReadonlyArray<StoreRound>): StoreFigures => ({
  p50Micros: median(list.map((round) => round.p50Micros)),
  microsPerCall: median(list.map((round) => round.microsPerCall)),
  cpuMicrosPerCall: median(list.map((round) => round.cpuMicrosPerCall)),
  rounds: list
})

/**
 * The rate-limited rows of one line: memory and Redis in interleaved rounds at the largest
 * concurrency, after a warm-up, and Redis's count of what it received in those rounds.
 */
const runRateLimited = async (
  command: (...args: ReadonlyArray<string>) => Promise<string>,
  run: (mode: ClientMode, concurrency: number, count: number) => Promise<StoreRound>,
  library: LibraryId,
  label: string,
  config: SharedStoreConfig,
  log: (line: string) => void
): Promise<RateLimitedRow> => {
  const concurrency = Math.max(...config.concurrencies)
  const modes: ReadonlyArray<ClientMode> = ["rate-limited", "rate-limited-redis"]
  for (const mode of modes) await run(mode, concurrency, config.warmupCalls)
  await command("CONFIG", "RESETSTAT")
  const samples = new Map<ClientMode, Array<StoreRound>>()
  for (let round = 0; round < config.rounds; round++) {
    log(`shared store: ${label}, rate-limited round ${round + 1}/${config.rounds}`)
    for (const mode of rotate(modes, round)) {
      const list = samples.get(mode) ?? []
      list.push(await run(mode, concurrency, config.callsPerRound))
      samples.set(mode, list)
    }
  }
  await sleep(syncIntervalMillis + 500)
  const { sent } = readCommandStats(await command("INFO", "commandstats"))
  const memory = samples.get("rate-limited") ?? []
  const redis = samples.get("rate-limited-redis") ?? []
  const p50Ratios = redis.map((round, index) => round.p50Micros / (memory[index]?.p50Micros ?? Number.NaN))
  const p50Ratio = medianRatio(
    redis.map((round) => round.p50Micros),
    memory.map((round) => round.p50Micros)
  )
  return {
    library,
    label,
    concurrency,
    memory: figuresOf(memory),
    redis: figuresOf(redis),
    p50Ratio,
    p50RatioRange: [Math.min(...p50Ratios), Math.max(...p50Ratios)],
    withinGoal: p50Ratio <= rateLimitedGoalRatio,
    redisCalls: config.rounds * config.callsPerRound,
    sent,
    total: Object.values(sent).reduce((sum, calls) => sum + calls, 0)
  }
}

/** Runs one line: its own redis-server and client process, the rounds, then Redis's count. */
const runLine = async (
  server: ServerProcess,
  library: LibraryId,
  config: SharedStoreConfig,
  log: (line: string) => void
): Promise<{
  readonly rows: Array<SharedStoreRow>
  readonly rateLimited: RateLimitedRow
  readonly commands: SharedStoreCommands
  readonly redisVersion: string
}> => {
  const { label } = libraryById(library)
  const redis = await startRedis()
  try {
    const redisVersion = /redis_version:([^\r\n]+)/.exec(await redis.command("INFO", "server"))?.[1] ?? "unknown"
    log(`shared store: ${label}, redis-server ${redisVersion} on ${redis.adminUrl}`)
    const worker = await startWorkerProcess(library, server.origin, { exposeGc: false, redisUrl: redis.adminUrl })
    try {
      const run = async (mode: ClientMode, concurrency: number, count: number): Promise<StoreRound> => {
        const result = await worker.run(okJob(mode, count, concurrency), jobTimeoutMillis(count))
        if (result.ok !== count) throw new Error(`${label} (${mode}): ${result.failed} of ${count} calls failed`)
        return {
          p50Micros: (result.p50Ms ?? Number.NaN) * 1000,
          microsPerCall: (result.wallMs * 1000) / count,
          cpuMicrosPerCall: result.cpuMicros / count
        }
      }
      for (const concurrency of config.concurrencies) {
        for (const mode of stores) await run(mode, concurrency, config.warmupCalls)
      }
      await redis.command("CONFIG", "RESETSTAT")
      const measuredFrom = performance.now()
      const samples = new Map<string, Array<StoreRound>>()
      const key = (mode: ClientMode, concurrency: number) => `${mode}@${concurrency}`
      for (let round = 0; round < config.rounds; round++) {
        log(`shared store: ${label}, round ${round + 1}/${config.rounds}`)
        for (const concurrency of config.concurrencies) {
          for (const mode of rotate(stores, round)) {
            const sample = await run(mode, concurrency, config.callsPerRound)
            const list = samples.get(key(mode, concurrency)) ?? []
            list.push(sample)
            samples.set(key(mode, concurrency), list)
          }
        }
      }
      // The deposits of the last calls reach Redis at the next flush.
      await sleep(syncIntervalMillis + 500)
      const { inScripts, sent } = readCommandStats(await redis.command("INFO", "commandstats"))
      const measuredSeconds = (performance.now() - measuredFrom) / 1000
      const total = Object.values(sent).reduce((sum, calls) => sum + calls, 0)
      if ((sent.evalsha ?? 0) === 0)
        throw new Error(
          `${label}: the Redis store sent no EVALSHA to Redis in ${config.rounds} rounds: it never flushed, so it did not ` +
            "reach Redis and measured nothing but local state"
        )

      const rows = config.concurrencies.map((concurrency): SharedStoreRow => {
        const memory = samples.get(key("happy", concurrency)) ?? []
        const controlRounds = samples.get(key("happy-control", concurrency)) ?? []
        const redisRounds = samples.get(key("happy-redis", concurrency)) ?? []
        const of = (list: ReadonlyArray<StoreRound>, figure: keyof StoreRound) => list.map((round) => round[figure])
        const ratio = (figure: keyof StoreRound, rounds = redisRounds) =>
          medianRatio(of(rounds, figure), of(memory, figure))
        const p50Ratios = redisRounds.map((round, index) => round.p50Micros / (memory[index]?.p50Micros ?? Number.NaN))
        const p50Ratio = ratio("p50Micros")
        const cpuRatio = ratio("cpuMicrosPerCall")
        return {
          library,
          label,
          concurrency,
          memory: figuresOf(memory),
          memoryControl: figuresOf(controlRounds),
          redis: figuresOf(redisRounds),
          p50Ratio,
          p50RatioRange: [Math.min(...p50Ratios), Math.max(...p50Ratios)],
          timeRatio: ratio("microsPerCall"),
          cpuRatio,
          controlRatios: { p50: ratio("p50Micros", controlRounds), cpu: ratio("cpuMicrosPerCall", controlRounds) },
          withinGoal: { p50: p50Ratio <= sharedStoreGoalRatio, cpu: cpuRatio <= sharedStoreGoalRatio }
        }
      })
      const redisCalls = config.rounds * config.concurrencies.length * config.callsPerRound
      const rateLimited = await runRateLimited(redis.command, run, library, label, config, log)
      return {
        rows,
        rateLimited,
        commands: { library, label, redisCalls, measuredSeconds, sent, total, inScripts },
        redisVersion
      }
    } finally {
      await worker.stop()
    }
  } finally {
    await redis.stop()
  }
}

/**
 * Runs the section for each line of this library among `libraries`; null when neither is there.
 */
export const runSharedStore = async (
  server: ServerProcess,
  config: SharedStoreConfig,
  log: (line: string) => void,
  libraries: ReadonlyArray<LibraryId>
): Promise<SharedStoreResult | null> => {
  const lines = sharedStoreLibraries.filter((library) => libraries.includes(library))
  if (lines.length === 0) return null
  const rows: Array<SharedStoreRow> = []
  const rateLimited: Array<RateLimitedRow> = []
  const commands: Array<SharedStoreCommands> = []
  let redisVersion = "unknown"
  for (const library of lines) {
    const line = await runLine(server, library, config, log)
    rows.push(...line.rows)
    rateLimited.push(line.rateLimited)
    commands.push(line.commands)
    redisVersion = line.redisVersion
  }
  return {
    rounds: config.rounds,
    callsPerRound: config.callsPerRound,
    goalRatio: sharedStoreGoalRatio,
    syncIntervalMillis,
    redisVersion,
    rows,
    rateLimitedGoalRatio,
    rateLimit: sharedStoreRateLimit,
    rateLimited,
    commands
  }
}
