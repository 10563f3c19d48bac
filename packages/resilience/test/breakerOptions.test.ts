// @generated from templates/test/breakerOptions.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * `breakDuration` and `maxBreakDuration` on Effect 3, as a user writes them: a long break alone
 * is valid (the cap, unset, is the larger of 30 s and the break), and a cap below the break is
 * refused naming both options and both values as given, never an option the user did not set.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either } from "effect"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as RetryPolicy from "../src/RetryPolicy.js"

const settingsOf = (options: CircuitBreaker.Options) => Either.getOrThrow(CircuitBreaker.validate(options))

describe("CircuitBreaker breakDuration and maxBreakDuration, on Effect 3", () => {
  it("maxBreakDuration unset: the larger of 30 s and breakDuration", () => {
    expect(Duration.toMillis(settingsOf({}).maxBreakDuration)).toBe(30_000)
    expect(Duration.toMillis(settingsOf({ breakDuration: "10 seconds" }).maxBreakDuration)).toBe(30_000)
    const long = settingsOf({ breakDuration: "1 minute" })
    expect([Duration.toMillis(long.breakDuration), Duration.toMillis(long.maxBreakDuration)]).toEqual([60_000, 60_000])
    // The same through a policy, as a client takes it.
    expect(
      Either.isRight(RetryPolicy.validate({ circuitBreaker: CircuitBreaker.perOrigin({ breakDuration: "1 minute" }) }))
    ).toBe(true)
  })

  it.effect("both set, the cap below the break: InvalidRetryPolicy names both options and both values", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(
        CircuitBreaker.make({ breakDuration: "1 minute", maxBreakDuration: "30 seconds" })
      )
      expect(error).toMatchObject({
        _tag: "InvalidRetryPolicy",
        option: "circuitBreaker.maxBreakDuration",
        value: "30 seconds"
      })
      expect(error.message).toBe(
        'Invalid retry policy option "circuitBreaker.maxBreakDuration": must be from circuitBreaker.breakDuration ("1 minute") to 1 day (got "30 seconds")'
      )
      const durations = yield* Effect.flip(
        CircuitBreaker.make({ breakDuration: Duration.minutes(2), maxBreakDuration: Duration.minutes(1) })
      )
      expect(durations.message).toBe(
        'Invalid retry policy option "circuitBreaker.maxBreakDuration": must be from circuitBreaker.breakDuration (2m) to 1 day (got 1m)'
      )
    })
  )

  it("the cap alone, below the default break: the message says the break is the default", () => {
    const result = CircuitBreaker.validate({ maxBreakDuration: "1 second" })
    expect(Either.isLeft(result) ? result.left.message : undefined).toBe(
      'Invalid retry policy option "circuitBreaker.maxBreakDuration": must be from circuitBreaker.breakDuration (its default, 5 seconds) to 1 day (got "1 second")'
    )
  })
})
