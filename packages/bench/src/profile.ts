/**
 * What `pnpm bench:profile` does on either Effect line, Effect-free so that the Effect 3 process
 * (`inProcess.ts`) and the Effect 4 one (`packages/bench-effect4`, under Node 22) share it: the
 * command line, the CPU and allocation of a batch of calls, interleaved rounds, and the tables.
 * Each line only says how to run its rows.
 */
import * as Fs from "node:fs/promises"
import { Session } from "node:inspector/promises"
import * as Path from "node:path"
import { median, medianRatio } from "./stats.js"
import { allocationCounter } from "./worker.js"

export interface ProfileOptions {
  /** Calls per row and round. */
  readonly calls: number
  readonly rounds: number
  /** Calls of each form in the outage figure. */
  readonly outageCalls: number
  /** Also the rows with parts of this library switched off (where the time goes). */
  readonly ablations: boolean
  /** The Effect 3 line only, without starting the Effect 4 one under Node 22. */
  readonly effect3Only: boolean
  /**
   * When given, after the measured rounds each row runs one more batch under V8's sampling
   * profiler, written to this directory as `<line>-<row>-c<concurrency>.cpuprofile` (a profile of
   * that row alone, which `node --cpu-prof` of the whole run cannot give).
   */
  readonly cpuProfileDir?: string | undefined
}

// About 1 and 2.5 minutes for both lines on 2 busy cores (4 with the ablations).
const fullRun: ProfileOptions = { calls: 3_000, rounds: 5, outageCalls: 2_000, ablations: false, effect3Only: false }
const quickRun: ProfileOptions = { calls: 1_000, rounds: 3, outageCalls: 1_000, ablations: false, effect3Only: false }

/**
 * `--quick` (fewer calls and rounds), `--calls=N`, `--rounds=N`, `--outage-calls=N`,
 * `--ablations`, `--effect3-only`, `--cpu-prof-dir=<dir>`; a `--` is ignored and anything else rejected.
 */
export const parseProfileArgs = (args: ReadonlyArray<string>): ProfileOptions => {
  const given = args.filter((arg) => arg !== "--")
  let options = given.includes("--quick") ? quickRun : fullRun
  for (const arg of given) {
    const [name, value] = arg.split("=", 2)
    const count = Number(value)
    const positive = value !== undefined && Number.isInteger(count) && count > 0
    if (name === "--quick" && value === undefined) continue
    if (name === "--ablations" && value === undefined) options = { ...options, ablations: true }
    else if (name === "--effect3-only" && value === undefined) options = { ...options, effect3Only: true }
    else if (name === "--calls" && positive) options = { ...options, calls: count }
    else if (name === "--rounds" && positive) options = { ...options, rounds: count }
    else if (name === "--outage-calls" && positive) options = { ...options, outageCalls: count }
    else if (name === "--cpu-prof-dir" && value !== undefined && value !== "")
      options = { ...options, cpuProfileDir: Path.resolve(value) }
    else
      throw new Error(
        `bench:profile: unknown option ${arg} (--quick --calls=N --rounds=N --outage-calls=N --ablations --effect3-only --cpu-prof-dir=<dir>)`
      )
  }
  return options
}

/** The command line the Effect 3 process hands to the Effect 4 one: `options`, for that line. */
export const profileArgs = (options: ProfileOptions): Array<string> => [
  `--calls=${options.calls}`,
  `--rounds=${options.rounds}`,
  `--outage-calls=${options.outageCalls}`,
  ...(options.ablations ? ["--ablations"] : []),
  ...(options.cpuProfileDir === undefined ? [] : [`--cpu-prof-dir=${options.cpuProfileDir}`])
]

/**
 * Makes `calls` calls, `concurrency` at a time, and settles when all have, with the first failure
 * (none expected outside the outage: a row whose calls fail would measure nothing worth knowing).
 */
export type Batch = (calls: number, concurrency: number) => Promise<{ readonly firstFailure?: string | undefined }>

/** One client form at one concurrency. */
interface ProfileRow {
  readonly name: string
  readonly concurrency: number
  readonly run: Batch
}

interface PerCall {
  readonly cpuMicros: number
  readonly allocatedBytes: number
}

const perCall = async (row: ProfileRow, calls: number): Promise<PerCall> => {
  const stopCounting = allocationCounter()
  const start = process.cpuUsage()
  const { firstFailure } = await row.run(calls, row.concurrency)
  const used = process.cpuUsage(start)
  if (firstFailure !== undefined)
    throw new Error(`bench:profile: a call of "${row.name.trim()}" failed: ${firstFailure}`)
  return { cpuMicros: (used.user + used.system) / calls, allocatedBytes: stopCounting() / calls }
}

/** Every row's figures, one per round, in the rows' order. */
type Rounds = ReadonlyMap<string, ReadonlyArray<PerCall>>

/**
 * A warm-up batch per row, then `rounds` rounds that each run every row once, in turn: the
 * machine's noise falls on all rows alike, and a ratio is taken within a round.
 */
const measureRounds = async (rows: ReadonlyArray<ProfileRow>, options: ProfileOptions): Promise<Rounds> => {
  for (const row of rows) await perCall(row, Math.min(options.calls, 1_000))
  const samples = new Map<string, Array<PerCall>>(rows.map((row) => [row.name, []]))
  for (let round = 0; round < options.rounds; round++) {
    for (const row of rows) samples.get(row.name)?.push(await perCall(row, options.calls))
  }
  return samples
}

const slug = (text: string): string =>
  text
    .trim()
    .replace(/[^a-z0-9]+/gi, "-")
    .replace(/^-|-$/g, "")
    .toLowerCase()

/**
 * One more batch of each row under V8's sampling profiler (every 100 µs), each written to `dir` as
 * `<line>-<row>-c<concurrency>.cpuprofile`, for Chrome's DevTools or any reader of the format.
 */
const profileRows = async (rows: ReadonlyArray<ProfileRow>, calls: number, dir: string, line: string) => {
  await Fs.mkdir(dir, { recursive: true })
  const session = new Session()
  session.connect()
  try {
    await session.post("Profiler.enable")
    await session.post("Profiler.setSamplingInterval", { interval: 100 })
    for (const row of rows) {
      await session.post("Profiler.start")
      await row.run(calls, row.concurrency)
      const { profile } = await session.post("Profiler.stop")
      const file = Path.join(
        dir,
        `${slug(line.split("(")[0] ?? line)}-${slug(row.name)}-c${row.concurrency}.cpuprofile`
      )
      await Fs.writeFile(file, JSON.stringify(profile))
    }
  } finally {
    session.disconnect()
  }
}

const column = (rounds: Rounds, name: string, of: keyof PerCall): Array<number> =>
  (rounds.get(name) ?? []).map((sample) => sample[of])

/** Median over rounds of `name`'s figure over `baseline`'s in the same round. */
const ratioIn = (rounds: Rounds, name: string, baseline: string, of: keyof PerCall): number =>
  medianRatio(column(rounds, name, of), column(rounds, baseline, of))

const times = (ratio: number) => `${ratio.toFixed(2)}×`.padStart(7)

/**
 * The table of `names` (CPU µs and KiB allocated per call, medians), each with its ratios to
 * `bare` (CPU) when given and to `retryTransient` (CPU and allocation).
 */
const printTable = (
  title: string,
  rounds: Rounds,
  names: ReadonlyArray<string>,
  baselines: { readonly bare?: string; readonly retryTransient: string }
): void => {
  const { bare, retryTransient } = baselines
  const width = Math.max(...names.map((name) => name.length)) + 2
  console.log(title)
  console.log(
    `  ${"".padEnd(width)} ${"µs CPU".padStart(8)}${bare === undefined ? "" : "  × bare"}  × rT CPU  ${"KiB".padStart(7)}  × rT KiB`
  )
  for (const name of names) {
    const cpu = median(column(rounds, name, "cpuMicros"))
    const kib = median(column(rounds, name, "allocatedBytes")) / 1024
    const toBare = bare === undefined ? "" : ` ${times(ratioIn(rounds, name, bare, "cpuMicros"))}`
    console.log(
      `  ${name.padEnd(width)} ${cpu.toFixed(1).padStart(8)}${toBare}  ${times(ratioIn(rounds, name, retryTransient, "cpuMicros"))}  ${kib.toFixed(1).padStart(7)}  ${times(ratioIn(rounds, name, retryTransient, "allocatedBytes"))}`
    )
  }
}

/** The line that compares the per-call form with the form built once (target: CPU at most 1.00×). */
const printPerCallToOnce = (rounds: Rounds, perCallName: string, onceName: string): void => {
  const cpu = ratioIn(rounds, perCallName, onceName, "cpuMicros")
  const allocation = ratioIn(rounds, perCallName, onceName, "allocatedBytes")
  console.log(`  per call / once: CPU ${cpu.toFixed(2)}×, allocation ${allocation.toFixed(2)}×`)
}

/** What a retry adds to a call: medians over rounds of (retried call − plain call of the same form). */
const printPerRetry = (
  rounds: Rounds,
  pairs: ReadonlyArray<readonly [label: string, plain: string, retried: string]>
) => {
  const added = (plain: string, retried: string, of: keyof PerCall) => {
    const plainRounds = column(rounds, plain, of)
    return median(column(rounds, retried, of).map((value, index) => value - (plainRounds[index] ?? Number.NaN)))
  }
  const width = Math.max(...pairs.map(([label]) => label.length)) + 2
  console.log("Per retry (the retried call minus the plain call of the same form and round)")
  for (const [label, plain, retried] of pairs) {
    console.log(
      `  ${label.padEnd(width)} ${added(plain, retried, "cpuMicros").toFixed(1).padStart(8)} µs CPU  ${(added(plain, retried, "allocatedBytes") / 1024).toFixed(1).padStart(7)} KiB`
    )
  }
}

/** One form's outage figure: `calls` calls, every answer a 503; how many requests the transport received. */
interface OutageForm {
  readonly label: string
  readonly requests: (calls: number) => Promise<number>
}

/** Requests sent per call during a total outage, each form against an origin of its own. */
const printOutage = async (title: string, forms: ReadonlyArray<OutageForm>, calls: number): Promise<void> => {
  console.log(
    `${title}: total outage (every answer a 503 with Retry-After: 0), ${calls} calls, default policy: requests sent per call (target at most 1.20)`
  )
  const width = Math.max(...forms.map((form) => form.label.length)) + 2
  for (const form of forms) {
    const requests = await form.requests(calls)
    console.log(`  ${form.label.padEnd(width)} ${(requests / calls).toFixed(2).padStart(6)}  (${requests} requests)`)
  }
}

/** Builds a form's batch against `url`: each row gets an origin of its own, so no row shares a budget or breaker with another. */
type Form = (url: string) => Promise<Batch>

/**
 * One Effect line's client forms. "once": the resilient client built once (`make`, as a layer
 * does) and looked up as a service by each call; "per call": `withResilience(policy)` applied
 * to the `HttpClient` in context inside the effect of each call, as the package README does.
 */
export interface LineProfile {
  /** The line and the Node it runs on, for the tables' titles. */
  readonly title: string
  /** Every call answered 200 at once; this library with its default policy. */
  readonly happy: {
    readonly bare: Form
    readonly retryTransient: Form
    readonly once: Form
    readonly perCall: Form
    /** The ablations: where the time goes. */
    readonly bareScoped: Form
    readonly onceNoTimeLimits: Form
    readonly onceNoBudget: Form
  }
  /**
   * Every other answer a 503 with `Retry-After: 0`, run one call at a time: each call fails once,
   * then succeeds. This library with a budget that never runs dry (every call here retries).
   */
  readonly retried: {
    readonly retryTransient: Form
    readonly once: Form
    readonly perCall: Form
  }
  /** Every answer a 503 with `Retry-After: 0`; the requests the transport received, default policy. */
  readonly outage: {
    readonly perCall: (url: string, calls: number) => Promise<number>
    readonly shared: (url: string, calls: number) => Promise<number>
  }
}

const label = {
  bare: "bare HttpClient",
  retryTransient: "retryTransient",
  once: "ours, built once",
  perCall: "ours, per call",
  bareScoped: "  bare, in a Scope",
  onceNoTimeLimits: "  once, no time limits",
  onceNoBudget: "  once, no retry budget"
} as const
type HappyForm = keyof typeof label

const retriedLabel = {
  retryTransient: "retryTransient, one retry",
  once: "ours once, one retry",
  perCall: "ours per call, one retry"
} as const

const originOf = (name: string) =>
  `http://${name
    .trim()
    .replace(/[^a-z0-9]+/gi, "-")
    .toLowerCase()}.test/ok`

const buildRows = (
  forms: Readonly<Record<string, Form>>,
  labels: Readonly<Record<string, string>>,
  concurrency: number,
  names: ReadonlyArray<string>
): Promise<Array<ProfileRow>> =>
  Promise.all(
    names.map(async (name) => {
      const form = forms[name]
      const rowName = labels[name] ?? name
      if (form === undefined) throw new Error(`bench:profile: no form ${name}`)
      return { name: rowName, concurrency, run: await form(originOf(`${rowName}-c${concurrency}`)) }
    })
  )

/**
 * Measures one line: the happy path at 1 and 64 calls in flight, one retry at 1, each against
 * its bare client and `retryTransient` of the same rounds, then the outage figure.
 */
export const runProfile = async (line: LineProfile, options: ProfileOptions): Promise<void> => {
  const happyForms: Array<HappyForm> = [
    "bare",
    "retryTransient",
    "once",
    "perCall",
    ...(options.ablations ? (["bareScoped", "onceNoTimeLimits", "onceNoBudget"] as const) : [])
  ]
  const happyLabels = happyForms.map((form) => label[form])
  const each = `median of ${options.rounds} interleaved rounds of ${options.calls} calls`
  for (const concurrency of [1, 64]) {
    const happy = await buildRows(line.happy, label, concurrency, happyForms)
    // One call at a time for the retried calls: their transports alternate 503 and 200.
    const retried = concurrency === 1 ? await buildRows(line.retried, retriedLabel, 1, Object.keys(retriedLabel)) : []
    const rounds = await measureRounds([...happy, ...retried], options)
    if (options.cpuProfileDir !== undefined)
      await profileRows([...happy, ...retried], options.calls, options.cpuProfileDir, line.title)
    console.log()
    printTable(`${line.title}: per call, happy path, c=${concurrency} (${each})`, rounds, happyLabels, {
      bare: label.bare,
      retryTransient: label.retryTransient
    })
    printPerCallToOnce(rounds, label.perCall, label.once)
    if (retried.length === 0) continue
    console.log()
    printTable(
      `${line.title}: per call, one retry (a 503 then a 200), c=1 (${each})`,
      rounds,
      Object.values(retriedLabel),
      {
        retryTransient: retriedLabel.retryTransient
      }
    )
    printPerCallToOnce(rounds, retriedLabel.perCall, retriedLabel.once)
    printPerRetry(rounds, [
      ["retryTransient", label.retryTransient, retriedLabel.retryTransient],
      ["ours, built once", label.once, retriedLabel.once],
      ["ours, per call", label.perCall, retriedLabel.perCall]
    ])
  }
  console.log()
  await printOutage(
    line.title,
    [
      { label: "ours, per call", requests: (calls) => line.outage.perCall(originOf("outage-per-call"), calls) },
      { label: "ours, one shared layer", requests: (calls) => line.outage.shared(originOf("outage-shared"), calls) }
    ],
    options.outageCalls
  )
}
