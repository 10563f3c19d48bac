// @generated from templates/src/internal/timeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The race that bounds an effect in time: every attempt (`attemptLoop.limitTime`), the snippet of a
// permanent status and the release of a response left unread when its scope closes (`responseBody`).
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * `self`, failing with `onTimeout()` past `duration`: on time, `self`'s exit; too late, `self` is
 * interrupted (and waited for) and `onTimeout()` fails. Interrupting the platform's exchange
 * aborts its request, every hop of it.
 *
 * Effect's own race, public API only: it forks `self`, and a sleep beside it.
 * Under `TestClock` the limit passes when the clock says.
 *
 * @internal
 */
export const timeoutFail = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> =>
  Effect.timeoutFail(self, {
    duration,
    onTimeout
  })
