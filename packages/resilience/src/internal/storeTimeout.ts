// @generated from templates/src/internal/storeTimeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// How long the Redis store waits on Redis: its `timeout`, measured so that this process's own
// lateness is never taken for Redis's. A busy process (two loaded cores, a long synchronous task)
// comes back to its event loop with the timer already due and Redis's reply already in the
// socket; the timer fires first, and a plain timeout would call an answer that came in time a
// timeout. Here the timeout waits one more turn of the event loop, in which the pending I/O is
// read, before it gives up: a slow Redis still costs `timeout`, a busy process no longer makes
// the store degrade and each process decide alone.
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

// Resumes once the event loop has handled the I/O that was waiting, and the work it woke.
const afterPendingIo: Effect.Effect<void> = Effect.andThen(
  Effect.async<void>((resume) => {
    const handle = setImmediate(() => resume(Effect.void))
    return Effect.sync(() => clearImmediate(handle))
  }),
  Effect.yieldNow()
)

/**
 * `request`, or a failure with `undefined` when it has not answered within `millis` (and the
 * turn of the event loop after), `request` then interrupted.
 *
 * @internal
 */
export const within = <A, R>(request: Effect.Effect<A, unknown, R>, millis: number): Effect.Effect<A, unknown, R> =>
  Effect.raceFirst(
    request,
    Effect.andThen(Effect.sleep(Duration.millis(millis)), Effect.andThen(afterPendingIo, Effect.fail(undefined)))
  )
