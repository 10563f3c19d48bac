/**
 * What a line's runner records of a scenario, and the result it compares with the scenario's
 * `expected`: the runner brings its clock, its transport's record of requests, how each call
 * ended and its metric readings; everything else is here, once for both lines.
 */
import type { ConnectionFailureReason, GiveUpReason } from "@effect-http-resilience/core/FailureMessage"
import * as CoalesceCore from "@effect-http-resilience/core/Coalesce"
import * as ScriptedTransport from "@effect-http-resilience/core/ScriptedTransport"
import * as Telemetry from "@effect-http-resilience/core/Telemetry"
import {
  callsOf,
  type Expected,
  hostOf,
  type MetricValues,
  type Outcome,
  type Release,
  type Scenario
} from "./Scenario.js"

/** One series of a counter, as a runner reads it from its line's `Metric.snapshot`. */
export interface MetricReading {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly value: number
}

/** The fields of an `HttpFailure` (either line) that a scenario checks. */
interface FailureFields {
  readonly _tag: string
  readonly attempt: number
  readonly giveUpReason?: GiveUpReason | undefined
  readonly status?: number
  readonly reason?: string
}

/** How a call ended, as the runner saw it: a response's status, or the failure. */
type CallResult = { readonly status: number } | { readonly failure: FailureFields }

/** The record of one run of a scenario. */
export interface Recorder {
  /**
   * The Web `Response` for the `request`-th request (1-based): that request's script step, with
   * a body that records when it is released. Throws if that step is not a response.
   */
  readonly response: (request: number) => Response
  /** How long to wait before the `call`-th call (0-based) starts: until its start time, if it is not past. */
  readonly waitBeforeCall: (call: number) => number
  /** Records how the current call ended, at the clock's time now. */
  readonly callEnded: (result: CallResult) => void
  /** The result to compare with the scenario's `expected`. */
  readonly result: (
    requests: ReadonlyArray<{ readonly sentAtMillis: number }>,
    metricsBefore: ReadonlyArray<MetricReading>,
    metricsAfter: ReadonlyArray<MetricReading>
  ) => Expected
}

const connectionReasons: ReadonlyArray<ConnectionFailureReason> = [
  "Transport",
  "Timeout",
  "InvalidRequest",
  "Unrecoverable",
  "CircuitOpen",
  "CoolingDown",
  "RateLimited"
]

const outcomeOf = (result: CallResult, atMillis: number): Outcome => {
  if ("status" in result) return { atMillis, status: result.status }
  const failure = result.failure
  const giveUpReason = failure.giveUpReason
  if (giveUpReason === undefined) throw new Error(`a ${failure._tag} ended the call without a giveUpReason`)
  const { _tag: tag, attempt, status, reason } = failure
  if ((tag === "TransientStatus" || tag === "PermanentStatus") && status !== undefined) {
    return { atMillis, failure: tag, status, attempt, giveUpReason }
  }
  const connectionReason = connectionReasons.find((known) => known === reason)
  if (tag === "ConnectionError" && connectionReason !== undefined) {
    return { atMillis, failure: tag, reason: connectionReason, attempt, giveUpReason }
  }
  throw new Error(`a failure no scenario expects: ${tag} ${reason ?? status ?? ""}`)
}

const serverAddress = Telemetry.attribute.serverAddress
const giveUpReasonKey = Telemetry.attribute.giveUpReason

/** The scenario's share of each counter: the sum of its host's series, by give-up reason for give-ups. */
const metricValues = (scenario: Scenario, readings: ReadonlyArray<MetricReading>): MetricValues => {
  const host = hostOf(scenario)
  const ofHost = readings.filter((reading) => reading.attributes[serverAddress] === host)
  const total = (name: string): number =>
    ofHost.filter((reading) => reading.name === name).reduce((sum, reading) => sum + reading.value, 0)
  const giveUps: Record<string, number> = {}
  for (const reading of ofHost) {
    const reason = reading.attributes[giveUpReasonKey]
    if (reading.name !== Telemetry.metrics.giveUps.name || reason === undefined) continue
    giveUps[reason] = (giveUps[reason] ?? 0) + reading.value
  }
  return {
    attempts: total(Telemetry.metrics.attempts.name),
    retries: total(Telemetry.metrics.retries.name),
    giveUps,
    retryBudgetRefusals: total(Telemetry.metrics.retryBudgetRefusals.name),
    circuitBreakerRefusals: total(Telemetry.metrics.circuitBreakerRefusals.name),
    hedges: total(Telemetry.metrics.hedges.name),
    hedgeWins: total(Telemetry.metrics.hedgeWins.name),
    concurrencyLimitRefusals: total(Telemetry.metrics.concurrencyLimitRefusals.name),
    coalesced: total(CoalesceCore.coalescedMetric.name)
  }
}

/** What happened between two readings (Effect's metric registry is global and only grows). */
const metricDelta = (before: MetricValues, after: MetricValues): MetricValues => {
  const hedges = (after.hedges ?? 0) - (before.hedges ?? 0)
  const hedgeWins = (after.hedgeWins ?? 0) - (before.hedgeWins ?? 0)
  const concurrencyLimitRefusals = (after.concurrencyLimitRefusals ?? 0) - (before.concurrencyLimitRefusals ?? 0)
  const coalesced = (after.coalesced ?? 0) - (before.coalesced ?? 0)
  const giveUps: Record<string, number> = {}
  for (const [reason, count] of Object.entries(after.giveUps)) {
    const added = count - (before.giveUps[reason] ?? 0)
    if (added !== 0) giveUps[reason] = added
  }
  return {
    attempts: after.attempts - before.attempts,
    retries: after.retries - before.retries,
    giveUps,
    retryBudgetRefusals: after.retryBudgetRefusals - before.retryBudgetRefusals,
    circuitBreakerRefusals: after.circuitBreakerRefusals - before.circuitBreakerRefusals,
    // Counters only some scenarios have are left out when they did not move.
    ...(hedges === 0 ? {} : { hedges }),
    ...(hedgeWins === 0 ? {} : { hedgeWins }),
    ...(concurrencyLimitRefusals === 0 ? {} : { concurrencyLimitRefusals }),
    ...(coalesced === 0 ? {} : { coalesced })
  }
}

/**
 * Starts the record of one run of a scenario. `now` reads the line's clock (the `TestClock`)
 * synchronously, as a body's release is reported from inside the Web stream; the scenario's
 * times count from the moment this is called.
 */
export const record = (scenario: Scenario, now: () => number): Recorder => {
  const start = now()
  const elapsed = (): number => now() - start
  const released: Array<Release> = []
  const outcomes: Array<Outcome> = []
  const calls = callsOf(scenario)
  return {
    response: (request) => {
      const step = ScriptedTransport.stepAt(scenario.script, request)
      if (!("status" in step)) throw new Error(`request ${request} of ${scenario.id} got a response its step is not`)
      return ScriptedTransport.toWebResponse(step, {
        onEnd: () => released.push({ request, atMillis: elapsed(), how: "drained" }),
        onCancel: () => released.push({ request, atMillis: elapsed(), how: "cancelled" })
      })
    },
    waitBeforeCall: (call) => Math.max(0, (calls[call] ?? 0) - elapsed()),
    callEnded: (result) => {
      outcomes.push(outcomeOf(result, elapsed()))
    },
    result: (requests, metricsBefore, metricsAfter) => ({
      sentAtMillis: requests.map((request) => request.sentAtMillis - start),
      outcomes: [...outcomes],
      released: [...released],
      metrics: metricDelta(metricValues(scenario, metricsBefore), metricValues(scenario, metricsAfter))
    })
  }
}
