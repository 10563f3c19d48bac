import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Tracer from "effect/Tracer"
import type * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"

/**
 * One decision of a call after a failed attempt.
 *
 * @internal
 */
export type Decision =
  | {
      readonly _tag: "Retry"
      readonly failure: HttpFailure.HttpFailure
      readonly delay: Duration.Duration
      readonly source: RetryPolicy.DelaySource
      readonly capped: boolean
    }
  | {
      readonly _tag: "GiveUp"
      readonly failure: HttpFailure.HttpFailure
      readonly reason: RetryPolicy.GiveUpReason
    }

/** @internal */
export type DecisionObserver = (decision: Decision) => Effect.Effect<void>

// The string key is the identity: two copies of this module share the observer.
const CurrentObserver = Context.Reference<DecisionObserver | undefined>(
  "effect-http-resilience-effect4/DecisionObserver",
  { defaultValue: () => undefined }
)

/** @internal */
export const observeDecisions = dual<
  (observer: DecisionObserver) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  <A, E, R>(self: Effect.Effect<A, E, R>, observer: DecisionObserver) => Effect.Effect<A, E, R>
>(2, (self, observer) =>
  Effect.withFiber((fiber) => {
    const outer = fiber.getRef(CurrentObserver)
    // Observers nest: an inner one does not hide an outer one.
    const both: DecisionObserver =
      outer === undefined ? observer : (decision) => Effect.andThen(outer(decision), observer(decision))
    return Effect.provideService(self, CurrentObserver, both)
  })
)

const attributesOf = (decision: Decision): Record<string, unknown> => {
  const failure = decision.failure
  const attributes: Record<string, unknown> = {
    "http.request.method": failure.request.method,
    "url.full": failure.request.url,
    "retry.attempt": failure.attempt,
    "retry.failure": failure._tag
  }
  if (failure._tag === "ConnectionError") attributes["retry.reason"] = failure.reason
  else attributes["http.response.status_code"] = failure.status
  if (failure._tag === "TransientStatus" && Option.isSome(failure.retryAfter)) {
    attributes["retry.retry_after_millis"] = Duration.toMillis(failure.retryAfter.value)
  }
  if (decision._tag === "Retry") {
    attributes["retry.wait_millis"] = Duration.toMillis(decision.delay)
    attributes["retry.wait_source"] = decision.source
    attributes["retry.wait_capped"] = decision.capped
  } else {
    attributes["retry.give_up_reason"] = decision.reason
  }
  return attributes
}

/**
 * Tells a decision to whoever listens: the observer in context, the caller's current span (as
 * an event), and the log at debug level. Each costs nothing when absent or off.
 *
 * @internal
 */
export const report = (decision: Decision): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const observer = fiber.getRef(CurrentObserver)
    const logged = LogLevel.isLessThanOrEqualTo(fiber.getRef(References.MinimumLogLevel), "Debug")
    const current = Context.getOrUndefined(fiber.context, Tracer.ParentSpan)
    // An external span (propagated from elsewhere) cannot take events.
    const span = current !== undefined && current._tag === "Span" ? current : undefined
    if (observer === undefined && !logged && span === undefined) return Effect.void
    const attributes = attributesOf(decision)
    const name = decision._tag === "Retry" ? "retrying" : "giving up"
    const effects: Array<Effect.Effect<void>> = []
    if (span !== undefined) {
      effects.push(
        Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.event(name, now, attributes)))
      )
    }
    if (logged) effects.push(Effect.annotateLogs(Effect.logDebug(name), attributes))
    if (observer !== undefined) effects.push(observer(decision))
    return Effect.all(effects, { discard: true })
  })
