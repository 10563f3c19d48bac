import { HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, TestClock } from "effect"
import { ResilientHttpClient, RetryPolicy, Testing } from "effect-http-resilience"
import * as Effect3 from "../src/demo/Effect3.js"
import * as Scenarios from "../src/demo/Scenarios.js"
import * as Timeline from "../src/demo/Timeline.js"

const timelineOf = (
  script: Testing.Script,
  policy: RetryPolicy.Options,
  request = HttpClientRequest.get("http://api.test/x")
) =>
  Effect.gen(function* () {
    const lines: Array<string> = []
    const timeline = Timeline.make((line) => lines.push(line), Timeline.plain, 0)
    const scripted = yield* Testing.scriptedHttpClient(script)
    const call = Effect.scoped(
      Effect.flatMap(ResilientHttpClient.ResilientHttpClient, (client) => client.execute(request))
    ).pipe(
      ResilientHttpClient.observeDecisions(Effect3.observer(timeline)),
      Effect.provide(ResilientHttpClient.layer(policy)),
      Effect.provide(scripted.layer),
      Effect.exit
    )
    const fiber = yield* Effect.fork(call)
    yield* TestClock.adjust("1 minute")
    const exit = yield* Fiber.join(fiber)
    const outcome = Effect3.outcomeOf(Exit.map(exit, (response) => String(response.status)))
    return {
      lines,
      failed: timeline.failedAttempts(),
      failure: outcome._tag === "Failure" ? outcome.failure : undefined
    }
  })

describe("demo Timeline", () => {
  it.effect("shows each attempt, the wait and why, capped or not, and the give-up", () =>
    Effect.gen(function* () {
      const { lines, failed } = yield* timelineOf([{ status: 503, headers: { "retry-after": "5" } }, { status: 429 }], {
        maxAttempts: 3,
        maxDelay: "2 seconds",
        backoff: RetryPolicy.constant("750 millis"),
        jitter: "none"
      })
      expect(lines).toEqual([
        "  +0.00s  attempt 1  503 Service Unavailable  -> wait 2.00s (Retry-After 5.00s, capped at maxDelay)",
        "  +2.00s  attempt 2  429 Too Many Requests  -> wait 0.75s (backoff)",
        "  +2.75s  attempt 3  429 Too Many Requests  -> give up (attempts exhausted)"
      ])
      expect(failed).toBe(3)
    })
  )

  it.effect("names connection failures and permanent statuses", () =>
    Effect.gen(function* () {
      const reset = yield* timelineOf([{ transportError: "ECONNRESET" }, { status: 404 }], {
        maxAttempts: 3,
        backoff: RetryPolicy.constant("100 millis"),
        jitter: "none"
      })
      expect(reset.lines).toEqual([
        "  +0.00s  attempt 1  ConnectionError (Transport)  -> wait 0.10s (backoff)",
        "  +0.10s  attempt 2  404 Not Found  -> give up (not worth retrying)"
      ])
    })
  )

  it.effect("says why a call stopped without a retry: a POST without an Idempotency-Key", () =>
    Effect.gen(function* () {
      const { lines, failed, failure } = yield* timelineOf(
        [{ status: 503 }],
        { maxAttempts: 3 },
        HttpClientRequest.post("http://api.test/orders")
      )
      expect(lines).toEqual(["  +0.00s  attempt 1  503 Service Unavailable  -> give up (not idempotent)"])
      expect(failed).toBe(1)
      // The outcome line: the failure's own words, without the request the heading shows.
      expect(failure && Scenarios.describeFailure(failure)).toMatch(
        /^TransientStatus: status 503 on attempt 1; not retried: POST is not idempotent/
      )
    })
  )

  it("colours only on a terminal without NO_COLOR", () => {
    expect(Timeline.styleFor({ isTTY: true }, {})).toBe(Timeline.colour)
    expect(Timeline.styleFor({ isTTY: true }, { NO_COLOR: "1" })).toBe(Timeline.plain)
    expect(Timeline.styleFor({ isTTY: false }, {})).toBe(Timeline.plain)
    expect(Timeline.colour.red("x")).toBe("\u001b[31mx\u001b[39m")
  })
})
