/**
 * Every metric of the library, by the shared core's names (the Effect 3 line reports the same):
 * counters, and the breaker's state as a gauge with one series per state. Attributes are the
 * core's too; an origin is split into `url.scheme`, `server.address` and `server.port`.
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

/** @internal */
export const originAttributes = Telemetry.originAttributes
