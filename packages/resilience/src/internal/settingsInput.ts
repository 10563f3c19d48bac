// How this line reads options with the shared core's checks: Effect 3's Duration as the core's
// duration type, and the core's verdict as an Either of the library's typed error.
import type * as Settings from "@effect-http-resilience/core/Settings"
import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { InvalidRetryPolicy } from "./invalidOption.js"

/** @internal */
export type Validated<A> = Either.Either<A, InvalidRetryPolicy>

/** @internal */
export const durationCodec: Settings.DurationCodec<Duration.Duration> = {
  decode: (input) => Option.getOrUndefined(Duration.decodeUnknown(input)),
  infinity: Duration.infinity,
  toMillis: Duration.toMillis
}

/** @internal */
export const fromChecked = <A>(checked: Settings.Checked<A>): Validated<A> =>
  checked._tag === "Valid" ? Either.right(checked.value) : Either.left(new InvalidRetryPolicy(checked.problem))
