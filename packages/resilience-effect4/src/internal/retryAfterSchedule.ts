// @generated from templates/src/internal/retryAfterSchedule.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as RetrySchedule from "@effect-http-resilience/core/RetrySchedule"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import { dual } from "effect/Function"
import * as Schedule from "effect/Schedule"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as line from "./line.js"
import * as retryPolicy from "./retryPolicy.js"

/** @internal */
export interface RetryAfterOptions {
  readonly maxDelay?: Duration.Input | undefined
  readonly whenRetryAfterExceedsMaxDelay?: RetryPolicy.OverCapMode | undefined
}

/**
 * Wraps the schedule: its wait, replaced by the server's delay and capped (the core's rule); a
 * server's delay over the cap under "give-up" ends the schedule with its last output.
 *
 * @internal
 */
export const withRetryAfter = dual<
  (
    options?: RetryAfterOptions
  ) => <Out, E, R>(
    self: Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>
  ) => Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>,
  <Out, E, R>(
    self: Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>,
    options?: RetryAfterOptions
  ) => Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>
>(
  (args) => Schedule.isSchedule(args[0]),
  <Out, E, R>(self: Schedule.Schedule<Out, HttpFailure.HttpFailure, E, R>, options: RetryAfterOptions = {}) => {
    // The same validation as a policy's, for the same two options.
    const policy = Result.getOrThrowWith(
      retryPolicy.validate({
        maxDelay: options.maxDelay,
        whenRetryAfterExceedsMaxDelay: options.whenRetryAfterExceedsMaxDelay
      }),
      (error) => error
    )
    const cap = {
      capMillis: Duration.toMillis(policy.maxDelay),
      giveUpOverCap: policy.whenRetryAfterExceedsMaxDelay === "give-up"
    }
    // The rule is the shared core's: the server's delay replaces the wait, capped; over the cap
    // under "give-up", no wait at all (the schedule stops).
    return line.stopOrDelay(self, (failure, delayMillis) =>
      RetrySchedule.withServerDelay(delayMillis, retryPolicy.serverDelayMillis(failure), cap)
    )
  }
)
