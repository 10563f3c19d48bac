// @generated from templates/src/internal/invalidOption.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The error every bad option of this library is, and how options are read: the checks are the
// shared core's (the same names, ranges and messages on both lines); this module gives them
// Effect 4's Duration and Result.
import * as Settings from "@effect-http-resilience/core/Settings"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Result from "effect/Result"
import * as line from "./line.js"

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
  // The value as the message writes it, secrets redacted (a password, a URL's credentials): the
  // value itself could be anything, a client with its options included.
  override toJSON(): unknown {
    return {
      _tag: this._tag,
      option: this.option,
      reason: this.reason,
      value: Settings.describeInvalid(this, describeDuration),
      message: this.message
    }
  }
}

// Inspected as its JSON, as Effect 4's errors are (Effect 3's would show the value as it is).
line.inspectAsJson(InvalidRetryPolicy)

/** @internal */
export class IsTransientStatusError extends Data.TaggedError("IsTransientStatusError")<{
  readonly status: number
  readonly cause: unknown
}> {
  override get message(): string {
    return Settings.predicateThrewMessage(this.status, this.cause)
  }
}

/** @internal */
export type Validated<A> = Result.Result<A, InvalidRetryPolicy>

/** @internal */
export const fromChecked = <A>(checked: Settings.Checked<A>): Validated<A> =>
  checked._tag === "Valid" ? Result.succeed(checked.value) : Result.fail(new InvalidRetryPolicy(checked.problem))

/** Effect 4's Duration, as the core's option checks read durations. @internal */
export const durationCodec: Settings.DurationCodec<Duration.Duration> = {
  decode: line.decodeDuration,
  infinity: Duration.infinity,
  toMillis: Duration.toMillis,
  describe: describeDuration
}

/**
 * A stage constructor's checked options, or the {@link InvalidRetryPolicy} it throws, as
 * `RetryPolicy.make` does.
 *
 * @internal
 */
export const orThrow = <A>(checked: Settings.Checked<A | undefined>, option: string): A => {
  if (checked._tag === "Invalid") throw new InvalidRetryPolicy(checked.problem)
  if (checked.value === undefined) throw new InvalidRetryPolicy({ option, reason: "is required", value: undefined })
  return checked.value
}
