/**
 * The parent's messages as an Effect 4 client process decodes them: `packages/bench`'s
 * `ToWorker`, `ToHedgingClient` and `ToLimitsClient` (its Effect 3 schemas are the definition; see the meaning of each field there) in
 * Effect 4's `Schema`, so that this process loads no Effect 3. The compiler holds the two to
 * the same type.
 */
import { Schema } from "effect"
import type * as Protocol from "@effect-http-resilience/bench/protocol"

/** The libraries this process builds. */
export const Effect4LibraryId = Schema.Literals([
  "effect4",
  "effect4-retry-transient",
  "effect4-retry-transient-breaker",
  "effect4-http-resilience"
])
export type Effect4LibraryId = typeof Effect4LibraryId.Type

const Job = Schema.Struct({
  mode: Schema.Literals([
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
  ]),
  route: Schema.Literals(["ok", "fail-once", "always-503", "sparse", "switch"]),
  keyPrefix: Schema.String,
  count: Schema.Int,
  concurrency: Schema.Int,
  latencies: Schema.Boolean,
  allocations: Schema.Boolean,
  memory: Schema.Boolean,
  origin: Schema.optional(Schema.String),
  failingShare: Schema.optional(Schema.Number),
  ratePerSecond: Schema.optional(Schema.Number)
})

export const ToWorker = Schema.Union([Schema.TaggedStruct("Run", { id: Schema.Number, job: Job })])

/** The hedging section's configurations, as the parent's `HedgingMode`. */
export const HedgingMode = Schema.Literals(["off", "fixed-10ms", "fixed-p95", "percentile", "percentile-budget"])

const HedgingRun = Schema.Struct({
  url: Schema.String,
  count: Schema.Int,
  concurrency: Schema.Int,
  ratePerSecond: Schema.Number
})

export const ToHedgingClient = Schema.Union([Schema.TaggedStruct("RunHedging", { id: Schema.Number, run: HedgingRun })])

/** The limits section's policies, as the parent's `LimitsMode`. */
const LimitsMode = Schema.Literals([
  "none",
  "fixed-32",
  "adaptive-gradient2",
  "adaptive-aimd",
  "rate-limit-headers",
  "rate-limit",
  "rate-limit-and-headers"
])

const LimitsRun = Schema.Struct({
  url: Schema.String,
  mode: LimitsMode,
  callers: Schema.Int,
  untilMillis: Schema.optional(Schema.Number),
  count: Schema.optional(Schema.Int),
  refusedPauseMillis: Schema.Number
})

export const ToLimitsClient = Schema.Union([Schema.TaggedStruct("RunLimits", { id: Schema.Number, run: LimitsRun })])

// Both ways assignable: the same type as the parent's (tsc rejects this file when they drift).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
true satisfies Same<typeof ToWorker.Type, Protocol.ToWorker> &
  Same<Effect4LibraryId, Extract<Protocol.LibraryId, `effect4${string}`>> &
  Same<typeof HedgingMode.Type, Protocol.HedgingMode> &
  Same<typeof ToHedgingClient.Type, Protocol.ToHedgingClient> &
  Same<typeof LimitsMode.Type, Protocol.LimitsMode> &
  Same<typeof ToLimitsClient.Type, Protocol.ToLimitsClient>
