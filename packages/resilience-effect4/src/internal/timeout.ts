// @generated from templates/src/internal/timeout.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The race that bounds an effect in time: every attempt (`attemptLoop.limitTime`) and the release
// of a discarded response (`responseBody`).
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * `self`, failing with `onTimeout()` past `duration` (`self` is then interrupted, and waited
 * for). Effect 4's client keeps the handle that would abort a request without a fiber to itself
 * (`withScope`'s map is private), so this is `Effect.timeoutOrElse`, a forked race.
 *
 * @internal
 */
export const timeoutFail = <A, E, R, E1>(
  self: Effect.Effect<A, E, R>,
  duration: Duration.Duration,
  onTimeout: () => E1
): Effect.Effect<A, E | E1, R> => Effect.timeoutOrElse(self, { duration, orElse: () => Effect.fail(onTimeout()) })
