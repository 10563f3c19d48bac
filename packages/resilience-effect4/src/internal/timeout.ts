// @generated from templates/src/internal/timeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The race that bounds an effect in time: every attempt (`attemptLoop.limitTime`) and the release
// of a discarded response (`responseBody`).
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"

// The clock a fiber has when nothing else is provided: its sleep is a `setTimeout`.
const liveClock = Context.get(Context.empty(), Clock.Clock)

// The longest delay `setTimeout` holds; the live clock splits longer sleeps, so do they here.
const maxTimerMillis = 2 ** 31 - 1

/**
 * `self`, failing with `onTimeout()` past `duration` (`self` is then interrupted, and waited
 * for). Effect 4's client keeps the handle that would abort a request without a fiber to itself
 * (`withScope`'s map is private), so `self` is forked. `Effect.timeoutOrElse` forks a sleep too
 * whenever `self` does not end at once (over a socket, always); with the live clock a sleep is
 * nothing but a `setTimeout`, so here a plain timer races `self`. Under any other clock
 * (`TestClock`, a custom one) or a delay beyond what a timer holds, it is `Effect.timeoutOrElse`.
 *
 * @internal
 */
export const timeoutFail = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> => {
  const millis = Duration.toMillis(duration)
  return Effect.clockWith((clock) =>
    clock === liveClock && millis <= maxTimerMillis
      ? timeoutWithTimer(self, millis, onTimeout)
      : Effect.timeoutOrElse(self, { duration, orElse: () => Effect.fail(onTimeout()) })
  )
}

// The forked fiber starts at once, as `timeoutOrElse`'s does, and always succeeds with `self`'s
// exit: a failure is the caller's to handle.
const timeoutWithTimer = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  millis: number,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(Effect.forkChild(Effect.exit(restore(self)), { startImmediately: true }), (fiber) =>
      restore(
        Effect.callback<A, E | E1>((resume) => {
          let settled = false
          const onExit = (exit: Exit.Exit<Exit.Exit<A, E>>): void => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(exit._tag === "Success" ? exit.value : Effect.failCause(exit.cause))
          }
          const timer = setTimeout(() => {
            if (settled) return
            settled = true
            removeObserver()
            resume(Effect.andThen(Fiber.interrupt(fiber), Effect.fail(onTimeout())))
          }, millis)
          const removeObserver = fiber.addObserver(onExit)
          // The caller was interrupted: stop `self` too, and wait until it has stopped.
          return Effect.suspend(() => {
            settled = true
            clearTimeout(timer)
            removeObserver()
            return Fiber.interrupt(fiber)
          })
        })
      )
    )
  )
