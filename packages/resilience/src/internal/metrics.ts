/**
 * Every metric of the library, in one place, under `http.client.resilience.*`: OpenTelemetry
 * has no resilience conventions. Attributes reuse the HTTP client conventions' names
 * (`url.scheme`, `server.address`, `server.port`, `http.request.method`); an origin is split into
 * the first three, as the HTTP client metrics do.
 *
 * No `http.client.request.duration`: it is the transport's metric (OpenTelemetry's undici
 * instrumentation records it per physical request, under that name), the transport's span per
 * request already carries each attempt's duration, and recording it here too would cost every
 * attempt two clock reads, an exit hook and a histogram update on the happy path.
 *
 * Effect 3 metrics carry no unit, so the unit is in each description.
 *
 * @internal
 */
import * as Telemetry from "@effect-http-resilience/core/Telemetry"
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"

/** Attribute keys (the shared core's names, as the Effect 4 line's). @internal */
export const attribute = Telemetry.attribute

const counter = (spec: Telemetry.MetricSpec) =>
  Metric.counter(spec.name, { description: spec.description, incremental: true })

/** Every attempt, the first included. Attributes: method, origin. @internal */
export const attempts = counter(Telemetry.metrics.attempts)

/** Attempts after the first. Attributes: method, origin. @internal */
export const retries = counter(Telemetry.metrics.retries)

/** Hedged copies sent. Attributes: method, origin. @internal */
export const hedges = counter(Telemetry.metrics.hedges)

/** Hedged copies whose response won. Attributes: method, origin. @internal */
export const hedgeWins = counter(Telemetry.metrics.hedgeWins)

/** Calls that ended with a failure, by `giveUpReason`. Attributes: method, origin, reason. @internal */
export const giveUps = counter(Telemetry.metrics.giveUps)

/** Retries the budget refused. Attributes: origin. @internal */
export const retryBudgetRefusals = counter(Telemetry.metrics.retryBudgetRefusals)

/** One series per state, 1 for the current one and 0 for the others. Attributes: origin, state. @internal */
export const circuitBreakerState = Metric.gauge(Telemetry.metrics.circuitBreakerState.name, {
  description: Telemetry.metrics.circuitBreakerState.description
})

/** State changes. Attributes: origin, previous_state, state. @internal */
export const circuitBreakerTransitions = counter(Telemetry.metrics.circuitBreakerTransitions)

/** Attempts an open, half-open or isolated circuit rejected. Attributes: origin, state. @internal */
export const circuitBreakerRejections = counter(Telemetry.metrics.circuitBreakerRejections)

/** The attribute value of a circuit state. @internal */
export const circuitStateValue = Telemetry.circuitStateValue

const originLabelsCapped = Telemetry.cappedOriginAttributes(
  (attributes): ReadonlyArray<MetricLabel.MetricLabel> =>
    Object.entries(attributes).map(([key, value]) => MetricLabel.make(key, value))
)

/**
 * `url.scheme`, `server.address`, `server.port` of an origin key, one array per origin; past the
 * first `Telemetry.maxOriginLabelValues` (1000) origins of the process, the `_OTHER` overflow's,
 * so the global registry holds a bounded number of series.
 *
 * @internal
 */
export const originLabels: (origin: string) => ReadonlyArray<MetricLabel.MetricLabel> = originLabelsCapped.of

/** Whether labels are the overflow's: a gauge of per-origin state has no meaning summed. @internal */
export const isOverflow = (labels: ReadonlyArray<MetricLabel.MetricLabel>): boolean =>
  labels === originLabelsCapped.overflow
