/**
 * The messages between the bench's processes, as schemas: an IPC message arrives as `unknown`
 * and is decoded, never cast.
 */
import * as Schema from "effect/Schema"

export const LibraryId = Schema.Literal(
  "undici",
  "fetch",
  "effect",
  "effect-retry-transient",
  "effect-http-resilience",
  "got",
  "ky",
  "undici-retry-agent",
  "effect4",
  "effect4-retry-transient",
  "effect4-retry-transient-breaker",
  "effect4-http-resilience"
)
export type LibraryId = typeof LibraryId.Type

/**
 * How a worker configures its library: as shipped, or with the retry waits a benchmark needs.
 * The `overload-*` modes are those of the overload benchmarks: as `retry`, each attempt counted
 * in the client (a refused connection never reaches the server to be counted there), and this
 * library with its default retry budget, without one, or with the default circuit breaker too;
 * `overload-per-call`: its defaults, with `withResilience` applied inside the effect of each call
 * (the package README's pattern) rather than to one client built once. The shared-store
 * benchmark's: `happy-redis`, this library as in `happy`, its calls run with
 * `layerRedis` in context, on the Redis the client process was started with;
 * `happy-control`, a second client built as in `happy`, the same-run control of the comparison;
 * `rate-limited` and `rate-limited-redis`, the same two under a `rateLimit` that binds (issue #43).
 */
export const ClientMode = Schema.Literal(
  "happy",
  "happy-control",
  "happy-redis",
  "rate-limited",
  "rate-limited-redis",
  "retry",
  "overload-default",
  "overload-no-budget",
  "overload-breaker",
  "overload-per-call"
)
export type ClientMode = typeof ClientMode.Type

export const ServerStats = Schema.Struct({
  connectionsOpened: Schema.Number,
  connectionsOpen: Schema.Number,
  openedAndStillOpen: Schema.Number,
  requests: Schema.Number
})
export type ServerStats = typeof ServerStats.Type

// parent <-> server process

/** What the server saw of the callers of one `switch` tag across an outage. */
const OutageTagReport = Schema.Struct({
  tag: Schema.String,
  /** Requests that arrived while the outage lasted (each answered 503). */
  requestsWhileDown: Schema.Number,
  /** From the end of the outage to the first 2xx answer this tag's callers got; null if none yet. */
  millisToFirstSuccess: Schema.NullOr(Schema.Number)
})

export const OutageReport = Schema.Struct({
  /** How long the last outage lasted, by the server's clock; null while it lasts or before one. */
  downMillis: Schema.NullOr(Schema.Number),
  tags: Schema.Array(OutageTagReport)
})
export type OutageReport = typeof OutageReport.Type

export const ToServer = Schema.Union(
  Schema.TaggedStruct("GetStats", { id: Schema.Number }),
  Schema.TaggedStruct("Reset", { id: Schema.Number }),
  /** Starts (`down`) or ends the outage of the `switch` route; starting one forgets the last. */
  Schema.TaggedStruct("SetOutage", { id: Schema.Number, down: Schema.Boolean }),
  Schema.TaggedStruct("GetOutage", { id: Schema.Number })
)
export type ToServer = typeof ToServer.Type

export const FromServer = Schema.Union(
  Schema.TaggedStruct("Listening", { port: Schema.Number }),
  Schema.TaggedStruct("Stats", { id: Schema.Number, stats: ServerStats }),
  Schema.TaggedStruct("Outage", { id: Schema.Number, report: OutageReport })
)
export type FromServer = typeof FromServer.Type

// parent <-> client worker process

/**
 * `sparse`: `fail-once` for a scattered `failingShare` of the calls, `ok` for the others (the
 * same calls for the same count); `switch`: the outage the parent turns on and off, counted per
 * `keyPrefix` as its tag.
 */
export const Route = Schema.Literal("ok", "fail-once", "always-503", "sparse", "switch")
export type Route = typeof Route.Type

export const Job = Schema.Struct({
  /** Which of the library's configurations runs the job (each is built once, on first use). */
  mode: ClientMode,
  route: Route,
  /** Makes every `fail-once` key of the job unique. */
  keyPrefix: Schema.String,
  count: Schema.Int,
  concurrency: Schema.Int,
  /** Time every call (p50/p99). */
  latencies: Schema.Boolean,
  /** Count the bytes allocated on the JS heap (GC profiler). */
  allocations: Schema.Boolean,
  /** Sample peak RSS and heap, force GCs around the job, count the sockets left open. */
  memory: Schema.Boolean,
  /** Sends to this origin instead of the worker's (a port where nothing listens, say). */
  origin: Schema.optional(Schema.String),
  /** For `sparse`: the share of calls that fail once, 0 to 1. */
  failingShare: Schema.optional(Schema.Number),
  /** Starts call `i` at `i / ratePerSecond` seconds (an open loop), `concurrency` still a bound. */
  ratePerSecond: Schema.optional(Schema.Number)
})
export type Job = typeof Job.Type

const NullableNumber = Schema.NullOr(Schema.Number)

export const JobResult = Schema.Struct({
  ok: Schema.Number,
  failed: Schema.Number,
  wallMs: Schema.Number,
  cpuMicros: Schema.Number,
  allocatedBytes: NullableNumber,
  p50Ms: NullableNumber,
  p99Ms: NullableNumber,
  peakRssBytes: NullableNumber,
  peakHeapBytes: NullableNumber,
  heapBeforeBytes: NullableNumber,
  heapAfterBytes: NullableNumber,
  /** TCP sockets still keeping the client process alive after the job (idle pooled sockets are unref'd). */
  activeSocketsAfter: NullableNumber,
  /** Attempts the client made, counted in the client (`overload-*` modes only). */
  attempts: NullableNumber
})
export type JobResult = typeof JobResult.Type

export const ToWorker = Schema.Union(Schema.TaggedStruct("Run", { id: Schema.Number, job: Job }))
export type ToWorker = typeof ToWorker.Type

export const FromWorker = Schema.Union(
  Schema.TaggedStruct("Ready", {}),
  Schema.TaggedStruct("Result", { id: Schema.Number, result: JobResult }),
  Schema.TaggedStruct("Failed", { id: Schema.Number, message: Schema.String })
)
export type FromWorker = typeof FromWorker.Type

// parent <-> hedging client process (either line: the section's own messages, which the Effect 4
// processes decode with their own copy, `packages/bench-effect4/src/protocol.ts`)

/**
 * The configurations of the hedging section (issue #20), one client process each: no hedging,
 * a fixed delay of 10 ms (The Tail at Scale's), a fixed delay at the distribution's 95th
 * percentile, the delay learnt at the 95th percentile, and that with the default retry budget.
 * Every one but the last runs with `retryBudget: "none"`. See `hedgingPolicyFor`.
 */
export const HedgingMode = Schema.Literal("off", "fixed-10ms", "fixed-p95", "percentile", "percentile-budget")
export type HedgingMode = typeof HedgingMode.Type

/** `count` GETs of `url`, call `i` started at `i / ratePerSecond` s, at most `concurrency` in flight. */
export const HedgingRun = Schema.Struct({
  url: Schema.String,
  count: Schema.Int,
  concurrency: Schema.Int,
  ratePerSecond: Schema.Number
})
export type HedgingRun = typeof HedgingRun.Type

export const HedgingRunResult = Schema.Struct({
  ok: Schema.Number,
  failed: Schema.Number,
  wallMs: Schema.Number,
  /** The client process's CPU time (user + system) over the batch. */
  cpuMicros: Schema.Number,
  /** Each call's latency, in call order. */
  latenciesMs: Schema.Array(Schema.Number),
  /** The delay of each hedge the library reported (its `Hedge` decisions), in the order they went. */
  hedgeDelaysMs: Schema.Array(Schema.Number)
})
export type HedgingRunResult = typeof HedgingRunResult.Type

export const ToHedgingClient = Schema.Union(Schema.TaggedStruct("RunHedging", { id: Schema.Number, run: HedgingRun }))
export type ToHedgingClient = typeof ToHedgingClient.Type

export const FromHedgingClient = Schema.Union(
  Schema.TaggedStruct("Ready", {}),
  Schema.TaggedStruct("HedgingResult", { id: Schema.Number, result: HedgingRunResult }),
  Schema.TaggedStruct("Failed", { id: Schema.Number, message: Schema.String })
)
export type FromHedgingClient = typeof FromHedgingClient.Type

// parent <-> limits client process (either line, as the hedging section's: the Effect 4 processes
// decode with their own copy, `packages/bench-effect4/src/protocol.ts`)

/**
 * The policies of the limits section (issue #34), each a row: on the capacity route no limit
 * (`none`), a fixed limit of 32 and the adaptive limit (gradient2, AIMD), each with the default
 * queue (0); on the rate-limited route the defaults (`none`), `rateLimitHeaders`, a client
 * `rateLimit` equal to the server's, and both. See `limitsPolicyFor`.
 */
export const LimitsMode = Schema.Literal(
  "none",
  "fixed-32",
  "adaptive-gradient2",
  "adaptive-aimd",
  "rate-limit-headers",
  "rate-limit",
  "rate-limit-and-headers"
)
export type LimitsMode = typeof LimitsMode.Type

/**
 * GETs of `url` from `callers` closed-loop callers (each starts its next call when its last ends)
 * on a fresh client of `mode` over a fresh pool and memory store, until `untilMillis` after the
 * start or `count` calls in all. A caller whose call was refused unsent by the concurrency limit
 * pauses `refusedPauseMillis` before its next.
 */
export const LimitsRun = Schema.Struct({
  url: Schema.String,
  mode: LimitsMode,
  callers: Schema.Int,
  untilMillis: Schema.optional(Schema.Number),
  count: Schema.optional(Schema.Int),
  refusedPauseMillis: Schema.Number
})
export type LimitsRun = typeof LimitsRun.Type

/** How a call ended: a response read, refused unsent by the concurrency limit, or another failure. */
export const LimitsOutcome = Schema.Literal("ok", "refused", "failed")
export type LimitsOutcome = typeof LimitsOutcome.Type

export const LimitsRunResult = Schema.Struct({
  /** When the callers started, in ms since the epoch (`performance.timeOrigin + performance.now()`). */
  startedAt: Schema.Number,
  /** Per call, in the order they ended: when (ms since the epoch), its latency (ms) and its outcome. */
  calls: Schema.Array(Schema.Struct({ endedAt: Schema.Number, millis: Schema.Number, outcome: LimitsOutcome }))
})
export type LimitsRunResult = typeof LimitsRunResult.Type

export const ToLimitsClient = Schema.Union(Schema.TaggedStruct("RunLimits", { id: Schema.Number, run: LimitsRun }))
export type ToLimitsClient = typeof ToLimitsClient.Type

export const FromLimitsClient = Schema.Union(
  Schema.TaggedStruct("Ready", {}),
  Schema.TaggedStruct("LimitsResult", { id: Schema.Number, result: LimitsRunResult }),
  Schema.TaggedStruct("Failed", { id: Schema.Number, message: Schema.String })
)
export type FromLimitsClient = typeof FromLimitsClient.Type
