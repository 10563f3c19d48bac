/**
 * The combinator, the drop-in layer and every outcome explaining itself, on the TestClock:
 * withResilience over every verb and the platform's combinators, the give-up reasons in words,
 * the total timeout, observed decisions, plain Schedules, and layerHttpClient keeping Effect 4's
 * own types.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Data, Duration, Effect, Exit, Fiber, Layer, Schedule, type Scope, Stream } from "effect"
import { HttpBody, HttpClient, HttpClientError, HttpClientRequest } from "effect/http"
import { TestClock } from "effect/testing"
import type * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const base = "http://api.test"
const fast = { jitter: "none", backoff: RetryPolicy.constant("100 millis") } as const
type Resilient = HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>

/** Runs `use` to its end on the TestClock: its exit, and when each request arrived. */
const settle = <A, E>(scripted: ScriptedHttpClient.ScriptedHttpClient, use: Effect.Effect<A, E, Scope.Scope>) =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.forkChild(Effect.exit(Effect.scoped(use)), { startImmediately: true })
    yield* TestClock.adjust("10 minutes")
    const exit = yield* Fiber.join(fiber)
    return { exit, times: scripted.times().map((at) => at - start) }
  })

const errorOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  const reason = Exit.isFailure(exit) ? exit.cause.reasons.find(Cause.isFailReason) : undefined
  if (reason === undefined)
    throw new Error(`expected a typed failure, got ${Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "a success"}`)
  return reason.error
}

describe("withResilience on Effect 4's HttpClient", () => {
  const verbs: ReadonlyArray<readonly [string, (client: Resilient) => Effect.Effect<unknown, unknown, Scope.Scope>]> = [
    ["get", (client) => client.get(`${base}/r`)],
    ["head", (client) => client.head(`${base}/r`)],
    ["options", (client) => client.options(`${base}/r`)],
    ["put", (client) => client.put(`${base}/r`)],
    ["del", (client) => client.del(`${base}/r`)],
    ["execute", (client) => client.execute(HttpClientRequest.get(`${base}/r`))]
  ]
  for (const [verb, call] of verbs) {
    it.effect(`${verb} is retried through the combinator`, () =>
      Effect.gen(function* () {
        const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
        const { exit, times } = yield* settle(scripted, call(ResilientHttpClient.withResilience(scripted.client, fast)))
        assert.isTrue(Exit.isSuccess(exit))
        expect(times).toEqual([0, 100])
      })
    )
  }

  it.effect("post and patch without a key: one attempt, and the failure says why", () =>
    Effect.gen(function* () {
      for (const verb of ["post", "patch"] as const) {
        const scripted = ScriptedHttpClient.make([{ status: 503 }])
        const { exit, times } = yield* settle(
          scripted,
          ResilientHttpClient.withResilience(scripted.client, fast)[verb](`${base}/orders`)
        )
        expect(times).toEqual([0])
        expect(errorOf(exit).message).toBe(
          `${verb.toUpperCase()} ${base}/orders: status 503 on attempt 1; not retried: ${verb.toUpperCase()} is not idempotent (send an Idempotency-Key header, or set retryNonIdempotent)`
        )
      }
    })
  )

  it.effect("a keyed POST is retried and its JSON body is sent again whole", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 201 }])
      const client = ResilientHttpClient.withResilience(scripted.client, fast)
      const { exit } = yield* settle(
        scripted,
        client.post(`${base}/orders`, {
          headers: { "idempotency-key": "k-1" },
          body: HttpBody.jsonUnsafe({ sku: "A-1" })
        })
      )
      assert.isTrue(Exit.isSuccess(exit))
      const bodies = scripted.exchanges.map((exchange) =>
        exchange.request.body._tag === "Uint8Array" ? new TextDecoder().decode(exchange.request.body.body) : undefined
      )
      expect(bodies).toEqual(['{"sku":"A-1"}', '{"sku":"A-1"}'])
    })
  )

  it.effect("mapRequest before it shapes every attempt; tapRequest after it runs once per call", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 503 }, { status: 200 }])
      let taps = 0
      const client = scripted.client.pipe(
        HttpClient.mapRequest(HttpClientRequest.prependUrl(base)),
        ResilientHttpClient.withResilience(fast),
        HttpClient.tapRequest(() =>
          Effect.sync(() => {
            taps++
          })
        )
      )
      const { exit } = yield* settle(scripted, client.get("/items"))
      assert.isTrue(Exit.isSuccess(exit))
      expect(scripted.exchanges.map((exchange) => exchange.request.url)).toEqual([
        `${base}/items`,
        `${base}/items`,
        `${base}/items`
      ])
      expect(taps).toBe(1)
    })
  )

  it.effect("an error that is not the platform's passes through untouched and is never retried", () =>
    Effect.gen(function* () {
      class Refused extends Data.TaggedError("Refused") {}
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const client = scripted.client.pipe(
        HttpClient.mapRequestEffect(() => Effect.fail(new Refused())),
        ResilientHttpClient.withResilience(fast)
      )
      const { exit, times } = yield* settle(scripted, client.get(`${base}/r`))
      expect(errorOf(exit)).toBeInstanceOf(Refused)
      expect(times).toEqual([])
    })
  )

  it("a bad option throws InvalidRetryPolicy when the combinator is applied", () => {
    const scripted = ScriptedHttpClient.make([{ status: 200 }])
    expect(() => ResilientHttpClient.withResilience(scripted.client, { maxAttempts: 0 })).toThrow(
      RetryPolicy.InvalidRetryPolicy
    )
  })
})

describe("every outcome explains itself, Effect 4", () => {
  const cases: ReadonlyArray<{
    readonly name: string
    readonly script: ReadonlyArray<ScriptedHttpClient.Answer>
    readonly policy: RetryPolicy.Options
    readonly request: HttpClientRequest.HttpClientRequest
    readonly reason: RetryPolicy.GiveUpReason
    readonly words: string
  }> = [
    {
      name: "a permanent status",
      script: [{ status: 404 }],
      policy: fast,
      request: HttpClientRequest.get(`${base}/r`),
      reason: "not-retryable",
      words: "status 404 on attempt 1; not retried: status 404 is not transient"
    },
    {
      name: "attempts exhausted",
      script: [{ status: 503 }],
      policy: fast,
      request: HttpClientRequest.get(`${base}/r`),
      reason: "attempts-exhausted",
      words: "status 503 on attempt 3; gave up after 3 attempts"
    },
    {
      name: "Retry-After over the cap",
      script: [{ status: 503, headers: { "retry-after": "60" } }],
      policy: { ...fast, maxDelay: "5 seconds", whenRetryAfterExceedsMaxDelay: "give-up" },
      request: HttpClientRequest.get(`${base}/r`),
      reason: "retry-after-exceeds-max-delay",
      words: "status 503 on attempt 1; gave up: the server's Retry-After is longer than maxDelay"
    },
    {
      name: "a one-shot body",
      script: [{ status: 503 }],
      policy: fast,
      request: HttpClientRequest.put(`${base}/r`, { body: HttpBody.stream(Stream.make(new Uint8Array([1]))) }),
      reason: "one-shot-body",
      words: "status 503 on attempt 1; not retried: its body is a one-shot stream that cannot be sent again"
    },
    {
      name: "the total timeout",
      script: [{ status: 503, headers: { "retry-after": "20" } }],
      policy: { ...fast, maxDelay: "1 minute", maxAttempts: 5 },
      request: HttpClientRequest.get(`${base}/r`),
      reason: "deadline-exceeded",
      words: "status 503 on attempt 2; gave up after 2 attempts: the total timeout would pass before the next attempt"
    },
    {
      name: "the retry budget",
      script: [{ status: 503 }],
      policy: { ...fast, retryBudget: { ratio: 0, minPerSecond: 0 } },
      request: HttpClientRequest.get(`${base}/r`),
      reason: "retry-budget-exhausted",
      words:
        "status 503 on attempt 1; gave up: the retry budget for this origin is spent (too many retries to it lately)"
    }
  ]
  for (const { name, script, policy, request, reason, words } of cases) {
    it.effect(name, () =>
      Effect.gen(function* () {
        const scripted = ScriptedHttpClient.make(script)
        const { exit } = yield* settle(
          scripted,
          ResilientHttpClient.withResilience(scripted.client, policy).execute(request)
        )
        const failure = errorOf(exit)
        expect(failure.giveUpReason).toBe(reason)
        expect(failure.message).toBe(`${request.method} ${request.url}: ${words}`)
      })
    )
  }
})

describe("the total timeout, Effect 4", () => {
  it.effect("is 30 s by default: a wait that would end past it is not started", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "25" } }])
      const { exit, times } = yield* settle(
        scripted,
        ResilientHttpClient.withResilience(scripted.client, { ...fast, maxAttempts: 5 }).get(`${base}/r`)
      )
      expect(times).toEqual([0, 25_000])
      expect(errorOf(exit)).toMatchObject({ attempt: 2, giveUpReason: "deadline-exceeded" })
    })
  )

  it.effect("cuts an attempt's time limit to what remains, so no call outlives it", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { hang: true }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        backoff: RetryPolicy.constant("400 millis"),
        attemptTimeout: "10 seconds",
        totalTimeout: "1 second"
      })
      const fiber = yield* Effect.forkChild(Effect.exit(Effect.scoped(client.get(`${base}/r`))), {
        startImmediately: true
      })
      yield* TestClock.adjust("999 millis")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.join(fiber)
      expect(scripted.times()).toEqual([0, 400])
      expect(errorOf(exit)).toMatchObject({
        _tag: "ConnectionError",
        reason: "Timeout",
        attempt: 2,
        giveUpReason: "deadline-exceeded"
      })
      expect(scripted.exchanges[1]!.aborted).toBe(true)
    })
  )

  it.effect('"infinity" turns it off', () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "25" } }])
      const { times } = yield* settle(
        scripted,
        ResilientHttpClient.withResilience(scripted.client, { ...fast, totalTimeout: "infinity" }).get(`${base}/r`)
      )
      expect(times).toEqual([0, 25_000, 50_000])
    })
  )
})

describe("observing decisions, Effect 4", () => {
  it.effect("observeDecisions sees every retry and the give-up, in order, with waits and sources; observers nest", () =>
    Effect.gen(function* () {
      const inner: Array<string> = []
      let outer = 0
      const scripted = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "2" } },
        { status: 500 },
        { status: 502 }
      ])
      const call = ResilientHttpClient.withResilience(scripted.client, fast)
        .get(`${base}/r`)
        .pipe(
          ResilientHttpClient.observeDecisions((decision) =>
            Effect.sync(() => {
              inner.push(
                decision._tag === "Retry"
                  ? `${decision.failure.attempt}: retry in ${Duration.toMillis(decision.delay)} ms (${decision.source})`
                  : decision._tag === "GiveUp"
                    ? `${decision.failure.attempt}: give up (${decision.reason})`
                    : `${decision.attempt}: hedge`
              )
            })
          ),
          ResilientHttpClient.observeDecisions(() =>
            Effect.sync(() => {
              outer++
            })
          )
        )
      yield* settle(scripted, call)
      expect(inner).toEqual([
        "1: retry in 2000 ms (retry-after)",
        "2: retry in 100 ms (backoff)",
        "3: give up (attempts-exhausted)"
      ])
      expect(outer).toBe(3)
    })
  )

  it.effect("capped is true when maxDelay cut a jittered backoff", () =>
    Effect.gen(function* () {
      const capped: Array<boolean> = []
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        backoff: RetryPolicy.exponential("1 second"),
        maxDelay: "1500 millis",
        jitter: "equal"
      })
      yield* settle(
        scripted,
        client.get(`${base}/r`).pipe(
          ResilientHttpClient.observeDecisions((decision) =>
            Effect.sync(() => {
              if (decision._tag === "Retry") capped.push(decision.capped)
            })
          )
        )
      )
      expect(capped).toEqual([false, true])
    })
  )
})

describe("a plain Schedule as the policy, Effect 4", () => {
  it.effect("still honours Retry-After, within the default cap and total timeout", () =>
    Effect.gen(function* () {
      const schedule = Schedule.spaced("100 millis").pipe(Schedule.upTo({ times: 5 }))
      const recovering = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "2" } },
        { status: 503 },
        { status: 200 }
      ])
      const recovered = yield* settle(
        recovering,
        ResilientHttpClient.withResilience(recovering.client, schedule).get(base)
      )
      assert.isTrue(Exit.isSuccess(recovered.exit))
      expect(recovered.times).toEqual([0, 2000, 2100])

      const lasting = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "5" } },
        { status: 503, headers: { "retry-after": "100" } }
      ])
      const stopped = yield* settle(lasting, ResilientHttpClient.withResilience(lasting.client, schedule).get(base))
      expect(stopped.times).toEqual([0, 5000])
      expect(errorOf(stopped.exit)).toMatchObject({ attempt: 2, giveUpReason: "deadline-exceeded" })
    })
  )

  it.effect("RetryPolicy.withRetryAfter applies the same rule to any schedule", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 429, headers: { "retry-after": "60" } }])
      const schedule = Schedule.recurs(5).pipe(
        RetryPolicy.withRetryAfter({ maxDelay: "10 seconds", whenRetryAfterExceedsMaxDelay: "give-up" })
      )
      const client = ResilientHttpClient.withResilience(scripted.client, { ...fast, maxAttempts: 1 })
      const retried = yield* Effect.exit(Effect.retry(Effect.scoped(client.get(`${base}/r`)), schedule))
      expect(scripted.exchanges).toHaveLength(1)
      expect(errorOf(retried)).toMatchObject({ status: 429 })
      expect(() => RetryPolicy.withRetryAfter(schedule, { maxDelay: "-1 seconds" })).toThrow(
        RetryPolicy.InvalidRetryPolicy
      )
    })
  )
})

describe("layerHttpClient: Effect 4's types, our behaviour", () => {
  const provide = (scripted: ScriptedHttpClient.ScriptedHttpClient, policy: RetryPolicy.Options) =>
    Effect.provide(
      ResilientHttpClient.layerHttpClient(policy).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, scripted.client))
      )
    )
  const getText = Effect.flatMap(Effect.service(HttpClient.HttpClient), (client) =>
    Effect.flatMap(client.get(`${base}/r`), (response) =>
      Effect.map(response.text, (text) => [response.status, text] as const)
    )
  )

  it.effect("existing code gets retries; a final 503 is still a response, as the platform returns it", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503, body: "down" }])
      const { exit, times } = yield* settle(scripted, getText.pipe(provide(scripted, fast)))
      expect(exit).toEqual(Exit.succeed([503, "down"]))
      expect(times).toEqual([0, 100, 200])
      expect(scripted.exchanges.slice(0, 2).every(ScriptedHttpClient.isReleased)).toBe(true)
    })
  )

  it.effect("a 404 is handed back at once; a POST without a key is not retried", () =>
    Effect.gen(function* () {
      const notFound = ScriptedHttpClient.make([{ status: 404, body: "missing" }])
      const read = yield* settle(notFound, getText.pipe(provide(notFound, fast)))
      expect(read.exit).toEqual(Exit.succeed([404, "missing"]))
      const post = ScriptedHttpClient.make([{ status: 503 }])
      const posted = yield* settle(
        post,
        Effect.flatMap(Effect.service(HttpClient.HttpClient), (client) => client.post(`${base}/orders`)).pipe(
          provide(post, fast)
        )
      )
      assert.isTrue(Exit.isSuccess(posted.exit))
      expect(posted.times).toEqual([0])
    })
  )

  it.effect("errors stay HttpClientError; their description says why the call stopped", () =>
    Effect.gen(function* () {
      const refused = ScriptedHttpClient.make([{ transportError: "ECONNREFUSED" }])
      const failed = yield* settle(refused, getText.pipe(provide(refused, { ...fast, maxAttempts: 2 })))
      const error = errorOf(failed.exit)
      expect(failed.times).toEqual([0, 100])
      if (!HttpClientError.isHttpClientError(error)) return assert.fail("expected an HttpClientError")
      expect(error.reason._tag).toBe("TransportError")
      expect(error.message).toContain("transport failure on attempt 2; gave up after 2 attempts")

      const hanging = ScriptedHttpClient.make([{ hang: true }])
      const timedOut = yield* settle(
        hanging,
        getText.pipe(provide(hanging, { ...fast, maxAttempts: 1, attemptTimeout: "2 seconds" }))
      )
      const timeout = errorOf(timedOut.exit)
      if (!HttpClientError.isHttpClientError(timeout)) return assert.fail("expected an HttpClientError")
      expect(timeout.reason._tag).toBe("TransportError")
      expect(timeout.message).toContain("no response in time on attempt 1; gave up after 1 attempt")
    })
  )
})
