/**
 * Every metric of the library, by the shared core's names (the Effect 3 line reports the same):
 * counters, and the breaker's state as a gauge with one series per state. Attributes are the
 * core's too; an origin is split into `url.scheme`, `server.address` and `server.port`, for at
 * most `Telemetry.maxOriginLabelValues` distinct origins.
 *
 * @internal
 */
import * as Telemetry from "@effect-http-resilience/core/Telemetry"
import * as Metric from "effect/Metric"

/** Attribute keys. @internal */
export const attribute = Telemetry.attribute

const counter = (spec: Telemetry.MetricSpec): Metric.Counter<number> =>
  Metric.counter(spec.name, { description: spec.description, incremental: true })

/** @internal */
export const attempts = counter(Telemetry.metrics.attempts)

/** @internal */
export const retries = counter(Telemetry.metrics.retries)

/** @internal */
export const giveUps = counter(Telemetry.metrics.giveUps)

/** Hedged copies sent. Attributes: method, origin. @internal */
export const hedges = counter(Telemetry.metrics.hedges)

/** Hedged copies whose response won. Attributes: method, origin. @internal */
export const hedgeWins = counter(Telemetry.metrics.hedgeWins)

/** @internal */
export const retryBudgetRefusals = counter(Telemetry.metrics.retryBudgetRefusals)

/** @internal */
export const circuitBreakerState = Metric.gauge(Telemetry.metrics.circuitBreakerState.name, {
  description: Telemetry.metrics.circuitBreakerState.description
})

/** @internal */
export const circuitBreakerTransitions = counter(Telemetry.metrics.circuitBreakerTransitions)

/** @internal */
export const circuitBreakerRejections = counter(Telemetry.metrics.circuitBreakerRejections)

/** @internal */
export const circuitStateValue = Telemetry.circuitStateValue

const originAttributesCapped = Telemetry.cappedOriginAttributes((attributes) => attributes)

/**
 * `url.scheme`, `server.address`, `server.port` of an origin key, one record per origin; past
 * the first `Telemetry.maxOriginLabelValues` (1000) origins of the process, the `_OTHER`
 * overflow's, so the global registry holds a bounded number of series.
 *
 * @internal
 */
export const originAttributes: (origin: string) => Readonly<Record<string, string>> = originAttributesCapped.of

/** Whether attributes are the overflow's: a gauge of per-origin state has no meaning summed. @internal */
export const isOverflow = (attributes: Readonly<Record<string, string>>): boolean =>
  attributes === originAttributesCapped.overflow
