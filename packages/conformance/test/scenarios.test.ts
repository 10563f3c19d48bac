/**
 * The scenarios are well-formed and agree with their own scripts, so that a line that fails one
 * is wrong, not the scenario: ids and hosts unique, times whole and in order, one outcome per
 * call, each outcome's status one the script answers, counters that add up, and every release a
 * response that was sent, released no earlier than it was sent and only once.
 */
import * as ScriptedTransport from "@effect-http-resilience/core/ScriptedTransport"
import { describe, expect, it } from "vitest"
import { callsOf, hostOf, type Scenario, scenarios } from "../src/index.js"

const ascending = (times: ReadonlyArray<number>): boolean => times.every((time, i) => i === 0 || time >= times[i - 1]!)
const wholeAndNonNegative = (times: ReadonlyArray<number>): boolean =>
  times.every((time) => Number.isSafeInteger(time) && time >= 0)

/** Calls that ended unsent: rejected by an open circuit, a cool-down or the rate limit before their first request. */
const skippedCalls = (expected: Scenario["expected"]): number =>
  expected.outcomes.filter(
    (outcome) =>
      "reason" in outcome &&
      (outcome.reason === "CircuitOpen" || outcome.reason === "CoolingDown" || outcome.reason === "RateLimited")
  ).length

/** The status the script answers the n-th request with, if it answers with a response. */
const statusOf = (scenario: Scenario, request: number): number | undefined => {
  const step = ScriptedTransport.stepAt(scenario.script, request)
  return "status" in step ? step.status : undefined
}

describe("the conformance scenarios", () => {
  it("are 15 to 80, with unique ids in kebab case", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(15)
    expect(scenarios.length).toBeLessThanOrEqual(80)
    const ids = scenarios.map((scenario) => scenario.id)
    expect(new Set(ids).size).toBe(ids.length)
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
    expect(new Set(scenarios.map(hostOf)).size).toBe(ids.length)
  })

  describe.each(scenarios.map((scenario) => [scenario.id, scenario] as const))("%s", (_, scenario) => {
    const { expected } = scenario
    const calls = callsOf(scenario)

    it("has whole times in order: sends, call starts, outcomes, releases", () => {
      for (const times of [
        expected.sentAtMillis,
        calls,
        expected.outcomes.map((outcome) => outcome.atMillis),
        expected.released.map((release) => release.atMillis)
      ]) {
        expect(wholeAndNonNegative(times)).toBe(true)
        expect(ascending(times)).toBe(true)
      }
      expect(calls[0]).toBe(0)
    })

    it("has one outcome per call, each ending no earlier than its call starts", () => {
      expect(expected.outcomes.length).toBe(calls.length)
      for (const [i, outcome] of expected.outcomes.entries()) {
        expect(outcome.atMillis).toBeGreaterThanOrEqual(calls[i] ?? 0)
      }
    })

    it("has outcomes the script can give: a 2xx success, a failure's status one the script answers", () => {
      const answered = expected.sentAtMillis.map((_, i) => statusOf(scenario, i + 1))
      for (const outcome of expected.outcomes) {
        if (!("failure" in outcome)) {
          expect(outcome.status).toBeGreaterThanOrEqual(200)
          expect(outcome.status).toBeLessThan(300)
          expect(answered).toContain(outcome.status)
        } else if (outcome.failure !== "ConnectionError") {
          expect(answered).toContain(outcome.status)
        }
        if ("failure" in outcome) {
          expect(outcome.attempt).toBeGreaterThanOrEqual(1)
          expect(outcome.attempt).toBeLessThanOrEqual(scenario.policy.maxAttempts ?? 3)
        }
      }
    })

    it("has counters that add up: an attempt per request, a give-up per failed call, retries no more than attempts", () => {
      const { metrics } = expected
      expect(metrics.attempts).toBe(expected.sentAtMillis.length)
      const failures = expected.outcomes.filter((outcome) => "failure" in outcome)
      // A coalesced call sends nothing and gives up nothing of its own: it shares another's end.
      const coalesced = metrics.coalesced ?? 0
      const giveUps = Object.values(metrics.giveUps).reduce((sum, count) => sum + count, 0)
      expect(giveUps).toBeLessThanOrEqual(failures.length)
      expect(giveUps).toBeGreaterThanOrEqual(failures.length - coalesced)
      for (const outcome of failures) {
        if ("failure" in outcome) expect(metrics.giveUps[outcome.giveUpReason]).toBeGreaterThanOrEqual(1)
      }
      expect(metrics.retries).toBeLessThan(Math.max(1, metrics.attempts))
      // A refused hedge ends nothing: with hedging, refusals may outnumber the give-ups they caused.
      const budgetGiveUps = metrics.giveUps["retry-budget-exhausted"] ?? 0
      if (scenario.policy.hedging === undefined) expect(metrics.retryBudgetRefusals).toBe(budgetGiveUps)
      else expect(metrics.retryBudgetRefusals).toBeGreaterThanOrEqual(budgetGiveUps)
      // Every request but each call's first is a retry or a hedge; a hedge wins at most once per call.
      expect(metrics.retries + (metrics.hedges ?? 0)).toBe(
        metrics.attempts - (calls.length - coalesced) + skippedCalls(expected)
      )
      if (scenario.policy.coalesce === undefined) expect(coalesced).toBe(0)
      expect(metrics.hedgeWins ?? 0).toBeLessThanOrEqual(Math.min(metrics.hedges ?? 0, calls.length))
      if (scenario.policy.circuitBreaker === undefined) expect(metrics.circuitBreakerRefusals).toBe(0)
    })

    it("releases only responses that were sent, once each, no earlier than they were sent", () => {
      const requests = expected.released.map((release) => release.request)
      expect(new Set(requests).size).toBe(requests.length)
      for (const release of expected.released) {
        const sentAt = expected.sentAtMillis[release.request - 1]
        expect(sentAt).toBeDefined()
        expect(statusOf(scenario, release.request)).toBeDefined()
        expect(release.atMillis).toBeGreaterThanOrEqual(sentAt ?? Number.POSITIVE_INFINITY)
      }
    })

    it("waits exactly: jitter is off wherever a call waits", () => {
      if (expected.metrics.retries > 0) expect(scenario.policy.jitter).toBe("none")
    })
  })
})
