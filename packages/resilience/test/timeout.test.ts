/**
 * The race that times every attempt (Effect's own `Effect.timeoutFail`, public API only): the
 * outcomes the attempt loop relies on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber, FiberRef, Logger, LogLevel, TestClock } from "effect"
import * as line from "../src/internal/line.js"

const late = () => "late" as const

describe("timeoutFail", () => {
  it.live("on time: the effect's own exit, success or failure", () =>
    Effect.gen(function* () {
      expect(yield* line.timeoutFail(Effect.succeed(1), Duration.millis(1_000), late)).toBe(1)
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

  it.live("interrupting the caller interrupts the effect", () =>
    Effect.gen(function* () {
      const started = yield* Deferred.make<void>()
      const stopped = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        line.timeoutFail(
          Effect.zipRight(
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

  it.live("a failure is the caller's: nothing is logged as an unhandled error", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.make(({ message }) => {
        lines.push(String(Array.isArray(message) ? message[0] : message))
      })
      yield* Effect.exit(line.timeoutFail(Effect.fail("boom"), Duration.millis(1_000), late)).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, capture)),
        Logger.withMinimumLogLevel(LogLevel.Debug)
      )
      yield* Effect.sleep("10 millis")
      expect(lines.filter((line) => line.includes("unhandled"))).toEqual([])
    })
  )

  it.effect("under the TestClock it is Effect.timeoutFail: the limit passes when the clock says", () =>
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(Effect.exit(line.timeoutFail(Effect.never, Duration.millis(5_000), late)))
      yield* TestClock.adjust("4999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toEqual(Exit.fail("late"))
    })
  )

  it.live("on time, what the effect set in its fiber reaches the caller, as with Effect.timeoutFail", () =>
    Effect.gen(function* () {
      const ref = FiberRef.unsafeMake("before")
      yield* line.timeoutFail(FiberRef.set(ref, "attempt"), Duration.millis(1_000), late)
      expect(yield* FiberRef.get(ref)).toBe("attempt")
    })
  )

  it.live("a value the caller had, set anew by the effect, reaches it; one set and put back leaves it as it was", () =>
    Effect.gen(function* () {
      const ref = FiberRef.unsafeMake("initial")
      yield* FiberRef.set(ref, "before")
      yield* line.timeoutFail(FiberRef.set(ref, "attempt"), Duration.millis(1_000), late)
      expect(yield* FiberRef.get(ref)).toBe("attempt")
      // Nothing changed: the caller's value and interruptibility stay.
      yield* line.timeoutFail(Effect.locally(Effect.void, ref, "inside"), Duration.millis(1_000), late)
      expect(yield* FiberRef.get(ref)).toBe("attempt")
      expect(
        yield* Effect.uninterruptible(
          Effect.zipRight(
            line.timeoutFail(Effect.void, Duration.millis(1_000), late),
            Effect.checkInterruptible(Effect.succeed)
          )
        )
      ).toBe(false)
    })
  )
})
