// @generated from templates/test/hedging.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Hedged requests on Effect 4 (issue #20), on the TestClock: the exact time each copy goes, the
 * winner, the losers' interruption and release, the budget's refusal, pushback, the circuit,
 * POST never hedged, numbering, decisions and metrics.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Result, type Scope } from "effect"
import type { HttpClient } from "effect/http"
import { HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import * as Hedging from "../src/Hedging.js"
import type * as HttpFailure from "../src/HttpFailure.js"
import * as CircuitBreaker from "../src/CircuitBreaker.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryBudget from "../src/RetryBudget.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import fc from "fast-check"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"
import { counterValue } from "./support/metrics.js"

type Options = RetryPolicy.Options

/** One call through `withResilience`: its status and body, or its failure's tag, and when it ended. */
const callOf = (
  client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>,
  request: HttpClientRequest.HttpClientRequest
) =>
  Effect.scoped(
    Effect.flatMap(client.execute(request), (response) =>
      Effect.map(response.text, (text) => `${response.status} ${text}`)
    )
  ).pipe(Effect.catch((failure) => Effect.succeed(`failed: ${failure._tag}`)))

/**
 * Runs one call over a scripted transport with `options`, the TestClock moved far enough for it
 * to end; what it returned, when, every decision and the transport's exchanges.
 */
const play = (
  name: string,
  script: ReadonlyArray<ScriptedHttpClient.Answer>,
  options: Options,
  request: (url: string) => HttpClientRequest.HttpClientRequest = HttpClientRequest.get
) =>
  Effect.gen(function* () {
    const scripted = ScriptedHttpClient.make(script)
    const decisions: Array<string> = []
    const client = ResilientHttpClient.withResilience(scripted.client, { jitter: "none", ...options })
    const url = `http://${name}.hedging.test/items`
    const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const fiber = yield* Effect.forkChild(
      Effect.flatMap(callOf(client, request(url)), (outcome) =>
        Effect.map(
          Effect.clockWith((clock) => clock.currentTimeMillis),
          (at) => ({ outcome, at })
        )
      ).pipe(
        ResilientHttpClient.observeDecisions((decision) =>
          Effect.sync(() => {
            decisions.push(describeDecision(decision))
          })
        )
      )
    )
    yield* TestClock.adjust("1 minute")
    // Every call here ends within the minute: one still running was left behind by the clock (a
    // copy that only started once it had moved), and joining it would hang.
    expect(
      fiber.pollUnsafe(),
      `the call ended within the minute the clock moved (requests sent at ${scripted.times().join(", ")} ms)`
    ).toBeTruthy()
    const ended = yield* Fiber.join(fiber)
    return {
      outcome: ended.outcome,
      /** When the call ended, and when each request was sent, from the call's start. */
      at: ended.at - start,
      sentAt: scripted.exchanges.map((exchange) => exchange.at - start),
      decisions,
      exchanges: scripted.exchanges,
      origin: `http://${name}.hedging.test:80`
    }
  })

const describeDecision = (decision: ResilientHttpClient.Decision): string => {
  switch (decision._tag) {
    case "Hedge":
      return `hedge: attempt ${decision.attempt} (copy ${decision.copy}) after ${Duration.toMillis(decision.delay)} ms`
    case "Retry":
      return `retry after attempt ${decision.failure.attempt} in ${Duration.toMillis(decision.delay)} ms`
    case "GiveUp":
      return `give up after attempt ${decision.failure.attempt}: ${decision.reason}`
  }
}

// The counter of the origin's host.
const originCounter = (name: string, origin: string) => counterValue(name, new URL(origin).hostname)

const slow = (body: string, delayMillis: number): ScriptedHttpClient.Answer => ({ status: 200, body, delayMillis })

describe("hedging, Effect 4", () => {
  it.effect("a slow first copy is beaten by its hedge, sent exactly `delay` later; the loser is aborted", () =>
    Effect.gen(function* () {
      const run = yield* play("beaten", [slow("slow", 500), slow("fast", 10)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none"
      })
      expect(run.outcome).toBe("200 fast")
      expect(run.at).toBe(110)
      expect(run.sentAt).toEqual([0, 100])
      expect(run.exchanges.map((exchange) => exchange.aborted)).toEqual([true, false])
      expect(run.decisions).toEqual(["hedge: attempt 2 (copy 2) after 100 ms"])
      expect(run.exchanges.map((exchange) => exchange.request.url)).toEqual([
        "http://beaten.hedging.test/items",
        "http://beaten.hedging.test/items"
      ])
      expect(yield* originCounter("http.client.resilience.hedges", run.origin)).toBe(1)
      expect(yield* originCounter("http.client.resilience.hedge_wins", run.origin)).toBe(1)
      expect(yield* originCounter("http.client.resilience.attempts", run.origin)).toBe(2)
      expect(yield* originCounter("http.client.resilience.retries", run.origin)).toBe(0)
    })
  )

  it.effect("a first copy that answers before the delay sends no hedge", () =>
    Effect.gen(function* () {
      const run = yield* play("quick", [slow("quick", 99)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none"
      })
      expect([run.outcome, run.at, run.exchanges.length, run.decisions]).toEqual(["200 quick", 99, 1, []])
    })
  )

  it.effect("a first copy that answers at the very moment the delay ends sends no hedge", () =>
    Effect.gen(function* () {
      const run = yield* play("same-instant", [slow("first", 100)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none"
      })
      expect([run.outcome, run.at, run.exchanges.length, run.decisions]).toEqual(["200 first", 100, 1, []])
    })
  )

  it.effect(
    "a copy failing the moment its hedge is due: the next copy goes at once, the one after a whole delay later",
    () =>
      Effect.gen(function* () {
        const run = yield* play(
          "fail-at-delay",
          [{ status: 503, delayMillis: 100 }, slow("second", 1000), slow("third", 1)],
          { hedging: Hedging.after("100 millis", { maxCopies: 3 }), retryBudget: "none" }
        )
        expect(run.sentAt).toEqual([0, 100, 200])
        expect([run.outcome, run.at]).toEqual(["200 third", 201])
      })
  )

  it.effect(
    "maxCopies 3: each copy goes `delay` after the one before; the first to answer wins, the rest are aborted",
    () =>
      Effect.gen(function* () {
        const run = yield* play("three", [slow("one", 1000), slow("two", 1000), slow("three", 30)], {
          hedging: Hedging.after("100 millis", { maxCopies: 3 }),
          retryBudget: "none"
        })
        expect([run.outcome, run.at]).toEqual(["200 three", 230])
        expect(run.exchanges.map((exchange, i) => [run.sentAt[i], exchange.aborted])).toEqual([
          [0, true],
          [100, true],
          [200, false]
        ])
        expect(run.decisions).toEqual([
          "hedge: attempt 2 (copy 2) after 100 ms",
          "hedge: attempt 3 (copy 3) after 100 ms"
        ])
      })
  )

  it.effect("copies answering at once: one wins, the other's response is released", () =>
    Effect.gen(function* () {
      const run = yield* play("tie", [slow("first", 300), slow("second", 200)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none"
      })
      expect(run.at).toBe(300)
      expect(["200 first", "200 second"]).toContain(run.outcome)
      // The winner's body was read by the caller; the loser's was released (read, cancelled or aborted).
      expect(run.exchanges.every(ScriptedHttpClient.isReleased)).toBe(true)
    })
  )

  it.effect("a transient failure of one copy does not end the call while another is in flight", () =>
    Effect.gen(function* () {
      const run = yield* play("transient", [{ status: 503, delayMillis: 150 }, slow("second", 100)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none"
      })
      expect([run.outcome, run.at]).toEqual(["200 second", 200])
      expect(run.decisions).toEqual(["hedge: attempt 2 (copy 2) after 100 ms"])
      // The 503's response was released when the call ended.
      expect(run.exchanges.every(ScriptedHttpClient.isReleased)).toBe(true)
    })
  )

  it.effect("a transient failure before the delay sends the next copy at once", () =>
    Effect.gen(function* () {
      const run = yield* play("at-once", [{ status: 502, delayMillis: 40 }, slow("second", 10)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none"
      })
      expect([run.outcome, run.at]).toEqual(["200 second", 50])
      expect(run.sentAt).toEqual([0, 40])
    })
  )

  // A copy that fails at once (no wait on the clock) is heard at once: the next copy goes at the
  // same instant, not after the whole `TestClock.adjust` (Effect 4's adjust gives work already
  // running one scheduler turn before it moves the clock; a copy forked to start later missed it).
  it.effect(
    "a first copy failing at once (a 503, no wait): the next copy goes at once, the one after a whole delay later",
    () =>
      Effect.gen(function* () {
        const run = yield* play("503-at-once", [{ status: 503 }, slow("second", 500)], {
          hedging: Hedging.after("100 millis", { maxCopies: 3 }),
          retryBudget: "none"
        })
        expect(run.sentAt).toEqual([0, 0, 100])
        expect([run.outcome, run.at]).toEqual(["200 second", 500])
        expect(run.decisions).toEqual([
          "hedge: attempt 2 (copy 2) after 100 ms",
          "hedge: attempt 3 (copy 3) after 100 ms"
        ])
      })
  )

  it.effect("every copy failing at once (503s, no wait): the retry goes its backoff after the last failure", () =>
    Effect.gen(function* () {
      const run = yield* play("all-503-at-once", [{ status: 503 }, { status: 503 }, slow("retried", 5)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none",
        backoff: RetryPolicy.constant("1 second")
      })
      expect(run.sentAt).toEqual([0, 0, 1000])
      expect([run.outcome, run.at]).toEqual(["200 retried", 1005])
      expect(run.decisions).toEqual(["hedge: attempt 2 (copy 2) after 100 ms", "retry after attempt 2 in 1000 ms"])
    })
  )

  it.effect(
    "a hedged call after an earlier call, its first copy failing at once, ends within the clock's next move",
    () =>
      Effect.gen(function* () {
        const scripted = ScriptedHttpClient.make([slow("earlier", 10), { status: 503 }, slow("second", 500)])
        const client = ResilientHttpClient.withResilience(scripted.client, {
          hedging: Hedging.after("100 millis"),
          retryBudget: "none"
        })
        const url = "http://after-earlier.hedging.test/items"
        const earlier = yield* Effect.forkChild(callOf(client, HttpClientRequest.get(url)))
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(earlier)).toBe("200 earlier")
        const hedged = yield* Effect.forkChild(
          Effect.flatMap(callOf(client, HttpClientRequest.get(url)), (outcome) =>
            Effect.map(
              Effect.clockWith((clock) => clock.currentTimeMillis),
              (at) => [outcome, at]
            )
          )
        )
        yield* TestClock.adjust("1 second")
        // Sent at 1 s: the 503 and at once its hedge, which answers at 1.5 s, within this move.
        expect(scripted.times()).toEqual([0, 1000, 1000])
        expect(hedged.pollUnsafe(), "the call ended within the clock's move").toBeTruthy()
        expect(yield* Fiber.join(hedged)).toEqual(["200 second", 1500])
      })
  )

  it.effect("when every copy fails, the retry policy decides; the retry is numbered after the copies", () =>
    Effect.gen(function* () {
      const run = yield* play(
        "all-fail",
        [{ status: 503, delayMillis: 150 }, { status: 503, delayMillis: 60 }, slow("retried", 5)],
        { hedging: Hedging.after("100 millis"), retryBudget: "none", backoff: RetryPolicy.constant("1 second") }
      )
      expect([run.outcome, run.at]).toEqual(["200 retried", 1165])
      expect(run.sentAt).toEqual([0, 100, 1160])
      expect(run.decisions).toEqual(["hedge: attempt 2 (copy 2) after 100 ms", "retry after attempt 2 in 1000 ms"])
    })
  )

  it.effect("a call that gives up after its copies counts every request it sent, whichever copy failed last", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([
        { status: 503, delayMillis: 150 },
        { status: 502, delayMillis: 10 }
      ])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none",
        maxAttempts: 1
      })
      const fiber = yield* Effect.forkChild(Effect.flip(Effect.scoped(client.get("http://gave-up.hedging.test/items"))))
      yield* TestClock.adjust("1 second")
      const failure = yield* Fiber.join(fiber)
      // The hedge (attempt 2) failed at 110 ms, the first copy at 150 ms: the outcome is the latest sent.
      expect(failure.message).toBe(
        "GET http://gave-up.hedging.test/items: status 502 on attempt 2; gave up after 2 attempts"
      )
      expect(scripted.exchanges.every(ScriptedHttpClient.isReleased)).toBe(true)
    })
  )

  it.effect("a copy that met pushback is the outcome when every copy fails: the retry waits the server's delay", () =>
    Effect.gen(function* () {
      const run = yield* play(
        "pushback-outcome",
        [
          { status: 503, headers: { "retry-after": "2" }, delayMillis: 150 },
          { status: 502, delayMillis: 10 },
          slow("ok", 5)
        ],
        { hedging: Hedging.after("100 millis"), retryBudget: "none", backoff: RetryPolicy.constant("100 millis") }
      )
      expect([run.outcome, run.at]).toEqual(["200 ok", 2155])
      expect(run.decisions).toEqual(["hedge: attempt 2 (copy 2) after 100 ms", "retry after attempt 1 in 2000 ms"])
    })
  )

  it.effect("a 429 on any copy stops further hedges; the copies in flight go on", () =>
    Effect.gen(function* () {
      const run = yield* play(
        "pushback",
        [slow("first", 500), { status: 429, headers: { "retry-after": "1" }, delayMillis: 10 }, slow("third", 1)],
        { hedging: Hedging.after("100 millis", { maxCopies: 3 }), retryBudget: "none" }
      )
      expect([run.outcome, run.at]).toEqual(["200 first", 500])
      expect(run.sentAt).toEqual([0, 100])
    })
  )

  it.effect("the budget pays for each hedge: refused, the call goes on with what is in flight", () =>
    Effect.gen(function* () {
      const run = yield* play("refused", [slow("slow", 500), slow("fast", 10)], {
        hedging: Hedging.after("100 millis"),
        retryBudget: RetryBudget.finagle({ ratio: 0, minPerSecond: 0 })
      })
      expect([run.outcome, run.at, run.exchanges.length, run.decisions]).toEqual(["200 slow", 500, 1, []])
      expect(yield* originCounter("http.client.resilience.retry_budget.refusals", run.origin)).toBe(1)
    })
  )

  it.effect("POST is never hedged; a POST with an Idempotency-Key is", () =>
    Effect.gen(function* () {
      const options: Options = { hedging: Hedging.after("100 millis"), retryBudget: "none", retryNonIdempotent: true }
      const post = yield* play("post", [slow("slow", 500), slow("fast", 10)], options, (url) =>
        HttpClientRequest.post(url)
      )
      expect([post.outcome, post.at, post.exchanges.length]).toEqual(["200 slow", 500, 1])
      const keyed = yield* play("keyed-post", [slow("slow", 500), slow("fast", 10)], options, (url) =>
        HttpClientRequest.post(url, { headers: { "idempotency-key": "order-42" } })
      )
      expect([keyed.outcome, keyed.at, keyed.exchanges.length]).toEqual(["200 fast", 110, 2])
    })
  )

  it.effect("no hedge while the origin's circuit is open", () =>
    Effect.gen(function* () {
      const breaker = yield* CircuitBreaker.make({
        tripPolicy: CircuitBreaker.consecutive(1),
        breakDuration: "10 seconds"
      })
      // The first request is slow; another call's 503 at 10 ms opens the circuit before the hedge is due.
      const scripted = ScriptedHttpClient.make([slow("slow", 500), { status: 503 }, slow("fast", 10)])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none",
        circuitBreaker: CircuitBreaker.perOrigin(breaker),
        maxAttempts: 1
      })
      const url = "http://open.hedging.test/items"
      const slowCall = yield* Effect.forkChild(callOf(client, HttpClientRequest.get(url)))
      yield* TestClock.adjust("10 millis")
      expect(yield* callOf(client, HttpClientRequest.get(url))).toBe("failed: TransientStatus")
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(slowCall)).toBe("200 slow")
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 10])
    })
  )

  it.effect(
    "an outage costs no more with hedging: hedges and retries share the default budget (its 10% and its floor, no more)",
    () =>
      Effect.gen(function* () {
        // Every answer a 503 at once: each failed copy asks for the next at once, and each is paid for.
        const scripted = ScriptedHttpClient.make([{ status: 503 }])
        const client = ResilientHttpClient.withResilience(scripted.client, {
          hedging: Hedging.after("100 millis"),
          backoff: RetryPolicy.constant(0)
        })
        const calls = 500
        const outcomes = yield* Effect.forEach(Array.from({ length: calls }), () =>
          callOf(client, HttpClientRequest.get("http://outage.hedging.test/items"))
        )
        expect(outcomes.every((outcome) => outcome === "failed: TransientStatus")).toBe(true)
        // Finagle's budget: 10% of the calls plus its floor of 10 a second over 10 s (at 1,000 calls, 1.2 a call).
        expect(scripted.exchanges.length).toBeLessThanOrEqual(calls + calls / 10 + 100)
        expect(scripted.exchanges.length).toBeGreaterThan(calls)
        expect(yield* originCounter("http.client.resilience.hedges", "http://outage.hedging.test:80")).toBeGreaterThan(
          0
        )
      }),
    // 500 calls on the TestClock: a few seconds on a busy machine.
    60_000
  )

  it.effect("no hedge while the origin cools down after another call's 429", () =>
    Effect.gen(function* () {
      // The first request is slow; another call's 429 with Retry-After: 5 at 11 ms cools the origin down.
      const scripted = ScriptedHttpClient.make([
        slow("slow", 500),
        { status: 429, headers: { "retry-after": "5" }, delayMillis: 10 },
        slow("fast", 1)
      ])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        hedging: Hedging.after("100 millis"),
        retryBudget: "none",
        maxAttempts: 1
      })
      const url = "http://cooling.hedging.test/items"
      const slowCall = yield* Effect.forkChild(callOf(client, HttpClientRequest.get(url)))
      yield* TestClock.adjust("1 millis")
      const limited = yield* Effect.forkChild(callOf(client, HttpClientRequest.get(url)))
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(limited)).toBe("failed: TransientStatus")
      expect(yield* Fiber.join(slowCall)).toBe("200 slow")
      expect(scripted.exchanges.map((exchange) => exchange.at)).toEqual([0, 1])
    })
  )

  it.effect("a percentile delay is learnt per origin: the fallback until 20 samples, then the 95th percentile", () =>
    Effect.gen(function* () {
      // 20 calls of 40 ms, each hedged at the 30 ms fallback (their hedges lose); then a slow one.
      const learning = Array.from({ length: 40 }, () => slow("sample", 40))
      const scripted = ScriptedHttpClient.make([...learning, slow("late", 100), slow("hedge", 5)])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        hedging: Hedging.percentile(95, { fallback: "30 millis" }),
        retryBudget: "none"
      })
      const url = "http://learnt.hedging.test/items"
      const timedCall = Effect.gen(function* () {
        const start = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
        const before = scripted.exchanges.length
        const fiber = yield* Effect.forkChild(callOf(client, HttpClientRequest.get(url)))
        yield* TestClock.adjust("200 millis")
        const outcome = yield* Fiber.join(fiber)
        return { outcome, sent: scripted.exchanges.slice(before).map((exchange) => exchange.at - start) }
      })
      expect(yield* timedCall).toEqual({ outcome: "200 sample", sent: [0, 30] })
      for (let i = 1; i < 20; i++) expect((yield* timedCall).sent).toEqual([0, 30])
      // 20 samples of 40 ms: the hedge now waits the learnt 95th percentile, 41 ms (40 ms within
      // 1/32: its bucket's midpoint).
      expect(yield* timedCall).toEqual({ outcome: "200 hedge", sent: [0, 41] })
    })
  )

  it.effect(
    "property: a call ends at the first answer of the copies it sent, sends no more than maxCopies, and leaves no response behind",
    () => {
      // An even delay and odd answer times: no answer comes at the instant a copy is due.
      const cases = fc.sample(
        fc.record({
          maxCopies: fc.integer({ min: 1, max: 4 }),
          delay: fc.integer({ min: 1, max: 100 }).map((half) => half * 2),
          answers: fc.array(
            fc.integer({ min: 0, max: 400 }).map((half) => half * 2 + 1),
            { minLength: 4, maxLength: 4 }
          )
        }),
        { numRuns: 60, seed: 20 }
      )
      return Effect.forEach(cases, ({ maxCopies, delay, answers }, i) =>
        Effect.gen(function* () {
          // The model: copy k goes at k × delay while no copy has answered yet.
          const sentAt = [0]
          let end = answers[0] ?? 0
          for (let k = 1; k < maxCopies && k * delay < end; k++) {
            sentAt.push(k * delay)
            end = Math.min(end, k * delay + (answers[k] ?? 0))
          }
          const winners = sentAt.flatMap((at, k) => (at + (answers[k] ?? 0) === end ? [`200 copy ${k + 1}`] : []))
          const run = yield* play(
            `property-${i}`,
            answers.map((delayMillis, k) => slow(`copy ${k + 1}`, delayMillis)),
            { hedging: Hedging.after(Duration.millis(delay), { maxCopies }), retryBudget: "none" }
          )
          expect({ at: run.at, sentAt: run.sentAt }).toEqual({ at: end, sentAt })
          expect(winners).toContain(run.outcome)
          expect(run.exchanges.every(ScriptedHttpClient.isReleased)).toBe(true)
        })
      )
    }
  )

  it.effect("bad hedging options are an InvalidRetryPolicy naming the field", () =>
    Effect.sync(() => {
      const problem = (build: () => unknown) => {
        try {
          build()
          return undefined
        } catch (error) {
          return error instanceof RetryPolicy.InvalidRetryPolicy ? error.option : "not an InvalidRetryPolicy"
        }
      }
      expect(problem(() => Hedging.after("100 millis", { maxCopies: 0 }))).toBe("hedging.maxCopies")
      expect(problem(() => Hedging.after("100 millis", { maxCopies: 1.5 }))).toBe("hedging.maxCopies")
      expect(problem(() => Hedging.after(-1))).toBe("hedging.delay")
      expect(problem(() => Hedging.percentile(101))).toBe("hedging.delay.percentile")
      expect(problem(() => Hedging.percentile(0))).toBe("hedging.delay.percentile")
      expect(problem(() => Hedging.percentile(95, { fallback: "1 second", ...{ flor: 5 } }))).toBe("hedging.delay.flor")
      // @ts-expect-error: the delay is required
      expect(problem(() => Hedging.after())).toBe("hedging.delay")
      expect(problem(() => Hedging.after("100 millis"))).toBeUndefined()
      const unbuilt = RetryPolicy.validate({ hedging: { delay: "100 millis" } } as unknown as Options)
      expect(Result.isFailure(unbuilt) ? unbuilt.failure.option : undefined).toBe("hedging")
      expect(RetryPolicy.make({ hedging: Hedging.after("100 millis") }).hedging?.settings).toEqual({
        maxCopies: 2,
        delay: { _tag: "Fixed", millis: 100 }
      })
    })
  )
})
