import { HttpBody, HttpClient, HttpClientError, HttpClientRequest } from "@effect/platform"
import { assert, describe, expect, it } from "@effect/vitest"
import {
  Cause,
  Clock,
  Data,
  Duration,
  Effect,
  Exit,
  Fiber,
  Layer,
  Option,
  Schedule,
  type Scope,
  Stream,
  TestClock
} from "effect"
import type * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const base = "http://api.test"
const fast = { jitter: "none", backoff: RetryPolicy.constant("100 millis") } as const

/** Runs `use` to its end on the TestClock, and returns its exit and when each request arrived. */
const run = <A, E>(
  scripted: ScriptedHttpClient.ScriptedHttpClient,
  use: Effect.Effect<A, E, Scope.Scope>
): Effect.Effect<{ readonly exit: Exit.Exit<A, E>; readonly times: Array<number> }> =>
  Effect.gen(function* () {
    const start = yield* Clock.currentTimeMillis
    const fiber = yield* Effect.fork(Effect.exit(Effect.scoped(use)))
    yield* TestClock.adjust("10 minutes")
    const exit = yield* Fiber.join(fiber)
    return { exit, times: scripted.times().map((at) => at - start) }
  })

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error("expected a failure")
  const failure = Cause.failureOption(exit.cause)
  if (Option.isNone(failure)) throw new Error(`expected a typed failure, got ${Cause.pretty(exit.cause)}`)
  return failure.value
}

describe("withResilience: every verb and combinator of the platform's client", () => {
  const verbs = [
    ["get", (client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>) => client.get(`${base}/r`)],
    ["head", (client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>) => client.head(`${base}/r`)],
    [
      "options",
      (client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>) => client.options(`${base}/r`)
    ],
    ["put", (client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>) => client.put(`${base}/r`)],
    ["del", (client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>) => client.del(`${base}/r`)],
    [
      "execute",
      (client: HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>) =>
        client.execute(HttpClientRequest.get(`${base}/r`))
    ]
  ] as const
  for (const [verb, call] of verbs) {
    it.effect(`${verb}: an idempotent verb is retried through the combinator`, () =>
      Effect.gen(function* () {
        const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
        const client = ResilientHttpClient.withResilience(scripted.client, fast)
        const { exit, times } = yield* run(scripted, call(client))
        assert.isTrue(Exit.isSuccess(exit))
        expect(times).toEqual([0, 100])
      })
    )
  }

  it.effect("post and patch without an Idempotency-Key: one attempt, and the failure says why", () =>
    Effect.gen(function* () {
      for (const verb of ["post", "patch"] as const) {
        const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
        const client = ResilientHttpClient.withResilience(scripted.client, fast)
        const { exit, times } = yield* run(scripted, client[verb](`${base}/orders`))
        const failure = failureOf(exit)
        expect(times).toEqual([0])
        expect(failure).toMatchObject({ _tag: "TransientStatus", status: 503, giveUpReason: "not-idempotent" })
        expect(failure.message).toBe(
          `${verb.toUpperCase()} ${base}/orders: status 503 on attempt 1; not retried: ${verb.toUpperCase()} is not idempotent (send an Idempotency-Key header, or set retryNonIdempotent)`
        )
      }
    })
  )

  it.effect("a POST with an Idempotency-Key is retried, and its JSON body is sent again whole", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 201 }])
      const client = ResilientHttpClient.withResilience(scripted.client, fast)
      const { exit } = yield* run(
        scripted,
        client.post(`${base}/orders`, {
          headers: { "idempotency-key": "order-42" },
          body: HttpBody.unsafeJson({ sku: "A-1" })
        })
      )
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) expect(exit.value.status).toBe(201)
      const bodies = scripted.exchanges.map((exchange) => exchange.request.body)
      expect(bodies).toHaveLength(2)
      expect(bodies[1]).toEqual(bodies[0])
      expect(bodies[0]?._tag).toBe("Uint8Array")
    })
  )

  it.effect("mapRequest before it (prependUrl) shapes every attempt, and failures name the full URL", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = scripted.client.pipe(
        HttpClient.mapRequest(HttpClientRequest.prependUrl(base)),
        HttpClient.mapRequest(HttpClientRequest.setHeader("idempotency-key", "k-1")),
        ResilientHttpClient.withResilience({ ...fast, maxAttempts: 2 })
      )
      const { exit } = yield* run(scripted, client.post("/orders"))
      expect(scripted.exchanges.map((exchange) => exchange.request.url)).toEqual([`${base}/orders`, `${base}/orders`])
      // The key set before the combinator makes the POST idempotent.
      expect(failureOf(exit)).toMatchObject({ attempt: 2, giveUpReason: "attempts-exhausted" })
      expect(failureOf(exit).message).toBe(`POST ${base}/orders: status 503 on attempt 2; gave up after 2 attempts`)
    })
  )

  it.effect("mapRequest and tapRequest after it run once per call, before the attempts", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }, { status: 200 }])
      let taps = 0
      const client = scripted.client.pipe(
        ResilientHttpClient.withResilience(fast),
        HttpClient.mapRequest(HttpClientRequest.prependUrl(base)),
        HttpClient.tapRequest(() =>
          Effect.sync(() => {
            taps++
          })
        )
      )
      const { exit } = yield* run(scripted, client.get("/r"))
      assert.isTrue(Exit.isSuccess(exit))
      expect(scripted.exchanges.map((exchange) => exchange.request.url)).toEqual([`${base}/r`, `${base}/r`])
      expect(taps).toBe(1)
    })
  )

  it.effect("followRedirects before it: a redirect is followed inside one attempt", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([
        { status: 302, headers: { location: `${base}/moved` } },
        { status: 200, body: "here" }
      ])
      const client = scripted.client.pipe(HttpClient.followRedirects(3), ResilientHttpClient.withResilience(fast))
      const { exit } = yield* run(
        scripted,
        Effect.flatMap(client.get(`${base}/old`), (response) => response.text)
      )
      expect(exit).toEqual(Exit.succeed("here"))
      expect(scripted.exchanges.map((exchange) => exchange.request.url)).toEqual([`${base}/old`, `${base}/moved`])
    })
  )

  it.effect("an error that is not the platform's passes through untouched and is never retried", () =>
    Effect.gen(function* () {
      class Refused extends Data.TaggedError("Refused")<{}> {}
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const client = scripted.client.pipe(
        HttpClient.transformResponse((effect) => Effect.zipRight(effect, Effect.fail(new Refused()))),
        ResilientHttpClient.withResilience(fast)
      )
      const { exit } = yield* run(scripted, client.get(`${base}/r`))
      expect(failureOf(exit)).toBeInstanceOf(Refused)
      expect(scripted.exchanges).toHaveLength(1)
    })
  )

  it("a bad option throws InvalidRetryPolicy when the combinator is applied", () => {
    const scripted = ScriptedHttpClient.make([{ status: 200 }])
    expect(() => ResilientHttpClient.withResilience(scripted.client, { maxAttempts: 0 })).toThrow(
      RetryPolicy.InvalidRetryPolicy
    )
  })
})

describe("withResilience: why a call stopped", () => {
  it.effect("each give-up reason is carried and said", () =>
    Effect.gen(function* () {
      const cases: ReadonlyArray<
        readonly [
          string,
          ReadonlyArray<ScriptedHttpClient.Answer>,
          RetryPolicy.Options,
          HttpClientRequest.HttpClientRequest,
          RetryPolicy.GiveUpReason,
          string
        ]
      > = [
        [
          "a permanent status",
          [{ status: 404 }],
          fast,
          HttpClientRequest.get(`${base}/r`),
          "not-retryable",
          "status 404 on attempt 1; not retried: status 404 is not transient"
        ],
        [
          "attempts exhausted",
          [{ status: 503 }],
          { ...fast, maxAttempts: 3 },
          HttpClientRequest.get(`${base}/r`),
          "attempts-exhausted",
          "status 503 on attempt 3; gave up after 3 attempts"
        ],
        [
          "Retry-After over the cap",
          [{ status: 503, headers: { "retry-after": "60" } }],
          { ...fast, maxDelay: "5 seconds", whenRetryAfterExceedsMaxDelay: "give-up" },
          HttpClientRequest.get(`${base}/r`),
          "retry-after-exceeds-max-delay",
          "status 503 on attempt 1; gave up: the server's Retry-After is longer than maxDelay"
        ],
        [
          "a one-shot body",
          [{ status: 503 }],
          fast,
          HttpClientRequest.put(`${base}/r`).pipe(
            HttpClientRequest.setBody(HttpBody.stream(Stream.make(new Uint8Array([1]))))
          ),
          "one-shot-body",
          "status 503 on attempt 1; not retried: its body is a one-shot stream that cannot be sent again"
        ],
        [
          "the total timeout",
          [{ status: 503, headers: { "retry-after": "20" } }],
          { ...fast, totalTimeout: "30 seconds", maxDelay: "1 minute", maxAttempts: 5 },
          HttpClientRequest.get(`${base}/r`),
          "deadline-exceeded",
          "status 503 on attempt 2; gave up after 2 attempts: the total timeout would pass before the next attempt"
        ]
      ]
      for (const [name, script, options, request, reason, words] of cases) {
        const scripted = ScriptedHttpClient.make(script)
        const client = ResilientHttpClient.withResilience(scripted.client, options)
        const { exit } = yield* run(scripted, client.execute(request))
        const failure = failureOf(exit)
        expect(failure.giveUpReason, name).toBe(reason)
        expect(failure.message, name).toBe(`${request.method} ${request.url}: ${words}`)
      }
    })
  )
})

describe("withResilience: the total timeout", () => {
  it.effect("is 30 s by default: a wait that would end past it is not started", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503, headers: { "retry-after": "25" } }])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...fast, maxAttempts: 5 })
      const { exit, times } = yield* run(scripted, client.get(`${base}/r`))
      // 0, then 25 s (the cap is 30 s); the next 25 s wait would end at 50 s.
      expect(times).toEqual([0, 25_000])
      expect(failureOf(exit)).toMatchObject({ attempt: 2, giveUpReason: "deadline-exceeded" })
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
      const fiber = yield* Effect.fork(Effect.exit(Effect.scoped(client.get(`${base}/r`))))
      yield* TestClock.adjust("999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const exit = yield* Fiber.join(fiber)
      expect(scripted.times()).toEqual([0, 400])
      expect(failureOf(exit)).toMatchObject({
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
      const client = ResilientHttpClient.withResilience(scripted.client, {
        ...fast,
        maxAttempts: 3,
        totalTimeout: "infinity"
      })
      const { times } = yield* run(scripted, client.get(`${base}/r`))
      expect(times).toEqual([0, 25_000, 50_000])
    })
  )
})

describe("withResilience: observing decisions", () => {
  it.effect("observeDecisions sees every retry and the give-up, in order, with waits and sources", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const scripted = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "2" } },
        { status: 500 },
        { status: 502 }
      ])
      const client = ResilientHttpClient.withResilience(scripted.client, { ...fast, maxAttempts: 3 })
      yield* run(
        scripted,
        client.get(`${base}/r`).pipe(
          ResilientHttpClient.observeDecisions((decision) =>
            Effect.sync(() => {
              seen.push(
                decision._tag === "Retry"
                  ? `${decision.failure.attempt}: retry in ${Duration.toMillis(decision.delay)} ms (${decision.source})`
                  : decision._tag === "GiveUp"
                    ? `${decision.failure.attempt}: give up (${decision.reason})`
                    : `${decision.attempt}: hedge`
              )
            })
          )
        )
      )
      expect(seen).toEqual([
        "1: retry in 2000 ms (retry-after)",
        "2: retry in 100 ms (backoff)",
        "3: give up (attempts-exhausted)"
      ])
    })
  )

  it.effect("capped is true when maxDelay cut a jittered backoff", () =>
    Effect.gen(function* () {
      const capped: Array<boolean> = []
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = ResilientHttpClient.withResilience(scripted.client, {
        maxAttempts: 3,
        backoff: RetryPolicy.exponential("1 second"),
        maxDelay: "1500 millis",
        jitter: "equal"
      })
      yield* run(
        scripted,
        client.get(`${base}/r`).pipe(
          ResilientHttpClient.observeDecisions((decision) =>
            Effect.sync(() => {
              if (decision._tag === "Retry") capped.push(decision.capped)
            })
          )
        )
      )
      // 1 s is under the cap; 2 s is not, whatever the jitter then draws.
      expect(capped).toEqual([false, true])
    })
  )
})

describe("a plain Schedule as the policy", () => {
  it.effect("still honours Retry-After, within the default 30 s cap and 30 s total timeout", () =>
    Effect.gen(function* () {
      const schedule = Schedule.intersect(Schedule.spaced("100 millis"), Schedule.recurs(5))
      const recovering = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "2" } },
        { status: 503 },
        { status: 200 }
      ])
      const recovered = yield* run(
        recovering,
        ResilientHttpClient.withResilience(recovering.client, schedule).get(base)
      )
      assert.isTrue(Exit.isSuccess(recovered.exit))
      // 2 s as asked, then the schedule's own 100 ms.
      expect(recovered.times).toEqual([0, 2000, 2100])

      const lasting = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "5" } },
        { status: 503, headers: { "retry-after": "100" } }
      ])
      const stopped = yield* run(lasting, ResilientHttpClient.withResilience(lasting.client, schedule).get(base))
      // 5 s as asked; 100 s asked is capped at 30 s, which would end past the 30 s total timeout.
      expect(lasting.times()).toHaveLength(2)
      expect(stopped.times).toEqual([0, 5000])
      expect(failureOf(stopped.exit)).toMatchObject({ attempt: 2, giveUpReason: "deadline-exceeded" })
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
      expect(failureOf(retried)).toMatchObject({ status: 429 })
      expect(() => RetryPolicy.withRetryAfter(schedule, { maxDelay: "-1 seconds" })).toThrow(
        RetryPolicy.InvalidRetryPolicy
      )
    })
  )
})

describe("layerHttpClient: the platform's types, our behaviour", () => {
  const provide = (scripted: ScriptedHttpClient.ScriptedHttpClient, policy: RetryPolicy.Options) =>
    Effect.provide(
      ResilientHttpClient.layerHttpClient(policy).pipe(
        Layer.provide(Layer.succeed(HttpClient.HttpClient, scripted.client))
      )
    )

  it.effect("existing code gets retries; a final 503 is still a response, as the platform's client returns it", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503, body: "down" }])
      const program = Effect.flatMap(HttpClient.HttpClient, (client) =>
        Effect.flatMap(client.get(`${base}/r`), (response) =>
          Effect.map(response.text, (text) => [response.status, text] as const)
        )
      )
      const { exit, times } = yield* run(scripted, program.pipe(provide(scripted, { ...fast, maxAttempts: 3 })))
      expect(exit).toEqual(Exit.succeed([503, "down"]))
      expect(times).toEqual([0, 100, 200])
      // The two discarded responses were released before the next attempt.
      expect(scripted.exchanges.slice(0, 2).every(ScriptedHttpClient.isReleased)).toBe(true)
    })
  )

  it.effect("a 404 is handed back at once, body unread; a POST is not retried", () =>
    Effect.gen(function* () {
      const notFound = ScriptedHttpClient.make([{ status: 404, body: "missing" }])
      const program = Effect.flatMap(HttpClient.HttpClient, (client) =>
        Effect.flatMap(client.get(`${base}/r`), (response) => response.text)
      )
      const read = yield* run(notFound, program.pipe(provide(notFound, fast)))
      expect(read.exit).toEqual(Exit.succeed("missing"))

      const post = ScriptedHttpClient.make([{ status: 503 }])
      const posted = yield* run(
        post,
        Effect.flatMap(HttpClient.HttpClient, (client) => client.post(`${base}/orders`)).pipe(provide(post, fast))
      )
      assert.isTrue(Exit.isSuccess(posted.exit))
      expect(posted.times).toEqual([0])
    })
  )

  it.effect("errors stay HttpClientError, and their description says why the call stopped", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ transportError: "ECONNREFUSED" }])
      const { exit, times } = yield* run(
        scripted,
        Effect.flatMap(HttpClient.HttpClient, (client) => client.get(`${base}/r`)).pipe(
          provide(scripted, { ...fast, maxAttempts: 2 })
        )
      )
      const error = failureOf(exit)
      expect(times).toEqual([0, 100])
      assert.isTrue(HttpClientError.isHttpClientError(error))
      expect(error).toMatchObject({ _tag: "RequestError", reason: "Transport" })
      expect(error.message).toContain("transport failure on attempt 2; gave up after 2 attempts")
    })
  )

  it.effect("a timed-out attempt is a RequestError that says so", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ hang: true }])
      const { exit } = yield* run(
        scripted,
        Effect.flatMap(HttpClient.HttpClient, (client) => client.get(`${base}/r`)).pipe(
          provide(scripted, { ...fast, maxAttempts: 1, attemptTimeout: "2 seconds" })
        )
      )
      const error = failureOf(exit)
      expect(error).toMatchObject({ _tag: "RequestError", reason: "Transport" })
      expect(error.message).toContain("no response in time on attempt 1; gave up after 1 attempt")
    })
  )
})
