/**
 * The seed scenarios (the delegating handler's acceptance tests) on the TestClock, each a row:
 * what the server answers, the policy, and the exact attempt times and outcome.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Exit, Option } from "effect"
import { TestClock } from "effect/testing"
import * as HttpFailure from "../src/HttpFailure.js"
import type * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { failureOf, runScripted } from "./support/harness.js"
import type * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/resource"
const get = (client: ResilientHttpClient.ResilientHttpClient.Service) => client.get(url)
const now = Date.parse("2026-01-01T00:00:00Z")

interface Scenario {
  readonly name: string
  readonly script: ReadonlyArray<ScriptedHttpClient.Answer>
  readonly policy: RetryPolicy.Options
  /** Milliseconds after the call's start. */
  readonly times: ReadonlyArray<number>
  /** The status of the success, or of the TransientStatus handed back. */
  readonly outcome: { readonly succeeded: number } | { readonly failed: number; readonly attempt: number }
}

const scenarios: ReadonlyArray<Scenario> = [
  {
    name: "EchoPlay: linear 500 ms, 3 attempts; 503, 503, 200 succeeds on the third",
    script: [{ status: 503 }, { status: 503 }, { status: 200, body: "ok" }],
    policy: { jitter: "none", maxAttempts: 3, backoff: RetryPolicy.linear("500 millis") },
    times: [0, 500, 1500],
    outcome: { succeeded: 200 }
  },
  {
    name: "a lasting 503 with Retry-After: 5 and maxDelay 2 s waits the cap twice, hands back attempt 3",
    script: [{ status: 503, headers: { "retry-after": "5" } }],
    policy: { jitter: "none", maxAttempts: 3, maxDelay: "2 seconds" },
    times: [0, 2000, 4000],
    outcome: { failed: 503, attempt: 3 }
  },
  {
    name: "twice 503 with Retry-After: 1, then 200: the third attempt succeeds",
    script: [
      { status: 503, headers: { "retry-after": "1" } },
      { status: 503, headers: { "retry-after": "1" } },
      { status: 200 }
    ],
    policy: { jitter: "none" },
    times: [0, 1000, 2000],
    outcome: { succeeded: 200 }
  },
  {
    name: "a 400 is not retried: one attempt",
    script: [{ status: 400 }],
    policy: {},
    times: [0],
    outcome: { failed: 400, attempt: 1 }
  },
  {
    name: "a 503 without Retry-After backs off exponentially: 500 ms, then 1 s",
    script: [{ status: 503, headers: { "x-simulated": "true" } }],
    policy: { jitter: "none" },
    times: [0, 500, 1500],
    outcome: { failed: 503, attempt: 3 }
  },
  {
    name: "Retry-After as an HTTP-date 3 s ahead waits 3 s",
    script: [{ status: 503, headers: { "retry-after": new Date(now + 3000).toUTCString() } }, { status: 200 }],
    policy: { jitter: "none" },
    times: [0, 3000],
    outcome: { succeeded: 200 }
  }
]

describe("the seed scenarios, Effect 4", () => {
  for (const scenario of scenarios) {
    it.effect(scenario.name, () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(now)
        const run = yield* runScripted(scenario.script, scenario.policy, get)
        expect(run.times()).toEqual(scenario.times)
        if ("succeeded" in scenario.outcome) {
          assert.isTrue(Exit.isSuccess(run.exit))
          if (Exit.isSuccess(run.exit)) expect(run.exit.value.status).toBe(scenario.outcome.succeeded)
        } else {
          const failure = failureOf(run)
          assert.isTrue(HttpFailure.isTransientStatus(failure) || HttpFailure.isPermanentStatus(failure))
          if (failure._tag === "TransientStatus" || failure._tag === "PermanentStatus") {
            expect(failure.status).toBe(scenario.outcome.failed)
            expect(failure.attempt).toBe(scenario.outcome.attempt)
          }
        }
        // Every discarded response was released before the next attempt went out.
        expect(run.scripted.exchanges.slice(0, -1).map((exchange) => exchange.releasedBeforeNext)).toEqual(
          run.scripted.exchanges.slice(0, -1).map(() => true)
        )
      })
    )
  }

  it.effect("the caller sees why the call stopped: the 503's Retry-After, and the reason in words", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "5" } }],
        { jitter: "none", maxDelay: "2 seconds" },
        get
      )
      const failure = failureOf(run)
      assert.strictEqual(failure._tag, "TransientStatus")
      if (failure._tag !== "TransientStatus") return
      expect(failure.retryAfter).toEqual(Option.some(Duration.millis(5000)))
      expect(failure.giveUpReason).toBe("attempts-exhausted")
      expect(failure.message).toBe(`GET ${url}: status 503 on attempt 3; gave up after 3 attempts`)
    })
  )
})
