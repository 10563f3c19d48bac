import * as Duration from "effect/Duration"
import * as Either from "effect/Either"
import { InvalidRetryPolicy } from "./invalidOption.js"

/** @internal */
export type Validated<A> = Either.Either<A, InvalidRetryPolicy>

/** @internal */
export const invalid = (option: string, reason: string, value: unknown): Validated<never> =>
  Either.left(new InvalidRetryPolicy({ option, reason, value }))

/**
 * The options record, after checking that it is one and that every key is an option: a
 * misspelt option is an error, not a silently applied default.
 *
 * @internal
 */
export const optionsRecord = (
  prefix: string,
  input: unknown,
  names: ReadonlyArray<string>
): Validated<Readonly<Record<string, unknown>>> => {
  if (input === undefined) return Either.right({})
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return invalid(prefix, "must be an options object", input)
  }
  for (const [key, value] of Object.entries(input)) {
    if (!names.includes(key)) {
      return invalid(`${prefix}.${key}`, `is not an option (the options are ${names.join(", ")})`, value)
    }
  }
  return Either.right(Object.fromEntries(Object.entries(input)))
}

/**
 * A duration option in milliseconds; its range is the core's to check. `Duration.decode` would
 * turn a negative number into zero, so that is refused here, naming the option.
 *
 * @internal
 */
export const durationMillis = (option: string, input: unknown): Validated<number> => {
  if (typeof input === "number" && !(input >= 0)) return invalid(option, "must be a duration, not negative", input)
  const decoded = Duration.decodeUnknown(input)
  return decoded._tag === "Some"
    ? Either.right(Duration.toMillis(decoded.value))
    : invalid(option, "is not a duration", input)
}

/**
 * A core validation result as the typed error, with the option's full name and the value the
 * user gave (not its decoded form: "0.2 seconds", not 200).
 *
 * @internal
 */
export const fromCoreCheck = <A>(
  prefix: string,
  settings: A,
  problem: { readonly option: string; readonly reason: string; readonly value: unknown } | undefined,
  given: Readonly<Record<string, unknown>>
): Validated<A> =>
  problem === undefined
    ? Either.right(settings)
    : invalid(
        `${prefix}.${problem.option}`,
        problem.reason,
        problem.option in given ? given[problem.option] : problem.value
      )
