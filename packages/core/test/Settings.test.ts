import { describe, expect, it } from "vitest"
import * as RetryPolicyOptions from "../src/RetryPolicyOptions.js"
import * as Settings from "../src/Settings.js"

// Milliseconds as the duration type: numbers, and "<n> millis" strings.
const millis: Settings.DurationCodec<number> = {
  decode: (input) => {
    if (typeof input === "number") return input
    const match = typeof input === "string" ? /^(\d+) millis$/.exec(input) : null
    return match === null ? undefined : Number(match[1])
  },
  infinity: Number.POSITIVE_INFINITY,
  toMillis: (duration) => duration
}
const hooks: RetryPolicyOptions.Hooks<number> = {
  duration: millis,
  defaultInputs: {
    backoff: { _tag: "Exponential", base: 500, factor: 2 },
    maxDelay: 30_000,
    maxElapsed: "infinity",
    attemptTimeout: 10_000,
    totalTimeout: 30_000
  },
  predicateThrew: (status, cause) => new Error(Settings.predicateThrewMessage(status, cause))
}
const problemOf = (checked: Settings.Checked<unknown>) => (checked._tag === "Invalid" ? checked.problem : undefined)

describe("Settings", () => {
  it("names values as written", () => {
    expect(Settings.describeValue({ a: Number.NaN, b: undefined, c: -0, d: 10n, e: Symbol("x") })).toBe(
      "{ a: NaN, b: undefined, c: -0, d: 10n, e: Symbol(x) }"
    )
    expect(Settings.describeValue(function named() {})).toBe("the function named")
    expect(Settings.describeValue(new Map())).toBe("an instance of Map")
    expect(Settings.describeValue({ d: 5 }, (value) => ("d" in value ? "5 units" : undefined))).toBe("5 units")
    expect(Settings.describeValue("x".repeat(500)).length).toBe(200)
    // No secret: a URL's credentials and secret parameters, a string under a secret's name.
    expect(Settings.describeValue("redis://user:hunter2@host:6379/0?token=T")).toBe(
      '"redis://REDACTED:REDACTED@host:6379/0?token=REDACTED"'
    )
    expect(
      Settings.describeValue({ url: "http://u:p@h/", password: "hunter2", nested: { api_key: "k", size: 1 } })
    ).toBe('{ url: "http://REDACTED:REDACTED@h/", password: "REDACTED", nested: { api_key: "REDACTED", size: 1 } }')
    expect(Settings.describeValue("hunter2", undefined, "Proxy-Authorization")).toBe('"REDACTED"')
    expect(Settings.describeValue(42, undefined, "password")).toBe("42")
  })

  it("a value that may hold a secret is named by its kind, never shown", () => {
    for (const [value, kind] of [
      ["redis://:s3cret@host", "a string"],
      [{ password: "s3cret" }, "an object"],
      [["s3cret"], "an array"]
    ] as const) {
      const shown = Settings.withheld(value)
      const message = Settings.invalidMessage({
        option: "layerRedis.password",
        reason: "is not an option",
        value: shown
      })
      expect(message).toBe(
        `Invalid retry policy option "layerRedis.password": is not an option (got ${kind}, not shown as it may hold a secret)`
      )
      expect(JSON.stringify(shown)).not.toContain("s3cret")
    }
    expect(Settings.withheld(42)).toBe(42)
  })

  it("an options record: unknown names refused, values checked in order", () => {
    expect(problemOf(Settings.optionsRecord("p", { ratoi: 1 }, ["ratio"]))).toEqual({
      option: "p.ratoi",
      reason: "is not an option (the options are ratio)",
      value: 1
    })
    expect(problemOf(Settings.optionsRecord("p", [], ["ratio"]))?.reason).toBe("must be an options object")
    expect(
      Settings.all({ a: Settings.valid(1), b: Settings.invalid("b", "bad", 2), c: Settings.invalid("c", "bad", 3) })
    ).toEqual(Settings.invalid("b", "bad", 2))
  })

  it("durations: NaN, negative, infinity, zero and sub-millisecond limits", () => {
    const limit = { allowInfinite: true, allowZero: false }
    expect(problemOf(Settings.duration(millis, "t", Number.NaN, limit))?.reason).toBe("is not a duration")
    expect(problemOf(Settings.duration(millis, "t", "-1 millis", limit))?.reason).toBe("must not be negative")
    expect(Settings.duration(millis, "t", " Infinity ", limit)).toEqual(Settings.valid(Number.POSITIVE_INFINITY))
    expect(problemOf(Settings.duration(millis, "t", "infinity", { ...limit, allowInfinite: false }))?.reason).toBe(
      "must be finite"
    )
    expect(problemOf(Settings.duration(millis, "t", 0, limit))?.reason).toBe("must be greater than zero")
    expect(problemOf(Settings.duration(millis, "t", 0.5, limit))?.reason).toBe(
      "must be at least 1 millisecond: timers count whole milliseconds"
    )
    expect(problemOf(Settings.duration(millis, "t", "soon", limit))?.reason).toBe("is not a duration")
  })

  it("retry hints: the default names, lists lower-cased, [] for none, a bad name refused by its place", () => {
    const defaults = RetryPolicyOptions.check(undefined, hooks)
    if (defaults._tag !== "Valid") throw new Error("expected a valid policy")
    expect(defaults.value.retryHints).toEqual({
      retryAfterMillis: ["retry-after-ms"],
      shouldRetry: ["x-should-retry", "stripe-should-retry"]
    })
    expect(defaults.value.isTransientStatus(529)).toBe(true)
    const renamed = RetryPolicyOptions.check({ retryHints: { shouldRetry: ["X-Retry-Please"] } }, hooks)
    if (renamed._tag !== "Valid") throw new Error("expected a valid policy")
    expect(renamed.value.retryHints).toEqual({ retryAfterMillis: ["retry-after-ms"], shouldRetry: ["x-retry-please"] })
    const none = RetryPolicyOptions.check({ retryHints: { retryAfterMillis: [], shouldRetry: [] } }, hooks)
    if (none._tag !== "Valid") throw new Error("expected a valid policy")
    expect(none.value.retryHints).toEqual({ retryAfterMillis: [], shouldRetry: [] })
    expect(problemOf(RetryPolicyOptions.check({ retryHints: { shouldRetry: ["a b"] } }, hooks))).toMatchObject({
      option: "retryHints.shouldRetry[0]",
      value: "a b"
    })
    expect(problemOf(RetryPolicyOptions.check({ retryHints: { shouldRetry: "x-should-retry" } }, hooks))?.option).toBe(
      "retryHints.shouldRetry"
    )
    expect(
      problemOf(RetryPolicyOptions.check({ retryHints: { retryAfterMillis: ["a", "b", "c", "d", "e"] } }, hooks))
        ?.option
    ).toBe("retryHints.retryAfterMillis")
    expect(problemOf(RetryPolicyOptions.check({ retryHints: { retryAfter: [] } }, hooks))?.option).toBe(
      "retryHints.retryAfter"
    )
    expect(problemOf(RetryPolicyOptions.check({ retryHints: true }, hooks))?.option).toBe("retryHints")
  })

  it("retry policy options: defaults, names, nulls, whole attempts, choices, a throwing predicate", () => {
    const checked = RetryPolicyOptions.check(undefined, hooks)
    expect(checked._tag).toBe("Valid")
    if (checked._tag === "Valid") {
      expect(checked.value.maxAttempts).toBe(3)
      expect(checked.value.maxElapsed).toBe(Number.POSITIVE_INFINITY)
      expect(checked.value.isTransientStatus(503)).toBe(true)
    }
    expect(problemOf(RetryPolicyOptions.check({ maxAttempt: 3 }, hooks))).toMatchObject({ option: "maxAttempt" })
    expect(problemOf(RetryPolicyOptions.check({ jitter: null }, hooks))?.reason).toBe(
      "must not be null: omit the option for its default"
    )
    expect(problemOf(RetryPolicyOptions.check(null, hooks))?.option).toBe("options")
    expect(problemOf(RetryPolicyOptions.check([], hooks))?.option).toBe("options")
    expect(problemOf(RetryPolicyOptions.check({ maxAttempts: 2.5 }, hooks))?.option).toBe("maxAttempts")
    expect(problemOf(RetryPolicyOptions.check({ maxAttempts: Number.NaN }, hooks))?.reason).toBe("is not a number")
    expect(problemOf(RetryPolicyOptions.check({ jitter: "half" }, hooks))?.reason).toBe(
      'must be one of "none", "full", "equal", "decorrelated"'
    )
    expect(problemOf(RetryPolicyOptions.check({ maxDelay: 0 }, hooks))?.reason).toMatch(
      /^must be greater than zero: a zero cap/
    )
    expect(
      problemOf(RetryPolicyOptions.check({ backoff: { _tag: "Exponential", base: 1, factor: 0.5 } }, hooks))
    ).toMatchObject({
      option: "backoff.factor"
    })
    const throwing = RetryPolicyOptions.check(
      {
        isTransientStatus: () => {
          throw new Error("boom")
        }
      },
      hooks
    )
    if (throwing._tag !== "Valid") throw new Error("expected a valid policy")
    expect(() => throwing.value.isTransientStatus(503)).toThrow(
      'Retry policy option "isTransientStatus" threw for status 503: boom'
    )
    expect(Settings.invalidMessage({ option: "maxAttempts", reason: "must be at least 1", value: 0 })).toBe(
      'Invalid retry policy option "maxAttempts": must be at least 1 (got 0)'
    )
    // An option named as a secret: its string value is not written; the last name of its path counts.
    const secret = { option: "layerRedis.password", reason: "is not an option", value: "hunter2" }
    expect(Settings.invalidMessage(secret)).toBe(
      'Invalid retry policy option "layerRedis.password": is not an option (got "REDACTED")'
    )
    expect(Settings.describeInvalid({ ...secret, option: "extra[0].token" })).toBe('"REDACTED"')
  })
})
