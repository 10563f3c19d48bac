// @generated from templates/src/internal/metrics.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Every metric of the library, in one place, under `http.client.resilience.*`: OpenTelemetry
 * has no resilience conventions. Attributes reuse the HTTP client conventions' names
 * (`url.scheme`, `server.address`, `server.port`, `http.request.method`); an origin is split into
 * the first three, as the HTTP client metrics do, for at most `Telemetry.maxOriginLabelValues`
 * distinct origins.
 *
 * No `http.client.request.duration`: it is the transport's metric (OpenTelemetry's undici
 * instrumentation records it per physical request, under that name), the transport's span per
 * request already carries each attempt's duration, and recording it here too would cost every
 * attempt two clock reads, an exit hook and a histogram update on the happy path.
 *
 * @internal
 */
import type { StateTag } from "@effect-http-resilience/core/CircuitBreaker"
import * as Telemetry from "@effect-http-resilience/core/Telemetry"
import * as Metric from "effect/Metric"
import * as line from "./line.js"

/** Attribute keys, the shared core's names. @internal */
export const attribute = Telemetry.attribute

const counter = (spec: Telemetry.MetricSpec): Metric.Counter<number> =>
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

/** Attempts the rate limit held until a token came. Attributes: origin. @internal */
export const rateLimitWaits = counter(Telemetry.metrics.rateLimitWaits)

/** Attempts the rate limit refused, unsent. Attributes: origin. @internal */
export const rateLimitRefusals = counter(Telemetry.metrics.rateLimitRefusals)

/** One series per state, 1 for the current one and 0 for the others. Attributes: origin, state. @internal */
export const circuitBreakerState = Metric.gauge(Telemetry.metrics.circuitBreakerState.name, {
  description: Telemetry.metrics.circuitBreakerState.description
})

/** State changes. Attributes: origin, previous_state, state. @internal */
export const circuitBreakerTransitions = counter(Telemetry.metrics.circuitBreakerTransitions)

/** Attempts an open, half-open or isolated circuit refused. Attributes: origin, state. @internal */
export const circuitBreakerRefusals = counter(Telemetry.metrics.circuitBreakerRefusals)

/** Attempts a full concurrency limit and queue refused, unsent. Attributes: origin. @internal */
export const concurrencyLimitRefusals = counter(Telemetry.metrics.concurrencyLimitRefusals)

/** Attempts that waited in a concurrency limit's queue. Attributes: origin. @internal */
export const concurrencyLimitWaits = counter(Telemetry.metrics.concurrencyLimitWaits)

/** The adaptive concurrency limit in force, set at each change. Attributes: origin. @internal */
export const concurrencyLimit = Metric.gauge(Telemetry.metrics.concurrencyLimit.name, {
  description: Telemetry.metrics.concurrencyLimit.description
})

/** The attribute value of a circuit state. @internal */
const circuitStateValue = Telemetry.circuitStateValue

/** An origin's attributes as this line attaches them to a metric update. @internal */
export type OriginLabels = line.Attributes

const originAttributesCapped = Telemetry.cappedOriginAttributes(line.attributesOf)

/**
 * `url.scheme`, `server.address`, `server.port` of an origin key, one value per origin; past the
 * first `Telemetry.maxOriginLabelValues` (1000) origins of the process, the `_OTHER` overflow's,
 * so the registry holds a bounded number of series.
 *
 * @internal
 */
export const originAttributes: (origin: string) => OriginLabels = originAttributesCapped.of

/** Whether labels are the overflow's: a gauge of per-origin state has no meaning summed. @internal */
export const isOverflow = (labels: OriginLabels): boolean => labels === originAttributesCapped.overflow

/** An origin's labels with a circuit's state, and the state it left if given. @internal */
export const withCircuitStates = (labels: OriginLabels, state: StateTag, previous?: StateTag): OriginLabels =>
  line.withAttributes(
    labels,
    previous === undefined
      ? { [attribute.circuitState]: circuitStateValue[state] }
      : {
          [attribute.circuitPreviousState]: circuitStateValue[previous],
          [attribute.circuitState]: circuitStateValue[state]
        }
  )
