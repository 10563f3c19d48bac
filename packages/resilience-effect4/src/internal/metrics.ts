/**
 * Every metric of the library, named as the Effect 3 line names them: OpenTelemetry's HTTP
 * client conventions where one exists, the rest under `http.client.resilience.*`. Attributes
 * reuse the conventions' names; an origin is split into `url.scheme`, `server.address` and
 * `server.port`.
 *
 * @internal
 */
import type { StateTag } from "@effect-http-resilience/core/CircuitBreaker"
import { originParts } from "@effect-http-resilience/core/Origin"
import * as Metric from "effect/Metric"

/** Attribute keys. @internal */
export const attribute = {
  urlScheme: "url.scheme",
  serverAddress: "server.address",
  serverPort: "server.port",
  requestMethod: "http.request.method",
  giveUpReason: "http.client.resilience.give_up.reason",
  circuitState: "http.client.resilience.circuit_breaker.state",
  circuitPreviousState: "http.client.resilience.circuit_breaker.previous_state"
} as const

const counter = (name: string, description: string): Metric.Counter<number> =>
  Metric.counter(name, { description, incremental: true })

/** @internal */
export const attempts = counter(
  "http.client.resilience.attempts",
  "HTTP attempts sent, the first attempt of each call included ({attempt})."
)

/** @internal */
export const retries = counter(
  "http.client.resilience.retries",
  "HTTP attempts that retried a failed attempt ({retry})."
)

/** @internal */
export const giveUps = counter(
  "http.client.resilience.give_ups",
  "HTTP calls that ended with a failure, by the reason no further attempt was made ({call})."
)

/** @internal */
export const retryBudgetRefusals = counter(
  "http.client.resilience.retry_budget.refusals",
  "Retries the retry budget refused ({retry})."
)

/** One series per state, 1 for the current one and 0 for the others (OpenTelemetry's `hw.status` pattern). @internal */
export const circuitBreakerState = Metric.gauge("http.client.resilience.circuit_breaker.state", {
  description: "Circuit breaker state per origin: 1 for the current state, 0 for the others."
})

/** @internal */
export const circuitBreakerTransitions = counter(
  "http.client.resilience.circuit_breaker.transitions",
  "Circuit breaker state changes ({transition})."
)

/** @internal */
export const circuitBreakerRejections = counter(
  "http.client.resilience.circuit_breaker.rejections",
  "Attempts rejected by a circuit breaker without being sent ({attempt})."
)

/** @internal */
export const circuitStateValue: Readonly<Record<StateTag, string>> = {
  Closed: "closed",
  Open: "open",
  HalfOpen: "half_open",
  Isolated: "isolated"
}

/** `url.scheme`, `server.address`, `server.port` of an origin key. @internal */
export const originAttributes = (origin: string): Readonly<Record<string, string>> => {
  const parts = originParts(origin)
  return {
    [attribute.serverAddress]: parts.address,
    ...(parts.scheme === undefined ? {} : { [attribute.urlScheme]: parts.scheme }),
    ...(parts.port === undefined ? {} : { [attribute.serverPort]: parts.port })
  }
}
