/**
 * The library's metrics exported through OpenTelemetry with `@effect/opentelemetry`.
 *
 * The resilient client records Effect `Metric`s (attempts, retries, give-ups by reason, retry
 * budget refusals, and the circuit breaker's state, transitions and rejections), named
 * `http.client.resilience.*` with OpenTelemetry's HTTP attribute names. `Metrics.layer` hands
 * every Effect metric to an OpenTelemetry `MetricReader` as a metric producer: whatever exporter
 * the reader drives (OTLP, Prometheus, the console, in memory) receives them, with no code in
 * the calls themselves. Counters arrive as monotonic cumulative sums, the breaker's state as a
 * gauge.
 *
 * @since 0.2.0
 */
import * as Metrics from "@effect/opentelemetry/Metrics"
import * as Resource from "@effect/opentelemetry/Resource"
import type { MetricReader } from "@opentelemetry/sdk-metrics"
import type { LazyArg } from "effect/Function"
import * as Layer from "effect/Layer"
import { CircuitBreaker, RetryPolicy } from "effect-http-resilience"

/**
 * Short waits, the default retry budget, and a circuit breaker that opens after 5 failed
 * attempts in a row (a service with little traffic: the default sampling breaker wants at
 * least 100 attempts in 30 s before it judges).
 *
 * @since 0.2.0
 * @category policies
 */
export const policy: RetryPolicy.RetryPolicy = RetryPolicy.make({
  maxAttempts: 3,
  backoff: RetryPolicy.exponential("100 millis"),
  circuitBreaker: CircuitBreaker.perOrigin({ tripPolicy: CircuitBreaker.consecutive(5), breakDuration: "5 seconds" })
})

/**
 * @since 0.2.0
 * @category models
 */
export interface Options {
  /** `service.name` of the OpenTelemetry resource the metrics are reported for. */
  readonly serviceName: string
  /** The reader the metrics are collected by; it owns the exporter and when it exports. */
  readonly reader: LazyArg<MetricReader>
}

/**
 * Every Effect metric, the library's among them, collected by the reader; the reader is shut
 * down (exporting what is left) when the layer is released.
 *
 * @since 0.2.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<never> =>
  Metrics.layer(options.reader).pipe(Layer.provide(Resource.layer({ serviceName: options.serviceName })))
