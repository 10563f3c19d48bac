/**
 * What both libraries report, by the same names: the metrics (OpenTelemetry's HTTP client
 * conventions where one exists, the rest under `http.client.resilience.*`), their attributes,
 * and the attributes of a retry decision (a span event, a debug log line). Each library builds
 * its own Effect metrics from these.
 *
 * @example
 * ```ts
 * import { Telemetry } from "@effect-http-resilience/core"
 *
 * Telemetry.attribute.requestMethod // "http.request.method"
 * ```
 *
 * @since 0.1.0
 */
import type { StateTag } from "./CircuitBreaker.js"
import type { ConnectionFailureReason, GiveUpReason } from "./FailureMessage.js"
import { originParts } from "./Origin.js"
import * as Redaction from "./Redaction.js"
import type { DelaySource } from "./RetrySchedule.js"

/**
 * Attribute keys, OpenTelemetry's where they exist.
 *
 * @since 0.1.0
 * @category metrics
 */
export const attribute = {
  urlScheme: "url.scheme",
  serverAddress: "server.address",
  serverPort: "server.port",
  requestMethod: "http.request.method",
  /** A give-up reason. */
  giveUpReason: "http.client.resilience.give_up.reason",
  /** closed | open | half_open | isolated */
  circuitState: "http.client.resilience.circuit_breaker.state",
  circuitPreviousState: "http.client.resilience.circuit_breaker.previous_state"
} as const

/**
 * A metric's name and description (units in the description, as Effect metrics carry none).
 *
 * @since 0.1.0
 * @category metrics
 */
export interface MetricSpec {
  readonly name: string
  readonly description: string
}

const knownMethods: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH"
])

/**
 * A method as the `http.request.method` attribute: the standard methods as they are, any other
 * as `_OTHER` (OpenTelemetry's rule), so that made-up methods cannot grow the metric series.
 *
 * @since 0.2.0
 * @category attributes
 */
export const methodAttribute = (method: string): string => (knownMethods.has(method) ? method : "_OTHER")

/**
 * The metrics: counters but `circuitBreakerState`, a gauge with one series per state (1 for the
 * current one, 0 for the others: OpenTelemetry's `hw.status` pattern).
 *
 * @since 0.1.0
 * @category metrics
 */
export const metrics = {
  /** Every attempt, the first included. Attributes: method, origin. */
  attempts: {
    name: "http.client.resilience.attempts",
    description: "HTTP attempts sent, the first attempt of each call included ({attempt})."
  },
  /** Attempts after the first. Attributes: method, origin. */
  retries: {
    name: "http.client.resilience.retries",
    description: "HTTP attempts that retried a failed attempt ({retry})."
  },
  /** Calls that ended with a failure. Attributes: method, origin, reason. */
  giveUps: {
    name: "http.client.resilience.give_ups",
    description: "HTTP calls that ended with a failure, by the reason no further attempt was made ({call})."
  },
  /** Retries the budget refused. Attributes: origin. */
  retryBudgetRefusals: {
    name: "http.client.resilience.retry_budget.refusals",
    description: "Retries the retry budget refused ({retry})."
  },
  /** Attempts the rate limit held until a token came. Attributes: origin. */
  rateLimitWaits: {
    name: "http.client.resilience.rate_limit.waits",
    description: "Attempts the client's rate limit held back until a token came ({attempt})."
  },
  /** Attempts the rate limit refused: no token before the deadline. Attributes: origin. */
  rateLimitRefusals: {
    name: "http.client.resilience.rate_limit.refusals",
    description: "Attempts the client's rate limit refused, unsent: no token before the call's deadline ({attempt})."
  },
  /** Hedged copies sent (copy 2 and later of an attempt). Attributes: method, origin. */
  hedges: {
    name: "http.client.resilience.hedges",
    description: "Hedged copies of an attempt sent while an earlier copy was in flight ({attempt})."
  },
  /** Hedged copies whose response won their race. Attributes: method, origin. */
  hedgeWins: {
    name: "http.client.resilience.hedge_wins",
    description: "Hedged copies whose response was the one used, the earlier copies interrupted ({attempt})."
  },
  /** Attributes: origin, state. */
  circuitBreakerState: {
    name: "http.client.resilience.circuit_breaker.state",
    description: "Circuit breaker state per origin: 1 for the current state, 0 for the others."
  },
  /** Attributes: origin, previous_state, state. */
  circuitBreakerTransitions: {
    name: "http.client.resilience.circuit_breaker.transitions",
    description: "Circuit breaker state changes ({transition})."
  },
  /** Attributes: origin, state. */
  circuitBreakerRefusals: {
    name: "http.client.resilience.circuit_breaker.refusals",
    description: "Attempts a circuit breaker refused, unsent ({attempt})."
  },
  /** Attempts a concurrency limit refused, its queue full. Attributes: origin. */
  concurrencyLimitRefusals: {
    name: "http.client.resilience.concurrency_limit.refusals",
    description: "Attempts not sent because the origin's concurrency limit and its queue were full ({attempt})."
  },
  /** Attempts that waited in a concurrency limit's queue. Attributes: origin. */
  concurrencyLimitWaits: {
    name: "http.client.resilience.concurrency_limit.waits",
    description: "Attempts that waited in the queue of the origin's concurrency limit for a permit ({attempt})."
  },
  /** The adaptive concurrency limit in force. Attributes: origin. */
  concurrencyLimit: {
    name: "http.client.resilience.concurrency_limit.limit",
    description:
      "The adaptive concurrency limit in force for the origin: attempts allowed in flight at once ({attempt})."
  }
} as const satisfies Record<string, MetricSpec>

/**
 * The attribute value of a circuit state.
 *
 * @since 0.1.0
 * @category metrics
 */
export const circuitStateValue: Readonly<Record<StateTag, string>> = {
  Closed: "closed",
  Open: "open",
  HalfOpen: "half_open",
  Isolated: "isolated"
}

/**
 * `url.scheme`, `server.address` and `server.port` of an origin key, as the HTTP client
 * metrics split an origin.
 *
 * @since 0.1.0
 * @category metrics
 */
export const originAttributes = (origin: string): Readonly<Record<string, string>> => {
  const parts = originParts(origin)
  const attributes: Record<string, string> = { [attribute.serverAddress]: parts.address }
  if (parts.scheme !== undefined) attributes[attribute.urlScheme] = parts.scheme
  if (parts.port !== undefined) attributes[attribute.serverPort] = parts.port
  return attributes
}

/**
 * How many distinct origins get metric attributes of their own, per process and Effect line: a
 * series in Effect's metric registry lives as long as the process, so a client that calls many
 * hosts (a crawler, a webhook sender) would otherwise add series without end. Origins past it
 * share {@link overflowValue}.
 *
 * @since 0.1.0
 * @category metrics
 */
export const maxOriginLabelValues = 1000

/**
 * The value of `url.scheme`, `server.address` and `server.port` for an origin past
 * {@link maxOriginLabelValues}: OpenTelemetry's value for what overflows a set of known values.
 *
 * @since 0.1.0
 * @category metrics
 */
export const overflowValue = "_OTHER"

/**
 * The origin attributes of every origin past the cap.
 *
 * @since 0.1.0
 * @category metrics
 */
export const overflowAttributes: Readonly<Record<string, string>> = {
  [attribute.serverAddress]: overflowValue,
  [attribute.urlScheme]: overflowValue,
  [attribute.serverPort]: overflowValue
}

/**
 * Origin attributes with a cap on distinct origins: the first `maxOrigins` origins seen keep
 * their own for good (their series already exist), later ones get the overflow's. `make` turns
 * attributes into what a line's metrics take, once per labelled origin; the result is cached,
 * so the same origin always gets the same value (Effect 3 caches metric hooks by label array).
 *
 * @since 0.1.0
 * @category metrics
 */
export const cappedOriginAttributes = <A>(
  make: (attributes: Readonly<Record<string, string>>) => A,
  maxOrigins: number = maxOriginLabelValues
): { readonly of: (origin: string) => A; readonly overflow: A; readonly size: () => number } => {
  const labelled = new Map<string, A>()
  const overflow = make(overflowAttributes)
  return {
    of: (origin) => {
      let labels = labelled.get(origin)
      if (labels === undefined) {
        if (labelled.size >= maxOrigins) return overflow
        labels = make(originAttributes(origin))
        labelled.set(origin, labels)
      }
      return labels
    },
    overflow,
    size: () => labelled.size
  }
}

/**
 * A retry decision as plain data: the failure it follows and, for a retry, the wait in
 * milliseconds and where it came from; for a give-up, why.
 *
 * @since 0.1.0
 * @category decisions
 */
export type DecisionFacts = {
  readonly failure: {
    readonly _tag: string
    readonly request: { readonly method: string; readonly url: string }
    readonly attempt: number
    readonly reason?: ConnectionFailureReason | undefined
    readonly status?: number | undefined
  }
} & (
  | { readonly _tag: "Retry"; readonly waitMillis: number; readonly source: DelaySource; readonly capped: boolean }
  | { readonly _tag: "GiveUp"; readonly reason: GiveUpReason }
)

// Effect 4's rules: user info and signing query parameters.
const redactWithDefaults = (url: string): string => Redaction.redactUrl(url, Redaction.defaultUrlParamNames)

/**
 * The attributes of a decision's span event and log line, and its name ("retrying", "giving up");
 * `retryAfterMillis` is the delay the failure's server asked for, if any. `url.full` is written
 * through `redactUrl` (by default Effect 4's rules: user info and signing query parameters).
 *
 * @since 0.1.0
 * @category decisions
 */
export const decisionEvent = (
  decision: DecisionFacts,
  retryAfterMillis: number | undefined,
  redactUrl: (url: string) => string = redactWithDefaults
): { readonly name: string; readonly attributes: Record<string, unknown> } => {
  const failure = decision.failure
  const attributes: Record<string, unknown> = {
    "http.request.method": failure.request.method,
    "url.full": redactUrl(failure.request.url),
    "retry.attempt": failure.attempt,
    "retry.failure": failure._tag
  }
  if (failure._tag === "ConnectionError") attributes["retry.reason"] = failure.reason
  else attributes["http.response.status_code"] = failure.status
  if (retryAfterMillis !== undefined) attributes["retry.retry_after_millis"] = retryAfterMillis
  if (decision._tag === "Retry") {
    attributes["retry.wait_millis"] = decision.waitMillis
    attributes["retry.wait_source"] = decision.source
    attributes["retry.wait_capped"] = decision.capped
  } else {
    attributes["retry.give_up_reason"] = decision.reason
  }
  return { name: decision._tag === "Retry" ? "retrying" : "giving up", attributes }
}

/**
 * What a hedge is, as its span event and log line need it: the request, the attempt number the
 * copy was sent as, which copy of its attempt it is (2 for the first hedge), and how long after
 * the previous copy it went.
 *
 * @since 0.2.0
 * @category decisions
 */
export interface HedgeFacts {
  readonly request: { readonly method: string; readonly url: string }
  readonly attempt: number
  readonly copy: number
  readonly delayMillis: number
}

/**
 * The span event and log line of a hedge ("hedging"): `http.request.method`, `url.full` (through
 * `redactUrl`), `retry.attempt`, `hedge.copy` and `hedge.delay_millis`.
 *
 * @since 0.2.0
 * @category decisions
 */
export const hedgeEvent = (
  hedge: HedgeFacts,
  redactUrl: (url: string) => string = redactWithDefaults
): { readonly name: string; readonly attributes: Record<string, unknown> } => ({
  name: "hedging",
  attributes: {
    "http.request.method": hedge.request.method,
    "url.full": redactUrl(hedge.request.url),
    "retry.attempt": hedge.attempt,
    "hedge.copy": hedge.copy,
    "hedge.delay_millis": hedge.delayMillis
  }
})
