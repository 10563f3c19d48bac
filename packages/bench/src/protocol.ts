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
  "undici-retry-agent"
)
export type LibraryId = typeof LibraryId.Type

/** How a worker configures its library: as shipped, or with the retry waits a benchmark needs. */
export const ClientMode = Schema.Literal("happy", "retry")
export type ClientMode = typeof ClientMode.Type

export const ServerStats = Schema.Struct({
  connectionsOpened: Schema.Number,
  connectionsOpen: Schema.Number,
  openedAndStillOpen: Schema.Number,
  requests: Schema.Number
})
export type ServerStats = typeof ServerStats.Type

// parent <-> server process

export const ToServer = Schema.Union(
  Schema.TaggedStruct("GetStats", { id: Schema.Number }),
  Schema.TaggedStruct("Reset", { id: Schema.Number })
)
export type ToServer = typeof ToServer.Type

export const FromServer = Schema.Union(
  Schema.TaggedStruct("Listening", { port: Schema.Number }),
  Schema.TaggedStruct("Stats", { id: Schema.Number, stats: ServerStats })
)
export type FromServer = typeof FromServer.Type

// parent <-> client worker process

export const Route = Schema.Literal("ok", "fail-once", "always-503")
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
  memory: Schema.Boolean
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
  activeSocketsAfter: NullableNumber
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
