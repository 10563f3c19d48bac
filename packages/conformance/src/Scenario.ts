/**
 * What a conformance scenario is: a policy as plain options that both lines accept, a request,
 * a script of answers (core's `ScriptedTransport` steps, as `Testing.scriptedHttpClient` takes
 * them), when each call starts, and everything a line must do: when each request is sent, how
 * each call ends, when each discarded response is released, and what the metrics count.
 * Times are milliseconds on the `TestClock`, from the scenario's start.
 */
import type { ConnectionFailureReason, GiveUpReason } from "@effect-http-resilience/core/FailureMessage"
import type { ScriptStep } from "@effect-http-resilience/core/ScriptedTransport"

/** A backoff as `RetryPolicy.linear`, `exponential` and `constant` build it, base in milliseconds. */
type Backoff =
  | { readonly _tag: "Linear"; readonly base: number }
  | { readonly _tag: "Constant"; readonly base: number }
  | { readonly _tag: "Exponential"; readonly base: number; readonly factor: number }

/**
 * `RetryPolicy.Options` as plain data valid on both lines: durations in milliseconds, and the
 * budget and breaker as the records their constructors return. Jitter is off or absent: a
 * scenario's waits are exact.
 */
export interface PolicyOptions {
  readonly maxAttempts?: number
  readonly backoff?: Backoff
  readonly maxDelay?: number
  readonly jitter?: "none"
  readonly retryAfter?: "respect" | "ignore"
  readonly whenRetryAfterExceedsMaxDelay?: "wait-max-delay" | "give-up"
  readonly retryNonIdempotent?: boolean
  readonly retryHints?: {
    readonly retryAfterMillis?: ReadonlyArray<string>
    readonly shouldRetry?: ReadonlyArray<string>
  }
  /** `isTransientConnectionError`: a connection failure is retried when a code of its cause is one of these. */
  readonly transientConnectionCodes?: ReadonlyArray<string>
  readonly maxElapsed?: number | "infinity"
  readonly attemptTimeout?: number | "infinity"
  readonly totalTimeout?: number | "infinity"
  readonly retryBudget?:
    | "none"
    | { readonly ratio?: number; readonly minPerSecond?: number; readonly ttl?: number }
    | { readonly _tag: "TokenBucket"; readonly options: { readonly maxTokens?: number; readonly tokenRatio?: number } }
  readonly hedging?: { readonly delay: number; readonly maxCopies?: number }
  readonly concurrencyLimit?: { readonly limit: number; readonly queue?: number }
  readonly rateLimit?: { readonly limit: number; readonly window: number; readonly burst?: number }
  /** The headers read with no extra names (`RateLimit.fromHeaders()`). */
  readonly rateLimitHeaders?: Record<string, never>
  /** `BodyIdleTimeout.make(bodyIdleTimeout)`, in milliseconds. */
  readonly bodyIdleTimeout?: number
  readonly circuitBreaker?: {
    readonly tripPolicy?: { readonly _tag: "Consecutive"; readonly failures: number }
    readonly breakDuration?: number
    readonly slowCalls?: {
      readonly duration?: number
      readonly ratio?: number
      readonly minimumThroughput?: number
      readonly samplingDuration?: number
    }
    readonly halfOpen?: { readonly probes?: number; readonly successes?: number }
  }
  /** `Coalesce.identical` with these options. */
  readonly coalesce?: { readonly maxBodyBytes?: number }
}

/**
 * The request every call of a scenario sends. `body`: none, a text body (sent again whole on a
 * retry), or a stream (one-shot: the first attempt consumes it).
 */
interface RequestSpec {
  readonly method: "GET" | "HEAD" | "DELETE" | "POST" | "PUT" | "PATCH"
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: "none" | "text" | "stream"
}

/** How a call ended, and when (`atMillis`): a 2xx response, or a failure with its give-up reason. */
export type Outcome =
  | { readonly atMillis: number; readonly status: number }
  | {
      readonly atMillis: number
      readonly failure: "TransientStatus" | "PermanentStatus"
      readonly status: number
      readonly attempt: number
      readonly giveUpReason: GiveUpReason
    }
  | {
      readonly atMillis: number
      readonly failure: "ConnectionError"
      readonly reason: ConnectionFailureReason
      readonly attempt: number
      readonly giveUpReason: GiveUpReason
    }

/** The response of the `request`-th request (1-based) was released: read to its end, or cancelled. */
export interface Release {
  readonly request: number
  readonly atMillis: number
  readonly how: "drained" | "cancelled"
}

/** What the scenario adds to the metrics of its origin (`Telemetry.metrics`), all methods together. */
export interface MetricValues {
  readonly attempts: number
  readonly retries: number
  /** Give-ups by reason (a `GiveUpReason`); a reason with none is left out. */
  readonly giveUps: Readonly<Record<string, number>>
  readonly retryBudgetRefusals: number
  readonly circuitBreakerRefusals: number
  /** Hedged copies sent; left out when none. */
  readonly hedges?: number
  /** Hedged copies that won; left out when none. */
  readonly hedgeWins?: number
  /** Attempts a full concurrency limit and queue refused; left out when none. */
  readonly concurrencyLimitRefusals?: number
  /** Calls answered by another call's request in flight (coalesced); left out when none. */
  readonly coalesced?: number
}

/** Everything a line must do in a scenario. */
export interface Expected {
  /** When each request reached the transport. */
  readonly sentAtMillis: ReadonlyArray<number>
  /** One per call, in order. */
  readonly outcomes: ReadonlyArray<Outcome>
  /** Every response that was released, in the order it was. */
  readonly released: ReadonlyArray<Release>
  readonly metrics: MetricValues
}

/** One conformance scenario. */
export interface Scenario {
  /** Unique, in kebab case: it names the test and the scenario's own host. */
  readonly id: string
  /** What the scenario shows, in a sentence. */
  readonly description: string
  readonly policy: PolicyOptions
  readonly request: RequestSpec
  /** The answer to each request in order, the last one repeated (core's `ScriptedTransport`). */
  readonly script: readonly [ScriptStep, ...ReadonlyArray<ScriptStep>]
  /** When each call starts, one after the other: a call starts at its time or when the previous one ended. [[0]] */
  readonly calls?: ReadonlyArray<number>
  /** The calls run side by side, each from its start time, rather than one after the other. [false] */
  readonly concurrent?: boolean
  /** The calls run inside a parent span (`Effect.withSpan`), which must change nothing. [false] */
  readonly withinSpan?: boolean
  /**
   * Each call reads its response's body to the end, through its stream; a read that fails ends
   * the call with the library's failure it carries (the platform error's cause). [false]
   */
  readonly readBody?: boolean
  readonly expected: Expected
}

/** The host of a scenario: its own, so that its overload state and metric series are its own. */
export const hostOf = (scenario: Scenario): string => `${scenario.id}.conformance.test`

/** The full URL of a scenario's request. */
export const urlOf = (scenario: Scenario): string => `http://${hostOf(scenario)}${scenario.request.path}`

/** The start times of a scenario's calls. */
export const callsOf = (scenario: Scenario): ReadonlyArray<number> => scenario.calls ?? [0]
