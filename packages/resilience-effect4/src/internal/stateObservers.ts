// @generated from templates/src/internal/stateObservers.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// A breaker's `onStateChange`, run outside the breaker's critical section. A change is queued in
// the synchronous step that committed it, and delivered by a fiber of its own, forked detached
// from the caller once the change is in effect: the caller never waits for an observer (its own
// timeout still holds), and an observer that throws, dies or is slow changes neither the circuit
// nor the call. One fiber at a time delivers, so an observer sees the changes of its breaker one
// after the other, in the order they happened; it ends when the queue is empty.
import type * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import type * as CircuitBreaker from "../CircuitBreaker.js"

/** @internal */
export interface StateObservers {
  /** Queues a change: call it in the step that made the change, so that the queue keeps their order. */
  readonly push: (change: CircuitBreaker.StateChange) => void
  /**
   * Forks the delivery of what is queued unless a delivery is under way; never waits for an
   * observer. Run it after `push`, once the change is in effect.
   */
  readonly deliver: Effect.Effect<void>
}

const none: StateObservers = { push: () => {}, deliver: Effect.void }

const warn = (change: CircuitBreaker.StateChange, cause: Cause.Cause<unknown>): Effect.Effect<void> =>
  Effect.annotateLogs(
    Effect.logWarning(
      `CircuitBreaker onStateChange failed on ${change.origin} (${change.from} -> ${change.to}): the circuit and the call that changed it are unaffected`,
      cause
    ),
    { origin: change.origin, from: change.from, to: change.to }
  )

/**
 * The observers of one breaker: `onStateChange`, if given. At most `capacity` changes wait; past
 * that the oldest are dropped, and a warning says how many.
 *
 * @internal
 */
export const make = (
  onStateChange: ((change: CircuitBreaker.StateChange) => Effect.Effect<void>) | undefined,
  capacity: number
): StateObservers => {
  if (onStateChange === undefined) return none
  const pending: Array<CircuitBreaker.StateChange> = []
  let dropped = 0
  let delivering = false

  // Whatever the callback does (throws, returns no Effect, dies, fails, interrupts itself) ends
  // in a warning, and the next change is delivered.
  const observe = (change: CircuitBreaker.StateChange): Effect.Effect<void> =>
    Effect.catchCause(
      Effect.suspend(() => {
        try {
          // Typed as an Effect, but a JavaScript caller may return anything.
          const observed = onStateChange(change)
          return Effect.isEffect(observed)
            ? observed
            : Effect.die(new TypeError("onStateChange returned something other than an Effect"))
        } catch (thrown) {
          return Effect.die(thrown)
        }
      }),
      (cause) => warn(change, cause)
    )

  const next: Effect.Effect<void> = Effect.suspend(() => {
    if (dropped > 0) {
      const lost = dropped
      dropped = 0
      return Effect.andThen(
        Effect.logWarning(
          `CircuitBreaker onStateChange fell behind: the ${lost} oldest state changes waiting for it were dropped`
        ),
        next
      )
    }
    const change = pending.shift()
    if (change === undefined) {
      delivering = false
      return Effect.void
    }
    return Effect.andThen(observe(change), next)
  })

  // Interruptible whatever the caller's region was; interrupted (its runtime shutting down), it
  // lets the next change start a delivery again.
  const delivery = Effect.onInterrupt(Effect.interruptible(next), () =>
    Effect.sync(() => {
      delivering = false
    })
  )

  return {
    push: (change) => {
      pending.push(change)
      if (pending.length > capacity) {
        pending.shift()
        dropped++
      }
    },
    deliver: Effect.uninterruptible(
      Effect.suspend(() => {
        if (delivering || pending.length === 0) return Effect.void
        delivering = true
        return Effect.asVoid(Effect.forkDetach(delivery))
      })
    )
  }
}
