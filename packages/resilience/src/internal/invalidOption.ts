// The error every bad option of this library is, and how it names the value given. A module of
// its own: the policy, the budget and the breaker all validate options with it.
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Predicate from "effect/Predicate"

/** @internal */
export class InvalidRetryPolicy extends Data.TaggedError("InvalidRetryPolicy")<{
  readonly option: string
  readonly reason: string
  readonly value: unknown
}> {
  override get message(): string {
    return `Invalid retry policy option "${this.option}": ${this.reason} (got ${describeValue(this.value)})`
  }
}

/** @internal */
export class IsTransientStatusError extends Data.TaggedError("IsTransientStatusError")<{
  readonly status: number
  readonly cause: unknown
}> {
  override get message(): string {
    const thrown = this.cause instanceof Error ? this.cause.message : describeValue(this.cause)
    return `Retry policy option "isTransientStatus" threw for status ${this.status}: ${thrown}`
  }
}

// An options record is a plain object: its prototype is a root one (Object.prototype of any
// realm, or none). Arrays, Maps, Dates and class instances have their own prototypes.
/** @internal */
export const isPlainObject = (u: unknown): boolean => {
  if (typeof u !== "object" || u === null) return false
  const prototype: unknown = Object.getPrototypeOf(u)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}

const describedEntries = 8
const describedLength = 200

// Names a value as the caller wrote it. JSON would print NaN and Infinity as null and drop
// undefined, symbols and functions: the message would then blame a value never given.
/** @internal */
export const describeValue = (value: unknown): string => {
  let described: string
  try {
    described = describeNested(value, 0)
  } catch {
    described = "a value that cannot be printed"
  }
  return described.length > describedLength ? `${described.slice(0, describedLength - 1)}…` : described
}

const describeNested = (value: unknown, depth: number): string => {
  switch (typeof value) {
    case "number":
      return Object.is(value, -0) ? "-0" : String(value)
    case "bigint":
      return `${value}n`
    case "string":
      return JSON.stringify(value)
    case "boolean":
    case "undefined":
      return String(value)
    case "symbol":
      return value.toString()
    case "function":
      return value.name === "" ? "an anonymous function" : `the function ${value.name}`
  }
  if (value === null || typeof value !== "object") return String(value)
  if (Duration.isDuration(value)) return Duration.format(value)
  if (Array.isArray(value)) {
    if (depth >= 2) return "[…]"
    const items: Array<unknown> = value
    const shown = items.slice(0, describedEntries).map((item) => describeNested(item, depth + 1))
    return `[${[...shown, ...(items.length > describedEntries ? ["…"] : [])].join(", ")}]`
  }
  if (isPlainObject(value)) {
    if (depth >= 2) return "{…}"
    const entries = Object.entries(value)
    if (entries.length === 0) return "{}"
    const shown = entries.slice(0, describedEntries).map(([key, item]) => `${key}: ${describeNested(item, depth + 1)}`)
    return `{ ${[...shown, ...(entries.length > describedEntries ? ["…"] : [])].join(", ")} }`
  }
  if (value instanceof Date) return `a Date (${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`
  const maker: unknown = Predicate.hasProperty(value, "constructor") ? value.constructor : undefined
  return typeof maker === "function" && maker.name !== "" ? `an instance of ${maker.name}` : "an object"
}
