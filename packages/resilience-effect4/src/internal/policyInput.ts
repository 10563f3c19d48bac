import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import * as Schedule from "effect/Schedule"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import type { InvalidRetryPolicy } from "./invalidOption.js"
import { type Guards, makeGuards } from "./overload.js"
import { withRetryAfter } from "./retryAfterSchedule.js"
import * as retryPolicy from "./retryPolicy.js"

/**
 * What a policy input comes to, for the attempt loop: the schedule that decides waits, what
 * must never be retried whatever the schedule says, the time limits, and the guards.
 *
 * @internal
 */
export interface ResolvedPolicy {
  readonly schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>
  readonly refusal: (failure: HttpFailure.HttpFailure) => RetryPolicy.GiveUpReason | undefined
  readonly isTransientStatus: (status: number) => boolean
  /** `Infinity` when off. */
  readonly attemptTimeoutMillis: number
  /** `Infinity` when off. */
  readonly totalTimeoutMillis: number
  readonly maxBodyBytes: number
  /** The retry budget and circuit breaker, one set per client. */
  readonly guards: Guards
}

/**
 * The three accepted inputs: a validated policy, plain options (validated here), or any
 * `Schedule` over failures.
 *
 * @internal
 */
export type PolicyInput =
  | RetryPolicy.RetryPolicy
  | RetryPolicy.Options
  | Schedule.Schedule<unknown, HttpFailure.HttpFailure>

const fromPolicy = (policy: RetryPolicy.RetryPolicy): ResolvedPolicy => ({
  schedule: retryPolicy.toSchedule(policy),
  refusal: (failure) => retryPolicy.nonRetryableReason(failure, policy),
  isTransientStatus: policy.isTransientStatus,
  attemptTimeoutMillis: Duration.toMillis(policy.attemptTimeout),
  totalTimeoutMillis: Duration.toMillis(policy.totalTimeout),
  maxBodyBytes: policy.maxBodyBytes,
  guards: makeGuards(policy)
})

// A caller's own schedule decides when and how long, with the default Retry-After handling and
// cap applied; what must never be retried stays out of its reach, and the default limits apply.
const fromSchedule = (schedule: Schedule.Schedule<unknown, HttpFailure.HttpFailure>): ResolvedPolicy => ({
  ...fromPolicy(retryPolicy.defaultPolicy),
  schedule: withRetryAfter(schedule, {
    maxDelay: retryPolicy.defaultPolicy.maxDelay,
    whenRetryAfterExceedsMaxDelay: retryPolicy.defaultPolicy.whenRetryAfterExceedsMaxDelay
  })
})

/** @internal */
export const resolve = (input: PolicyInput | undefined): Result.Result<ResolvedPolicy, InvalidRetryPolicy> => {
  // Resolved anew for each client: each has budgets and breakers of its own.
  if (input === undefined) return Result.succeed(fromPolicy(retryPolicy.defaultPolicy))
  if (Schedule.isSchedule(input)) return Result.succeed(fromSchedule(input))
  if (retryPolicy.isRetryPolicy(input)) return Result.succeed(fromPolicy(input))
  return Result.map(retryPolicy.validate(input), fromPolicy)
}
