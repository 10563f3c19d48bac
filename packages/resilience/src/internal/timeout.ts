// @generated from templates/src/internal/timeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The race that bounds an effect in time: every attempt (`attemptLoop.limitTime`) and the release
// of a discarded response (`responseBody`).
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as DefaultServices from "effect/DefaultServices"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import type * as FiberRefs from "effect/FiberRefs"
import * as RuntimeFlags from "effect/RuntimeFlags"

const liveClock = Context.get(DefaultServices.liveServices, Clock.Clock)

// The longest delay `setTimeout` holds; the live clock splits longer sleeps, so do they here.
const maxTimerMillis = 2 ** 31 - 1

/**
 * `Effect.timeoutFail`, with the same outcome: on time, `self`'s exit; too late, `self` is
 * interrupted (and the wait for it to stop) and `onTimeout()` fails.
 *
 * `Effect.timeoutFail` races two forked fibers, `self` and a sleep. With the live clock a sleep
 * is nothing but a `setTimeout`, so here only `self` is forked and a plain timer races it: a
 * third of the cost on every attempt. Under any other clock (`TestClock`, a custom one) or a
 * delay beyond what a timer holds, it is `Effect.timeoutFail` itself.
 *
 * @internal
 */
export const timeoutFail = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> => timeoutFailWith(self, duration, onTimeout, true)

/**
 * {@link timeoutFail} for a read of a platform response's body, whose fiber-local changes
 * (`FiberRef`s) are nobody's: on time, its forked fiber's are not joined back into the
 * caller's (`inheritAll`, the price of a `Map` copy of every `FiberRef`). The effect read runs
 * only the platform's code, never the user's client, and what it leaves is a body or nothing.
 *
 * @internal
 */
export const timeoutFailRead = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> => timeoutFailWith(self, duration, onTimeout, false)

const timeoutFailWith = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1,
  inherit: boolean
): Effect.Effect<A, E | E1, R> => {
  const millis = Duration.toMillis(duration)
  return Effect.clockWith((clock) =>
    clock === liveClock && millis <= maxTimerMillis
      ? timeoutWithTimer(self, millis, onTimeout, inherit)
      : Effect.timeoutFail(self, { duration, onTimeout })
  )
}

// The forked fiber always succeeds with `self`'s exit: a failure is the caller's to handle,
// never a fiber that "terminated with an unhandled error" (which Effect logs at debug level).
const timeoutWithTimer = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  millis: number,
  onTimeout: () => E1,
  inherit: boolean
): Effect.Effect<A, E | E1, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.fork(Effect.exit(restore(self))), (fiber) =>
      restore(
        Effect.async<A, E | E1>((resume) => {
          let settled = false
          const forked = fiber.getFiberRefs()
          const onExit = (exit: Exit.Exit<Exit.Exit<A, E>>): void => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            const joins = inherit && changedSince(forked, fiber.getFiberRefs())
            // An exit is an effect: `self`'s, resumed as it is (its fiber interrupted: that).
            const outcome = exit._tag === "Success" ? exit.value : Effect.failCause(exit.cause)
            resume(joins ? Effect.zipRight(fiber.inheritAll, outcome) : outcome)
          }
          const timer = setTimeout(() => {
            if (settled) return
            settled = true
            fiber.removeObserver(onExit)
            resume(Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(onTimeout())))
          }, millis)
          fiber.addObserver(onExit)
          // The caller was interrupted: stop `self` too, and wait until it has stopped.
          return Effect.suspend(() => {
            settled = true
            clearTimeout(timer)
            fiber.removeObserver(onExit)
            return Effect.asVoid(Fiber.interrupt(fiber))
          })
        })
      )
    )
  )

// What joining a fiber (`inheritAll`) leaves out of the runtime flags.
const flagsNotJoined = RuntimeFlags.Interruption | RuntimeFlags.WindDown

// Whether a fiber left any `FiberRef` with another value than it was forked with. Joining one
// that did not (`inheritAll`, a copy of every `FiberRef`) would leave the caller's as they are:
// a value set and put back (`Effect.locally`, the platform's span) is the same value, and a
// fiber's own end (`WindDown`) is not joined.
const changedSince = (forked: FiberRefs.FiberRefs, now: FiberRefs.FiberRefs): boolean => {
  if (now === forked) return false
  if (now.locals.size !== forked.locals.size) return true
  let changed = false
  now.locals.forEach((stack, fiberRef) => {
    const before: unknown = forked.locals.get(fiberRef)?.[0][1]
    const after: unknown = stack[0][1]
    if (before === after) return
    const flagsOnly =
      fiberRef === FiberRef.currentRuntimeFlags &&
      typeof before === "number" &&
      typeof after === "number" &&
      ((before ^ after) & ~flagsNotJoined) === 0
    if (!flagsOnly) changed = true
  })
  return changed
}
