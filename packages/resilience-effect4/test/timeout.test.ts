/**
 * The race that times every attempt, Effect 4: Effect's own `Effect.timeoutOrElse` (public API
 * only), and the outcomes the attempt loop relies on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import * as line from "../src/internal/line.js"

const late = () => "late" as const

describe("timeoutFail, Effect 4", () => {
  it.live("on time: the effect's own exit, success or failure, at once or later", () =>
    Effect.gen(function* () {
      expect(yield* line.timeoutFail(Effect.succeed(1), Duration.millis(1_000), late)).toBe(1)
      expect(yield* line.timeoutFail(Effect.as(Effect.sleep("5 millis"), 2), Duration.millis(1_000), late)).toBe(2)
      expect(yield* Effect.exit(line.timeoutFail(Effect.fail("boom"), Duration.millis(1_000), late))).toEqual(
        Exit.fail("boom")
      )
    })
  )

  it.live("too late: the effect is interrupted, and waited for, then onTimeout fails", () =>
    Effect.gen(function* () {
      const stopped = yield* Deferred.make<void>()
      const exit = yield* Effect.exit(
        line.timeoutFail(
          Effect.onInterrupt(Effect.never, () => Deferred.succeed(stopped, undefined)),
          Duration.millis(20),
          late
        )
      )
      expect(exit).toEqual(Exit.fail("late"))
      expect(yield* Deferred.isDone(stopped)).toBe(true)
    })
  )

  it.live("interrupting the caller interrupts the effect, and waits for it", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const stopped = yield* Deferred.make<void>()
      const fiber = yield* Effect.forkChild(
        line.timeoutFail(
          Effect.andThen(
            Deferred.succeed(started, undefined),
            Effect.onInterrupt(Effect.never, () => Deferred.succeed(stopped, undefined))
          ),
          Duration.millis(60_000),
          late
        )
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      expect(yield* Deferred.isDone(stopped)).toBe(true)
    })
  )

  it.effect("under the TestClock it is Effect.timeoutOrElse: the limit passes when the clock says", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.forkChild(Effect.exit(line.timeoutFail(Effect.never, Duration.millis(5_000), late)))
      yield* TestClock.adjust("4999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toEqual(Exit.fail("late"))
    })
  )
})
