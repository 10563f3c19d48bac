// The error every bad option of this library is, and how it names the value given (the
// wording is the shared core's). A module of its own: the policy, the budget and the breaker all
// validate options with it.
import * as Settings from "@effect-http-resilience/core/Settings"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"

const describeDuration = (value: object): string | undefined =>
  Duration.isDuration(value) ? Duration.format(value) : undefined

/** @internal */
export class InvalidRetryPolicy extends Data.TaggedError("InvalidRetryPolicy")<{
  readonly option: string
  readonly reason: string
  readonly value: unknown
}> {
  override get message(): string {
    return Settings.invalidMessage(this, describeDuration)
  }
}

/** @internal */
export class IsTransientStatusError extends Data.TaggedError("IsTransientStatusError")<{
  readonly status: number
  readonly cause: unknown
}> {
  override get message(): string {
    return Settings.predicateThrewMessage(this.status, this.cause)
  }
}
