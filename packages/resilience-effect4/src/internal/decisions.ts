// @generated from templates/src/internal/decisions.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as BrowserHints from "@effect-http-resilience/core/BrowserHints"
import * as Telemetry from "@effect-http-resilience/core/Telemetry"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import type * as HttpFailure from "../HttpFailure.js"
import type * as ResilientHttpClient from "../ResilientHttpClient.js"
import * as line from "./line.js"
import { redactUrl } from "./redaction.js"
import { serverDelayMillis } from "./retryPolicy.js"

/** @internal */
export type Decision = ResilientHttpClient.Decision

/** @internal */
export type DecisionObserver = (decision: Decision) => Effect.Effect<void>

// The string key is the identity: two copies of this module share the observer.
const CurrentObserver = line.local<DecisionObserver | undefined>(
  "effect-http-resilience-effect4/DecisionObserver",
  () => undefined
)

/** @internal */
export const observeDecisions = dual<
  (observer: DecisionObserver) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  <A, E, R>(self: Effect.Effect<A, E, R>, observer: DecisionObserver) => Effect.Effect<A, E, R>
>(2, (self, observer) =>
  Effect.flatMap(line.getLocal(CurrentObserver), (outer) =>
    // Observers nest: an inner one does not hide an outer one.
    line.withLocal(
      self,
      CurrentObserver,
      outer === undefined ? observer : (decision: Decision) => Effect.andThen(outer(decision), observer(decision))
    )
  )
)

// The event's name and attributes are the shared core's: both lines report the same.
const eventOf = (decision: Decision) =>
  decision._tag === "Hedge"
    ? Telemetry.hedgeEvent({ ...decision, delayMillis: Duration.toMillis(decision.delay) }, redactUrl)
    : Telemetry.decisionEvent(
        decision._tag === "Retry" ? { ...decision, waitMillis: Duration.toMillis(decision.delay) } : decision,
        serverDelayMillis(decision.failure),
        redactUrl
      )

// A hedge's request, written (as JSON, or by node's inspect) with its URL redacted: the platform
// writes a request's URL as it is (Effect 3) or redacted by its own names (Effect 4). A retry's
// or a give-up's failure writes itself redacted.
const inspectSymbol = Symbol.for("nodejs.util.inspect.custom")

const observable = (decision: Decision): Decision => {
  if (decision._tag !== "Hedge") return decision
  const json = () => ({
    _tag: decision._tag,
    request: { method: decision.request.method, url: redactUrl(decision.request.url) },
    attempt: decision.attempt,
    copy: decision.copy,
    delay: decision.delay
  })
  const written: Decision & { readonly toJSON: () => unknown; readonly [inspectSymbol]: () => unknown } = {
    ...decision,
    toJSON: json,
    [inspectSymbol]: json
  }
  return written
}

// Browser hints given, by kind and origin: each is logged once.
const hintsGiven = new BrowserHints.GivenOnce()

// On a page, what CORS may have hidden from a cross-origin attempt, the first time per origin.
const browserHint = (failure: HttpFailure.HttpFailure, tracerPropagation: boolean): string | undefined => {
  const page = BrowserHints.pageOrigin()
  if (page === undefined) return undefined
  const seen: BrowserHints.Seen | undefined =
    failure._tag === "TransientStatus"
      ? {
          _tag: "Status",
          url: failure.request.url,
          status: failure.status,
          // Read as the schedule reads it: Retry-After, or the rate-limit headers it falls back to.
          retryAfterReadable: serverDelayMillis(failure) !== undefined
        }
      : failure._tag === "ConnectionError" &&
          failure.reason === "Transport" &&
          BrowserHints.isFetchTypeError(failure.cause)
        ? {
            _tag: "TransportTypeError",
            url: failure.request.url,
            tracerPropagation,
            turnOffTracing: line.turnOffTracing
          }
        : undefined
  const hint = seen === undefined ? undefined : BrowserHints.hintFor(seen, page)
  return hint !== undefined && hintsGiven.first(`${hint.kind} ${hint.origin}`) ? hint.message : undefined
}

/**
 * Tells a decision to whoever listens: the observer in context, the caller's current span (as
 * an event), and the log at debug level. Each costs nothing when absent or off.
 *
 * @internal
 */
export const report = (decision: Decision): Effect.Effect<void> =>
  line.withFiberView((fiber) => {
    const observer = fiber.get(CurrentObserver)
    const logged = fiber.debugLogged
    // An external span (propagated from elsewhere) cannot take events.
    const span = fiber.span !== undefined && fiber.span._tag === "Span" ? fiber.span : undefined
    if (observer === undefined && !logged && span === undefined) return Effect.void
    const { name, attributes } = eventOf(decision)
    const effects: Array<Effect.Effect<void>> = []
    if (span !== undefined) {
      effects.push(
        Effect.flatMap(Clock.currentTimeNanos, (now) => Effect.sync(() => span.event(name, now, attributes)))
      )
    }
    if (logged) {
      effects.push(Effect.annotateLogs(Effect.logDebug(name), attributes))
      const hint = decision._tag === "Hedge" ? undefined : browserHint(decision.failure, fiber.tracerPropagation)
      if (hint !== undefined) effects.push(Effect.logDebug(hint))
    }
    if (observer !== undefined) effects.push(observer(observable(decision)))
    return Effect.all(effects, { discard: true })
  })
