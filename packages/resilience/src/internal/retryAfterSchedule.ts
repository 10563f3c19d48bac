import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { dual } from "effect/Function"
import * as Schedule from "effect/Schedule"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as retryPolicy from "./retryPolicy.js"

/** @internal */
export interface RetryAfterOptions {
  readonly maxDelay?: Duration.DurationInput | undefined
  readonly whenRetryAfterExceedsMaxDelay?: RetryPolicy.OverCapMode | undefined
}

const serverDelayMillis = (failure: HttpFailure.HttpFailure): number | undefined =>
  failure._tag === "TransientStatus" && failure.retryAfter._tag === "Some"
    ? Duration.toMillis(failure.retryAfter.value)
    : undefined

/** @internal */
export const withRetryAfter = dual<
  (
    options?: RetryAfterOptions
  ) => <Out, R>(
    self: Schedule.Schedule<Out, HttpFailure.HttpFailure, R>
  ) => Schedule.Schedule<Out, HttpFailure.HttpFailure, R>,
  <Out, R>(
    self: Schedule.Schedule<Out, HttpFailure.HttpFailure, R>,
    options?: RetryAfterOptions
  ) => Schedule.Schedule<Out, HttpFailure.HttpFailure, R>
>(
  (args) => Schedule.isSchedule(args[0]),
  <Out, R>(self: Schedule.Schedule<Out, HttpFailure.HttpFailure, R>, options: RetryAfterOptions = {}) => {
    // The same validation as a policy's, for the same two options.
    const policy = Either.getOrThrowWith(
      retryPolicy.validate({
        maxDelay: options.maxDelay,
        whenRetryAfterExceedsMaxDelay: options.whenRetryAfterExceedsMaxDelay
      }),
      (error) => error
    )
    const capMillis = Duration.toMillis(policy.maxDelay)
    const giveUpOverCap = policy.whenRetryAfterExceedsMaxDelay === "give-up"
    return Schedule.intersect(self, Schedule.identity<HttpFailure.HttpFailure>()).pipe(
      Schedule.whileInput((failure: HttpFailure.HttpFailure) => {
        const server = serverDelayMillis(failure)
        return !(giveUpOverCap && server !== undefined && server > capMillis)
      }),
      Schedule.modifyDelay(([, failure], delay) =>
        Duration.millis(Math.min(serverDelayMillis(failure) ?? Duration.toMillis(delay), capMillis))
      ),
      Schedule.map(([out]) => out)
    )
  }
)
