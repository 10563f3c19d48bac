/**
 * Forking the server and client processes and talking to them over IPC, every wait bounded.
 * The Effect 4 clients run under Node 22 (their undici transport needs 22.19+) from their own
 * package's entry, which imports Effect 4 only; every other process runs on this process's Node.
 */
import { type ChildProcess, execFile, fork } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Schema from "effect/Schema"
import { libraryById } from "./clients.js"
import {
  FromHedgingClient,
  FromLimitsClient,
  FromServer,
  FromWorker,
  type HedgingMode,
  type HedgingRun,
  type HedgingRunResult,
  type Job,
  type JobResult,
  type LibraryId,
  type LimitsRun,
  type LimitsRunResult,
  type OutageReport,
  type ServerStats,
  ToHedgingClient,
  ToLimitsClient,
  ToServer,
  ToWorker
} from "./protocol.js"

// Children run the TypeScript sources through tsx, whoever started this process (tsx, vitest).
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

const startupTimeoutMillis = 30_000

const children = new Set<ChildProcess>()
let exitHookInstalled = false

// Children also exit when their IPC channel closes; this covers a parent that exits abruptly.
const installExitHook = (): void => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once("exit", () => {
    for (const child of children) child.kill()
  })
}

const node22Script = fileURLToPath(new URL("../../../scripts/node22.sh", import.meta.url))

export interface Node22 {
  readonly path: string
  /** As `process.version` says it, e.g. `v22.23.2`. */
  readonly version: string
}

const decodeNode22 = Schema.decodeUnknownSync(
  Schema.parseJson(Schema.Struct({ path: Schema.String, version: Schema.String }))
)

let node22: Promise<Node22> | undefined
let node22Found: Node22 | undefined

/**
 * The Node >= 22.19 that `scripts/node22.sh` finds (the system's if it fits, else a pinned one from
 * the npm registry), asked once per run.
 */
export const node22Binary = (): Promise<Node22> => {
  node22 ??= new Promise((resolve, reject) => {
    const script = "console.log(JSON.stringify({ path: process.execPath, version: process.version }))"
    execFile("bash", [node22Script, "node", "-e", script], { timeout: 300_000 }, (error, stdout, stderr) => {
      if (error !== null) {
        reject(new Error(`scripts/node22.sh found no Node 22 for the Effect 4 clients: ${stderr || error.message}`))
        return
      }
      try {
        node22Found = decodeNode22(stdout.trim())
        resolve(node22Found)
      } catch (decodeError) {
        reject(decodeError)
      }
    })
  })
  return node22
}

/** The Node the Effect 4 clients ran under in this run, if any ran. */
export const effect4Node = (): string | null => node22Found?.version ?? null

const forkTs = (
  entry: string,
  args: ReadonlyArray<string>,
  options: { readonly exposeGc: boolean; readonly execPath?: string | undefined }
): ChildProcess => {
  installExitHook()
  const child = fork(fileURLToPath(new URL(entry, import.meta.url)), [...args], {
    execArgv: ["--import", tsxLoader, ...(options.exposeGc ? ["--expose-gc"] : [])],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    ...(options.execPath === undefined ? {} : { execPath: options.execPath })
  })
  children.add(child)
  child.once("exit", () => children.delete(child))
  return child
}

interface Waiter<A> {
  readonly match: (message: A) => boolean
  readonly resolve: (message: A) => void
  readonly reject: (error: Error) => void
  readonly timer: NodeJS.Timeout
}

/** Decoded messages from one child; each `next` waits for the first message it matches. */
class Channel<A> {
  private readonly waiters: Array<Waiter<A>> = []
  private readonly unclaimed: Array<A> = []
  private exited: Error | undefined

  constructor(
    readonly child: ChildProcess,
    readonly name: string,
    decode: (raw: unknown) => A
  ) {
    child.on("message", (raw: unknown) => {
      const message = decode(raw)
      const index = this.waiters.findIndex((waiter) => waiter.match(message))
      const waiter = this.waiters[index]
      if (waiter === undefined) {
        this.unclaimed.push(message)
        return
      }
      this.waiters.splice(index, 1)
      clearTimeout(waiter.timer)
      waiter.resolve(message)
    })
    child.once("exit", (code, signal) => {
      this.exited = new Error(`${name} exited (code ${code}, signal ${signal})`)
      for (const waiter of this.waiters.splice(0)) {
        clearTimeout(waiter.timer)
        waiter.reject(this.exited)
      }
    })
  }

  next<B extends A>(match: (message: A) => message is B, timeoutMillis: number, what: string): Promise<B> {
    const index = this.unclaimed.findIndex(match)
    const found = this.unclaimed[index]
    if (found !== undefined && match(found)) {
      this.unclaimed.splice(index, 1)
      return Promise.resolve(found)
    }
    if (this.exited !== undefined) return Promise.reject(this.exited)
    return new Promise<B>((resolve, reject) => {
      const waiter: Waiter<A> = {
        match,
        resolve: (message) => {
          if (match(message)) resolve(message)
        },
        reject,
        timer: setTimeout(() => {
          const at = this.waiters.indexOf(waiter)
          if (at >= 0) this.waiters.splice(at, 1)
          reject(new Error(`${this.name}: no ${what} within ${timeoutMillis} ms`))
        }, timeoutMillis)
      }
      this.waiters.push(waiter)
    })
  }
}

const stopChild = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve()
      return
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000)
    child.once("exit", () => {
      clearTimeout(timer)
      resolve()
    })
    if (child.connected) child.disconnect()
    else child.kill()
  })

export interface ServerProcess {
  readonly origin: string
  readonly stats: () => Promise<ServerStats>
  readonly reset: () => Promise<ServerStats>
  /** Starts or ends the outage of the `switch` route (see `BenchServer.setOutage`). */
  readonly setOutage: (down: boolean) => Promise<OutageReport>
  readonly outage: () => Promise<OutageReport>
  readonly stop: () => Promise<void>
}

const encodeToServer = Schema.encodeSync(ToServer)

/** Forks the bench server and waits until it listens. */
export const startServerProcess = async (): Promise<ServerProcess> => {
  const child = forkTs("./serverMain.ts", [], { exposeGc: false })
  const channel = new Channel(child, "server process", Schema.decodeUnknownSync(FromServer))
  const listening = await channel.next(
    (message): message is Extract<FromServer, { _tag: "Listening" }> => message._tag === "Listening",
    startupTimeoutMillis,
    "port"
  )
  let nextId = 0
  const ask = async <Tag extends "Stats" | "Outage">(
    message: ToServer,
    tag: Tag
  ): Promise<Extract<FromServer, { _tag: Tag }>> => {
    child.send(encodeToServer(message))
    return channel.next(
      (candidate): candidate is Extract<FromServer, { _tag: Tag }> =>
        candidate._tag === tag && candidate.id === message.id,
      10_000,
      tag === "Stats" ? "statistics" : "outage report"
    )
  }
  return {
    origin: `http://127.0.0.1:${listening.port}`,
    stats: async () => (await ask({ _tag: "GetStats", id: nextId++ }, "Stats")).stats,
    reset: async () => (await ask({ _tag: "Reset", id: nextId++ }, "Stats")).stats,
    setOutage: async (down) => (await ask({ _tag: "SetOutage", id: nextId++, down }, "Outage")).report,
    outage: async () => (await ask({ _tag: "GetOutage", id: nextId++ }, "Outage")).report,
    stop: () => stopChild(child)
  }
}

export interface WorkerProcess {
  readonly library: LibraryId
  readonly run: (job: Job, timeoutMillis: number) => Promise<JobResult>
  readonly stop: () => Promise<void>
}

const encodeToWorker = Schema.encodeSync(ToWorker)

// Relative to this file: the Effect 4 client processes' entry, in a package of its own.
const effect4WorkerEntry = "../../bench-effect4/src/workerMain.ts"

export interface WorkerOptions {
  readonly exposeGc: boolean
  /** The Redis of the `happy-redis` mode (`redis://127.0.0.1:<port>`); that mode fails without it. */
  readonly redisUrl?: string | undefined
}

/** Forks a client process for `library` and waits until its client is built. */
export const startWorkerProcess = async (
  library: LibraryId,
  origin: string,
  options: WorkerOptions
): Promise<WorkerProcess> => {
  const args = [library, origin, ...(options.redisUrl === undefined ? [] : [options.redisUrl])]
  const child = libraryById(library).effect4
    ? forkTs(effect4WorkerEntry, args, {
        exposeGc: options.exposeGc,
        execPath: (await node22Binary()).path
      })
    : forkTs("./workerMain.ts", args, options)
  const channel = new Channel(child, `${library} client process`, Schema.decodeUnknownSync(FromWorker))
  await channel.next(
    (message): message is Extract<FromWorker, { _tag: "Ready" }> => message._tag === "Ready",
    startupTimeoutMillis,
    "readiness"
  )
  let nextId = 0
  return {
    library,
    run: async (job, timeoutMillis) => {
      const message: ToWorker = { _tag: "Run", id: nextId++, job }
      child.send(encodeToWorker(message))
      const reply = await channel.next(
        (candidate): candidate is Extract<FromWorker, { _tag: "Result" | "Failed" }> =>
          candidate._tag !== "Ready" && candidate.id === message.id,
        timeoutMillis,
        "result"
      )
      if (reply._tag === "Failed") throw new Error(`${library}: ${reply.message}`)
      return reply.result
    },
    stop: () => stopChild(child)
  }
}

/**
 * Starts one client process per entry (a library may appear more than once), a few at a time,
 * in order, and stops them all if one fails.
 */
export const startWorkerList = async (
  libraries: ReadonlyArray<LibraryId>,
  origin: string,
  options: { readonly exposeGc: boolean }
): Promise<Array<WorkerProcess>> => {
  const workers: Array<WorkerProcess> = []
  try {
    // Two at a time: starting a process is CPU-bound, and this machine has few cores.
    for (let index = 0; index < libraries.length; index += 2) {
      const batch = libraries.slice(index, index + 2)
      workers.push(...(await Promise.all(batch.map((library) => startWorkerProcess(library, origin, options)))))
    }
    return workers
  } catch (error) {
    await stopWorkers(workers)
    throw error
  }
}

/** Starts one client process per library, a few at a time, and stops them all if one fails. */
export const startWorkers = async (
  libraries: ReadonlyArray<LibraryId>,
  origin: string,
  options: { readonly exposeGc: boolean }
): Promise<Map<LibraryId, WorkerProcess>> =>
  new Map((await startWorkerList(libraries, origin, options)).map((worker) => [worker.library, worker]))

export const stopWorkers = async (
  workers: ReadonlyMap<LibraryId, WorkerProcess> | ReadonlyArray<WorkerProcess>
): Promise<void> => {
  await Promise.all([...workers.values()].map((worker) => worker.stop()))
}

/** A bound on one job: generous, since the machine is shared, but never unlimited. */
export const jobTimeoutMillis = (requests: number): number => 60_000 + requests * 20

/** What the hedging section reads of the chaos server's `/__stats`. */
interface ChaosStats {
  /** Requests received since the last reset (`/__stats` and `/__reset` not counted). */
  readonly requests: number
  /** Of those, the ones whose client left before the answer started: the copies that lost. */
  readonly abandoned: number
}

export interface ChaosServerProcess {
  readonly origin: string
  /** A second chaos server in the same process: another origin, for the client processes' first warm-up. */
  readonly warmupOrigin: string
  readonly stats: () => Promise<ChaosStats>
  /** Forgets the request counters and the latency keys. */
  readonly reset: () => Promise<void>
  readonly stop: () => Promise<void>
}

const decodeChaosStats = Schema.decodeUnknownSync(
  Schema.Struct({ requests: Schema.Struct({ total: Schema.Number, abandoned: Schema.Number }) })
)

/** Forks `@effect-http-resilience/chaos-server` in a process of its own and waits until it listens. */
export const startChaosServerProcess = async (): Promise<ChaosServerProcess> => {
  const child = forkTs("./chaosServerMain.ts", [], { exposeGc: false })
  const channel = new Channel(child, "chaos server process", Schema.decodeUnknownSync(FromServer))
  const [listening, warmup] = await Promise.all(
    ["port", "warm-up port"].map((what) =>
      channel.next(
        (message): message is Extract<FromServer, { _tag: "Listening" }> => message._tag === "Listening",
        startupTimeoutMillis,
        what
      )
    )
  )
  const origin = `http://127.0.0.1:${listening!.port}`
  const ask = async (path: string, method: "GET" | "POST"): Promise<Response> => {
    const response = await fetch(`${origin}${path}`, { method, signal: AbortSignal.timeout(10_000) })
    if (!response.ok) throw new Error(`chaos server: ${method} ${path} answered ${response.status}`)
    return response
  }
  return {
    origin,
    warmupOrigin: `http://127.0.0.1:${warmup!.port}`,
    stats: async () => {
      const { requests } = decodeChaosStats(await (await ask("/__stats", "GET")).json())
      return { requests: requests.total, abandoned: requests.abandoned }
    },
    reset: async () => {
      await (await ask("/__reset", "POST")).arrayBuffer()
    },
    stop: () => stopChild(child)
  }
}

export interface HedgingClientProcess {
  /** This library on one line: `effect-http-resilience` or `effect4-http-resilience`. */
  readonly library: LibraryId
  readonly mode: HedgingMode
  readonly run: (run: HedgingRun, timeoutMillis: number) => Promise<HedgingRunResult>
  readonly stop: () => Promise<void>
}

const encodeToHedgingClient = Schema.encodeSync(ToHedgingClient)

// Relative to this file: the Effect 4 hedging client processes' entry.
const effect4HedgingEntry = "../../bench-effect4/src/hedgingClientMain.ts"

/**
 * Forks a hedging client process of `library` (this library on the Effect 3 line, or on the
 * Effect 4 one under Node 22) in `mode` and waits until its client is built.
 */
export const startHedgingClientProcess = async (
  library: LibraryId,
  mode: HedgingMode
): Promise<HedgingClientProcess> => {
  const child = libraryById(library).effect4
    ? forkTs(effect4HedgingEntry, [mode], { exposeGc: false, execPath: (await node22Binary()).path })
    : forkTs("./hedgingClientMain.ts", [mode], { exposeGc: false })
  const name = `hedging client process (${library}, ${mode})`
  const channel = new Channel(child, name, Schema.decodeUnknownSync(FromHedgingClient))
  await channel.next(
    (message): message is Extract<FromHedgingClient, { _tag: "Ready" }> => message._tag === "Ready",
    startupTimeoutMillis,
    "readiness"
  )
  let nextId = 0
  return {
    library,
    mode,
    run: async (run, timeoutMillis) => {
      const message: ToHedgingClient = { _tag: "RunHedging", id: nextId++, run }
      child.send(encodeToHedgingClient(message))
      const reply = await channel.next(
        (candidate): candidate is Extract<FromHedgingClient, { _tag: "HedgingResult" | "Failed" }> =>
          candidate._tag !== "Ready" && candidate.id === message.id,
        timeoutMillis,
        "result"
      )
      if (reply._tag === "Failed") throw new Error(`${name}: ${reply.message}`)
      return reply.result
    },
    stop: () => stopChild(child)
  }
}

export interface LimitsClientProcess {
  /** This library on one line: `effect-http-resilience` or `effect4-http-resilience`. */
  readonly library: LibraryId
  readonly run: (run: LimitsRun, timeoutMillis: number) => Promise<LimitsRunResult>
  readonly stop: () => Promise<void>
}

const encodeToLimitsClient = Schema.encodeSync(ToLimitsClient)

// Relative to this file: the Effect 4 limits client processes' entry.
const effect4LimitsEntry = "../../bench-effect4/src/limitsClientMain.ts"

/**
 * Forks a limits client process of `library` (this library on the Effect 3 line, or on the
 * Effect 4 one under Node 22) and waits until it is ready; each run builds a fresh client there.
 */
export const startLimitsClientProcess = async (library: LibraryId): Promise<LimitsClientProcess> => {
  const child = libraryById(library).effect4
    ? forkTs(effect4LimitsEntry, [], { exposeGc: false, execPath: (await node22Binary()).path })
    : forkTs("./limitsClientMain.ts", [], { exposeGc: false })
  const name = `limits client process (${library})`
  const channel = new Channel(child, name, Schema.decodeUnknownSync(FromLimitsClient))
  await channel.next(
    (message): message is Extract<FromLimitsClient, { _tag: "Ready" }> => message._tag === "Ready",
    startupTimeoutMillis,
    "readiness"
  )
  let nextId = 0
  return {
    library,
    run: async (run, timeoutMillis) => {
      const message: ToLimitsClient = { _tag: "RunLimits", id: nextId++, run }
      child.send(encodeToLimitsClient(message))
      const reply = await channel.next(
        (candidate): candidate is Extract<FromLimitsClient, { _tag: "LimitsResult" | "Failed" }> =>
          candidate._tag !== "Ready" && candidate.id === message.id,
        timeoutMillis,
        "result"
      )
      if (reply._tag === "Failed") throw new Error(`${name}: ${reply.message}`)
      return reply.result
    },
    stop: () => stopChild(child)
  }
}
