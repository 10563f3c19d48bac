/**
 * What Effect 4's `TestClock.adjust` waits for (PORTING.md §2), pinned on 4.1.5 (as on 4.1.0): the work already
 * running gets one scheduler turn; then each sleep due is woken in turn, and what that wake sets
 * off is waited for, however many turns it takes. Effect 3's waits until every fiber is suspended.
 * Why the hedged race forks its copies to start at once (`src/internal/hedgedAttempt.ts`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

// The clock's time after `turns` scheduler turns.
const afterTurns = (turns: number): Effect.Effect<number> =>
  turns === 0
    ? now
    : Effect.andThen(
        Effect.yieldNow,
        Effect.suspend(() => afterTurns(turns - 1))
      )

describe("TestClock.adjust, Effect 4", () => {
  it.effect("work already running that needs a few turns reads the clock after the whole adjust", () =>
    Effect.gen(function* () {
      const quick = yield* Effect.forkChild(afterTurns(0))
      const slower = yield* Effect.forkChild(afterTurns(3))
      yield* TestClock.adjust("1 hour")
      expect([yield* Fiber.join(quick), yield* Fiber.join(slower)]).toEqual([0, 3_600_000])
    })
  )

  it.effect("work a woken sleep sets off is waited for, however many turns it takes", () =>
    Effect.gen(function* () {
      const woken = yield* Effect.forkChild(Effect.andThen(Effect.sleep("100 millis"), afterTurns(10)))
      yield* TestClock.adjust("1 hour")
      expect(yield* Fiber.join(woken)).toBe(100)
    })
  )

  it.effect("a wait begun a few turns into the adjust, with no sleep due before it, is left for the next", () =>
    Effect.gen(function* () {
      const late = yield* Effect.forkChild(
        Effect.andThen(afterTurns(3), Effect.andThen(Effect.sleep("100 millis"), now))
      )
      yield* TestClock.adjust("1 hour")
      expect(late.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("100 millis")
      expect(yield* Fiber.join(late)).toBe(3_600_100)
    })
  )

  // A fiber that forks one that forks one that sleeps 100 ms, each fork as `startImmediately` says.
  const nested = (depth: number, startImmediately: boolean): Effect.Effect<number> =>
    depth === 0
      ? Effect.andThen(Effect.sleep("100 millis"), now)
      : Effect.flatMap(Effect.forkChild(nested(depth - 1, startImmediately), { startImmediately }), Fiber.join)

  it.effect("a sleep two forks deep, each fork starting later, begins after the adjust", () =>
    Effect.gen(function* () {
      const deferred = yield* Effect.forkChild(nested(2, false))
      yield* TestClock.adjust("1 hour")
      expect(deferred.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("100 millis")
      expect(yield* Fiber.join(deferred)).toBe(3_600_100)
    })
  )

  it.effect("a sleep two forks deep, each fork starting at once, is due within the adjust", () =>
    Effect.gen(function* () {
      const atOnce = yield* Effect.forkChild(nested(2, true))
      yield* TestClock.adjust("1 hour")
      expect(yield* Fiber.join(atOnce)).toBe(100)
    })
  )
})
