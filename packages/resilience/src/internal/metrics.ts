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
import * as Metric from "effect/Metric"
import * as MetricLabel from "effect/MetricLabel"
import type { StateTag } from "@effect-http-resilience/core/CircuitBreaker"
import { originParts } from "@effect-http-resilience/core/Origin"

/** Attribute keys. @internal */
export const attribute = {
  urlScheme: "url.scheme",
  serverAddress: "server.address",
  serverPort: "server.port",
  requestMethod: "http.request.method",
  /** A `RetryPolicy.GiveUpReason`, or "retry-budget-exhausted", or "circuit-open". */
  giveUpReason: "http.client.resilience.give_up.reason",
  /** closed | open | half_open | isolated */
  circuitState: "http.client.resilience.circuit_breaker.state",
  circuitPreviousState: "http.client.resilience.circuit_breaker.previous_state"
} as const

/** Every attempt, the first included. Attributes: method, origin. @internal */
export const attempts = Metric.counter("http.client.resilience.attempts", {
  description: "HTTP attempts sent, the first attempt of each call included ({attempt}).",
  incremental: true
})

/** Attempts after the first. Attributes: method, origin. @internal */
export const retries = Metric.counter("http.client.resilience.retries", {
  description: "HTTP attempts that retried a failed attempt ({retry}).",
  incremental: true
})

/** Calls that ended with a failure, by `giveUpReason`. Attributes: method, origin, reason. @internal */
export const giveUps = Metric.counter("http.client.resilience.give_ups", {
  description: "HTTP calls that ended with a failure, by the reason no further attempt was made ({call}).",
  incremental: true
})

/** Retries the budget refused. Attributes: origin. @internal */
export const retryBudgetRefusals = Metric.counter("http.client.resilience.retry_budget.refusals", {
  description: "Retries the retry budget refused ({retry}).",
  incremental: true
})

/**
 * OpenTelemetry's pattern for an enumerated state (as `hw.status`): one series per state,
 * 1 for the current one and 0 for the others. Attributes: origin, state.
 *
 * @internal
 */
export const circuitBreakerState = Metric.gauge("http.client.resilience.circuit_breaker.state", {
  description: "Circuit breaker state per origin: 1 for the current state, 0 for the others."
})

/** State changes. Attributes: origin, previous_state, state. @internal */
export const circuitBreakerTransitions = Metric.counter("http.client.resilience.circuit_breaker.transitions", {
  description: "Circuit breaker state changes ({transition}).",
  incremental: true
})

/** Attempts an open, half-open or isolated circuit rejected. Attributes: origin, state. @internal */
export const circuitBreakerRejections = Metric.counter("http.client.resilience.circuit_breaker.rejections", {
  description: "Attempts rejected by a circuit breaker without being sent ({attempt}).",
  incremental: true
})

/** The attribute value of a circuit state. @internal */
export const circuitStateValue: Readonly<Record<StateTag, string>> = {
  Closed: "closed",
  Open: "open",
  HalfOpen: "half_open",
  Isolated: "isolated"
}

/** `url.scheme`, `server.address`, `server.port` of an origin key. @internal */
export const originLabels = (origin: string): ReadonlyArray<MetricLabel.MetricLabel> => {
  const parts = originParts(origin)
  const labels = [MetricLabel.make(attribute.serverAddress, parts.address)]
  if (parts.scheme !== undefined) labels.push(MetricLabel.make(attribute.urlScheme, parts.scheme))
  if (parts.port !== undefined) labels.push(MetricLabel.make(attribute.serverPort, parts.port))
  return labels
}
