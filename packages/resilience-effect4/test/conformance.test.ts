// @generated from templates/test/conformance.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The conformance scenarios (packages/conformance) on Effect 4, through the public API: each
 * scenario's calls go through `withResilience` over `Testing.scriptedHttpClient`, on the
 * TestClock. The scripted client's responses are handed over with a body that records its
 * release; metrics are read from `Metric.snapshot`, only the scenario's own host's series.
 */
import * as Conformance from "@effect-http-resilience/conformance"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Metric, Stream } from "effect"
import { HttpBody, HttpClient, type HttpClientError, HttpClientRequest, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"
import * as BodyIdleTimeout from "../src/BodyIdleTimeout.js"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as Coalesce from "../src/Coalesce.js"
import * as ConcurrencyLimit from "../src/ConcurrencyLimit.js"
import * as Hedging from "../src/Hedging.js"
import * as HttpFailure from "../src/HttpFailure.js"
import * as RateLimit from "../src/RateLimit.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import type * as RetryPolicy from "../src/RetryPolicy.js"
import * as Testing from "../src/Testing.js"

const counters: Effect.Effect<ReadonlyArray<Conformance.MetricReading>> = Effect.map(Metric.snapshot, (snapshots) =>
  snapshots.flatMap((snapshot) =>
    snapshot.type === "Counter"
      ? [{ name: snapshot.id, attributes: snapshot.attributes ?? {}, value: Number(snapshot.state.count) }]
      : []
  )
)

const bodies = {
  none: HttpBody.empty,
  text: HttpBody.text("payload"),
  stream: HttpBody.stream(Stream.make(new TextEncoder().encode("payload")))
}

// A scenario's options are data; each opt-in stage is built by its module, as a user builds it.
const policyOf = ({
  hedging,
  concurrencyLimit,
  rateLimit,
  rateLimitHeaders,
  circuitBreaker,
  coalesce,
  bodyIdleTimeout,
  transientConnectionCodes: codes,
  ...options
}: Conformance.PolicyOptions): RetryPolicy.Options => ({
  ...options,
  ...(codes === undefined
    ? {}
    : {
        isTransientConnectionError: (failure) => HttpFailure.causeCodes(failure).some((code) => codes.includes(code))
      }),
  ...(hedging === undefined ? {} : { hedging: Hedging.after(hedging.delay, { maxCopies: hedging.maxCopies }) }),
  ...(concurrencyLimit === undefined
    ? {}
    : { concurrencyLimit: ConcurrencyLimit.fixed(concurrencyLimit.limit, { queue: concurrencyLimit.queue }) }),
  ...(rateLimit === undefined ? {} : { rateLimit: RateLimit.make(rateLimit) }),
  ...(rateLimitHeaders === undefined ? {} : { rateLimitHeaders: RateLimit.fromHeaders(rateLimitHeaders) }),
  ...(circuitBreaker === undefined ? {} : { circuitBreaker: CircuitBreaker.perOrigin(circuitBreaker) }),
  ...(coalesce === undefined ? {} : { coalesce: Coalesce.identical(coalesce) }),
  ...(bodyIdleTimeout === undefined ? {} : { bodyIdleTimeout: BodyIdleTimeout.make(bodyIdleTimeout) })
})

// A failed read of a body fails with the platform's error, the library's failure its cause.
const libraryFailure = (
  error: HttpFailure.HttpFailure | HttpClientError.HttpClientError
): HttpFailure.HttpFailure | undefined =>
  HttpFailure.isHttpFailure(error) ? error : HttpFailure.isConnectionError(error.cause) ? error.cause : undefined

const requestOf = (scenario: Conformance.Scenario) =>
  HttpClientRequest.make(scenario.request.method)(Conformance.urlOf(scenario), {
    headers: scenario.request.headers ?? {},
    body: bodies[scenario.request.body ?? "none"]
  })

const play = (scenario: Conformance.Scenario) =>
  Effect.gen(function* () {
    const clock = yield* Effect.clockWith(Effect.succeed)
    const recorder = Conformance.record(scenario, () => clock.currentTimeMillisUnsafe())
    const scripted = yield* Testing.scriptedHttpClient(scenario.script)
    // Numbered as they reach the transport: hedged copies answer out of order.
    let numbered = 0
    const client = scripted.client.pipe(
      HttpClient.transform((response, _request) =>
        Effect.suspend(() => {
          const request = ++numbered
          return Effect.map(response, (answered) =>
            HttpClientResponse.fromWeb(answered.request, recorder.response(request))
          )
        })
      ),
      ResilientHttpClient.withResilience(policyOf(scenario.policy))
    )
    const execute = Effect.scoped(
      Effect.flatMap(client.execute(requestOf(scenario)), (response) =>
        scenario.readBody === true
          ? Effect.as(Stream.runDrain(response.stream), { status: response.status })
          : Effect.succeed({ status: response.status })
      )
    )
    const call = (scenario.withinSpan === true ? Effect.withSpan(execute, "caller") : execute).pipe(
      Effect.catch((error) => {
        const failure = libraryFailure(error)
        // A read that fails for a reason not the library's is no outcome a scenario expects.
        return failure === undefined ? Effect.die(error) : Effect.succeed({ failure })
      }),
      Effect.map(recorder.callEnded)
    )
    const before = yield* counters
    // Each call waits on the TestClock for its start time, then runs to its end; side by side
    // when the scenario says so, else one after the other.
    const calls = Effect.forEach(
      Conformance.callsOf(scenario),
      (_, i) =>
        Effect.andThen(
          Effect.suspend(() => Effect.sleep(recorder.waitBeforeCall(i))),
          call
        ),
      { concurrency: scenario.concurrent === true ? "unbounded" : 1 }
    )
    const fiber = yield* Effect.forkChild(calls)
    yield* TestClock.adjust("1 hour")
    yield* Fiber.join(fiber)
    return recorder.result(yield* scripted.requests, before, yield* counters)
  })

describe("conformance, Effect 4", () => {
  for (const scenario of Conformance.scenarios) {
    it.effect(`${scenario.id}: ${scenario.description}`, () =>
      Effect.map(play(scenario), (result) => expect(result).toEqual(scenario.expected))
    )
  }
})
