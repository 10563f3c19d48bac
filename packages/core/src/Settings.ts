/**
 * Checking option records as both libraries do: a misspelt option is an error, not a silently
 * applied default; a bad value is named as the caller wrote it (`NaN`, `Infinity`, `10n`, `the
 * function f`, never JSON's `null` for them). Durations are the libraries' own type: a
 * {@link DurationCodec} says how to read one.
 *
 * @example
 * ```ts
 * import type { Settings } from "@effect-http-resilience/core"
 *
 * const problem: Settings.InvalidSetting = { option: "maxAttempts", reason: "must be a whole number", value: 2.5 }
 * ```
 *
 * @since 0.1.0
 */
import { redactValue } from "./Redaction.js"

/**
 * A bad setting: which option (its full or relative name), why, and the value given.
 *
 * @since 0.1.0
 * @category models
 */
export interface InvalidSetting {
  readonly option: string
  readonly reason: string
  readonly value: unknown
}

/**
 * A value that passed its checks, or the first bad setting.
 *
 * @since 0.1.0
 * @category models
 */
export type Checked<A> =
  | { readonly _tag: "Valid"; readonly value: A }
  | { readonly _tag: "Invalid"; readonly problem: InvalidSetting }

/**
 * A value that passed its checks.
 *
 * @since 0.1.0
 * @category constructors
 */
export const valid = <A>(value: A): Checked<A> => ({ _tag: "Valid", value })

/**
 * A bad setting.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalid = (option: string, reason: string, value: unknown): Checked<never> => ({
  _tag: "Invalid",
  problem: { option, reason, value }
})

/**
 * Chains a check on a value that passed.
 *
 * @since 0.1.0
 * @category combinators
 */
export const andThen = <A, B>(self: Checked<A>, f: (value: A) => Checked<B>): Checked<B> =>
  self._tag === "Valid" ? f(self.value) : self

/**
 * Every field checked, in order: the first bad one wins.
 *
 * @since 0.1.0
 * @category combinators
 */
export const all = <R extends Record<string, Checked<unknown>>>(
  fields: R
): Checked<{ -readonly [K in keyof R]: R[K] extends Checked<infer A> ? A : never }> => {
  const values: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(fields)) {
    if (field._tag === "Invalid") return field
    values[key] = field.value
  }
  return valid(values as { -readonly [K in keyof R]: R[K] extends Checked<infer A> ? A : never })
}

/**
 * Whether a value is a plain object (an options record): its prototype is a root one
 * (`Object.prototype` of any realm, or none). Arrays, Maps, Dates and class instances are not.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isPlainObject = (u: unknown): u is Readonly<Record<string, unknown>> => {
  if (typeof u !== "object" || u === null) return false
  const prototype: unknown = Object.getPrototypeOf(u)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}

// A value an error does not show, for it may hold a secret (a password in a URL, a client's
// options given where a client was expected): the error names its kind only.
class Withheld {
  readonly _tag = "Withheld"
  constructor(
    /** What the value was: "a string", "an object", ... */
    readonly kind: string
  ) {}
}

/**
 * The value as an error may show it, when it may hold a secret: strings, arrays and objects are
 * withheld, named by their kind; numbers, booleans, `null` and `undefined` are shown.
 *
 * @since 0.2.0
 * @category formatting
 */
export const withheld = (value: unknown): unknown => {
  if (typeof value === "string") return new Withheld("a string")
  if (Array.isArray(value)) return new Withheld("an array")
  if (typeof value === "object" && value !== null)
    return new Withheld(isPlainObject(value) ? "an object" : describeValue(value))
  return value
}

const describedEntries = 8
const describedLength = 200

/**
 * Names a value as the caller wrote it, shortened to 200 characters. JSON would print NaN and
 * Infinity as null and drop undefined, symbols and functions: a message would then blame a
 * value never given. `special` names values of the caller's own types (a `Duration`). No secret
 * is written (`Redaction.redactValue`): a string's URL credentials and secret query parameters
 * are redacted, and so is a string held by a secret's name (`name`, the option's, or a field's).
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeValue = (
  value: unknown,
  special?: (value: object) => string | undefined,
  name?: string
): string => {
  let described: string
  try {
    described = describeNested(value, 0, special, name)
  } catch {
    described = "a value that cannot be printed"
  }
  return described.length > describedLength ? `${described.slice(0, describedLength - 1)}…` : described
}

const describeNested = (
  value: unknown,
  depth: number,
  special: ((value: object) => string | undefined) | undefined,
  name?: string
): string => {
  switch (typeof value) {
    case "number":
      return Object.is(value, -0) ? "-0" : String(value)
    case "bigint":
      return `${value}n`
    case "string":
      return JSON.stringify(redactValue(value, name))
    case "boolean":
    case "undefined":
      return String(value)
    case "symbol":
      return value.toString()
    case "function":
      return value.name === "" ? "an anonymous function" : `the function ${value.name}`
  }
  if (value === null || typeof value !== "object") return String(value)
  if (value instanceof Withheld) return `${value.kind}, not shown as it may hold a secret`
  const named = special?.(value)
  if (named !== undefined) return named
  if (Array.isArray(value)) {
    if (depth >= 2) return "[…]"
    const items: Array<unknown> = value
    const shown = items.slice(0, describedEntries).map((item) => describeNested(item, depth + 1, special))
    return `[${[...shown, ...(items.length > describedEntries ? ["…"] : [])].join(", ")}]`
  }
  if (isPlainObject(value)) {
    if (depth >= 2) return "{…}"
    const entries = Object.entries(value)
    if (entries.length === 0) return "{}"
    const shown = entries
      .slice(0, describedEntries)
      .map(([key, item]) => `${key}: ${describeNested(item, depth + 1, special, key)}`)
    return `{ ${[...shown, ...(entries.length > describedEntries ? ["…"] : [])].join(", ")} }`
  }
  if (value instanceof Date) return `a Date (${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`
  const maker: unknown = "constructor" in value ? value.constructor : undefined
  return typeof maker === "function" && maker.name !== "" ? `an instance of ${maker.name}` : "an object"
}

/**
 * The message of a bad retry policy option.
 *
 * @since 0.1.0
 * @category formatting
 */
export const invalidMessage = (problem: InvalidSetting, special?: (value: object) => string | undefined): string =>
  `Invalid retry policy option "${problem.option}": ${problem.reason} (got ${describeInvalid(problem, special)})`

/**
 * The value of a bad option as its message writes it ({@link describeValue}), a secret redacted:
 * what the option's own name (`layerRedis.password`) or a field's says is one, and a URL's
 * credentials.
 *
 * @since 0.2.0
 * @category formatting
 */
export const describeInvalid = (problem: InvalidSetting, special?: (value: object) => string | undefined): string =>
  describeValue(problem.value, special, lastName(problem.option))

// An option's own name: the last of its path (`layerRedis.password`, `extra[0].reset`).
const lastName = (option: string): string | undefined =>
  option
    .split(/[.[\]]/)
    .filter((part) => part !== "")
    .at(-1)

/**
 * The message of a defect thrown by a caller's `isTransientStatus`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const predicateThrewMessage = (status: number, cause: unknown): string =>
  `Retry policy option "isTransientStatus" threw for status ${status}: ${cause instanceof Error ? cause.message : describeValue(cause)}`

/**
 * The options record, after checking that it is one and that every key is an option: a
 * misspelt option is an error, not a silently applied default. `undefined` is the empty record.
 *
 * @since 0.1.0
 * @category checks
 */
export const optionsRecord = (
  prefix: string,
  input: unknown,
  names: ReadonlyArray<string>
): Checked<Readonly<Record<string, unknown>>> => {
  if (input === undefined) return valid({})
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return invalid(prefix, "must be an options object", input)
  }
  for (const [key, value] of Object.entries(input)) {
    if (!names.includes(key)) {
      return invalid(`${prefix}.${key}`, `is not an option (the options are ${names.join(", ")})`, value)
    }
  }
  return valid(Object.fromEntries(Object.entries(input)))
}

/**
 * A numeric option or its default; a value that is not a number is kept as NaN, for the range
 * check to refuse by name.
 *
 * @since 0.1.0
 * @category checks
 */
export const numberOr = (value: unknown, fallback: number): number =>
  value === undefined ? fallback : typeof value === "number" ? value : Number.NaN

/**
 * A range check's result with the option's full name, and the value the user gave (not its
 * decoded form: "0.2 seconds", not 200).
 *
 * @since 0.1.0
 * @category checks
 */
export const fromCheck = <A>(
  prefix: string,
  settings: A,
  problem: InvalidSetting | undefined,
  given: Readonly<Record<string, unknown>>
): Checked<A> =>
  problem === undefined
    ? valid(settings)
    : invalid(
        `${prefix}.${problem.option}`,
        problem.reason,
        problem.option in given ? given[problem.option] : problem.value
      )

/**
 * How a library reads its own duration type: `decode` gives the duration an input denotes, or
 * `undefined` when it denotes none; the checks around it (NaN, negative, `"infinity"`, finite,
 * zero, under a millisecond) are this module's.
 *
 * @since 0.1.0
 * @category models
 */
export interface DurationCodec<D> {
  readonly decode: (input: unknown) => D | undefined
  readonly infinity: D
  readonly toMillis: (duration: D) => number
  /**
   * How a message shows a value of the library's own duration type that an option was given
   * (`"1m"` for an Effect `Duration`), as `describeValue`'s `special` does; other values are
   * shown as `describeValue` shows them.
   */
  readonly describe?: ((value: object) => string | undefined) | undefined
}

/**
 * What a duration option allows.
 *
 * @since 0.1.0
 * @category models
 */
export interface DurationConstraints {
  readonly allowInfinite: boolean
  /**
   * Whether zero (and so anything) is allowed. If not, the least is 1 millisecond: timers
   * count whole milliseconds, so a shorter limit or cap acts as zero.
   */
  readonly allowZero: boolean
  /** Why zero is refused, said after "must be greater than zero". */
  readonly whyNotZero?: string | undefined
}

// Effect's duration decoders read NaN, and a tuple holding one, as zero.
const holdsNaN = (input: unknown): boolean =>
  Number.isNaN(input) || (Array.isArray(input) && input.some((part) => Number.isNaN(part)))

// ... and clamp a negative number to zero.
const isNegativeInput = (input: unknown): boolean => {
  if (typeof input === "number") return input < 0
  if (typeof input === "bigint") return input < BigInt(0)
  if (typeof input === "string") return input.trim().startsWith("-")
  if (Array.isArray(input)) return input.some((part) => typeof part === "number" && part < 0)
  return false
}

/**
 * A duration option: not NaN, not negative, `"infinity"` (any case) read as infinity, then
 * decoded and held to its constraints.
 *
 * @since 0.1.0
 * @category checks
 */
export const duration = <D>(
  codec: DurationCodec<D>,
  option: string,
  input: unknown,
  constraints: DurationConstraints
): Checked<D> => {
  if (holdsNaN(input)) return invalid(option, "is not a duration", input)
  if (isNegativeInput(input)) return invalid(option, "must not be negative", input)
  const decoded =
    typeof input === "string" && input.trim().toLowerCase() === "infinity" ? codec.infinity : codec.decode(input)
  if (decoded === undefined) return invalid(option, "is not a duration", input)
  const millis = codec.toMillis(decoded)
  // A decoder may know negative durations of its own (an object of negative parts).
  if (millis < 0) return invalid(option, "must not be negative", input)
  if (!constraints.allowInfinite && !Number.isFinite(millis)) return invalid(option, "must be finite", input)
  if (!constraints.allowZero && millis === 0) {
    const why = constraints.whyNotZero === undefined ? "" : `: ${constraints.whyNotZero}`
    return invalid(option, `must be greater than zero${why}`, input)
  }
  if (!constraints.allowZero && millis < 1) {
    return invalid(option, "must be at least 1 millisecond: timers count whole milliseconds", input)
  }
  return valid(decoded)
}

/**
 * A duration option in milliseconds whose range the caller checks; a negative number is
 * refused here, naming the option, since a decoder would turn it into zero.
 *
 * @since 0.1.0
 * @category checks
 */
export const durationMillis = <D>(codec: DurationCodec<D>, option: string, input: unknown): Checked<number> => {
  if (typeof input === "number" && !(input >= 0)) return invalid(option, "must be a duration, not negative", input)
  const decoded = codec.decode(input)
  return decoded === undefined ? invalid(option, "is not a duration", input) : valid(codec.toMillis(decoded))
}

/**
 * One of a list of strings.
 *
 * @since 0.1.0
 * @category checks
 */
export const choice = <A extends string>(option: string, allowed: ReadonlyArray<A>, input: unknown): Checked<A> => {
  const found = allowed.find((candidate) => candidate === input)
  return found !== undefined
    ? valid(found)
    : invalid(option, `must be one of ${allowed.map((candidate) => `"${candidate}"`).join(", ")}`, input)
}
