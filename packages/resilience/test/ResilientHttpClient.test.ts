import { HttpClient, HttpClientRequest, HttpBody } from "@effect/platform"
import { assert, describe, expect, it } from "@effect/vitest"
import {
  Duration,
  Effect,
  Exit,
  Fiber,
  Layer,
  Logger,
  LogLevel,
  Option,
  Schedule,
  Schema,
  Scope,
  Stream,
  TestClock,
  Tracer
} from "effect"
import * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { failureOf, runScripted } from "./support/harness.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/resource"
const get = (client: ResilientHttpClient.ResilientHttpClient.Service) => client.get(url)
const noJitter = { jitter: "none" } as const

describe("ResilientHttpClient: the seed scenarios on the TestClock", () => {
  it.effect("linear 500 ms, 3 attempts: 503, 503, 200 succeeds with attempts at 0, 500 and 1500 ms", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503 }, { status: 503 }, { status: 200, body: "ok" }],
        { ...noJitter, maxAttempts: 3, backoff: RetryPolicy.linear("500 millis") },
        get
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      if (Exit.isSuccess(run.exit)) expect(run.exit.value.status).toBe(200)
      expect(run.times()).toEqual([0, 500, 1500])
    })
  )

  it.effect("a lasting 503 with Retry-After: 5 and maxDelay 2 s waits the cap twice and hands back attempt 3", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "5" } }],
        { ...noJitter, maxAttempts: 3, backoff: RetryPolicy.exponential("500 millis"), maxDelay: "2 seconds" },
        get
      )
      const failure = failureOf(run)
      assert.isTrue(HttpFailure.isTransientStatus(failure))
      if (failure._tag !== "TransientStatus") return
      expect(failure.status).toBe(503)
      expect(failure.attempt).toBe(3)
      expect(failure.retryAfter).toEqual(Option.some(Duration.seconds(5)))
      expect(run.times()).toEqual([0, 2000, 4000])
    })
  )

  it.effect('"give-up" hands the 503 back at once when Retry-After exceeds maxDelay', () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "5" } }],
        {
          ...noJitter,
          maxAttempts: 3,
          backoff: RetryPolicy.exponential("500 millis"),
          maxDelay: "2 seconds",
          whenRetryAfterExceedsMaxDelay: "give-up"
        },
        get
      )
      const failure = failureOf(run)
      expect(failure._tag).toBe("TransientStatus")
      expect(failure.attempt).toBe(1)
      expect(run.times()).toEqual([0])
    })
  )

  it.effect("a 503 without Retry-After backs off exponentially: attempts at 0, 500, 1500 ms", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "x-simulated": "true" } }],
        { ...noJitter, maxAttempts: 3, backoff: RetryPolicy.exponential("500 millis") },
        get
      )
      expect(failureOf(run).attempt).toBe(3)
      expect(run.times()).toEqual([0, 500, 1500])
    })
  )

  it.effect("Retry-After as an HTTP-date 3 s ahead waits 3000 ms; a date in the past waits 0", () =>
    Effect.gen(function* () {
      const policy = { ...noJitter, maxAttempts: 2, backoff: RetryPolicy.constant("1 second") }
      // The TestClock starts at the Unix epoch.
      const ahead = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "Thu, 01 Jan 1970 00:00:03 GMT" } }, { status: 200 }],
        policy,
        get
      )
      expect(ahead.times()).toEqual([0, 3000])
      const past = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "Wed, 31 Dec 1969 23:59:00 GMT" } }, { status: 200 }],
        policy,
        get
      )
      expect(past.times()).toEqual([0, 0])
    })
  )
})

describe("ResilientHttpClient: what is retried", () => {
  const policy = { ...noJitter, maxAttempts: 3, backoff: RetryPolicy.constant("100 millis") }

  for (const status of [400, 401, 404, 501]) {
    it.effect(`${status} is a PermanentStatus after one attempt, with the body as a snippet`, () =>
      Effect.gen(function* () {
        const run = yield* runScripted([{ status, body: `{"error":"nope ${status}"}` }], policy, get)
        const failure = failureOf(run)
        assert.isTrue(HttpFailure.isPermanentStatus(failure))
        if (failure._tag !== "PermanentStatus") return
        expect(failure.status).toBe(status)
        expect(failure.attempt).toBe(1)
        expect(failure.body).toBe(`{"error":"nope ${status}"}`)
        expect(run.times()).toEqual([0])
      })
    )
  }

  for (const status of [408, 429, 500, 502, 503, 504]) {
    it.effect(`${status} is retried up to maxAttempts`, () =>
      Effect.gen(function* () {
        const run = yield* runScripted([{ status }], policy, get)
        expect(failureOf(run)).toMatchObject({ _tag: "TransientStatus", status, attempt: 3 })
        expect(run.times()).toEqual([0, 100, 200])
      })
    )
  }

  it.effect("isTransientStatus replaces the transient set", () =>
    Effect.gen(function* () {
      const custom = { ...policy, isTransientStatus: (status: number) => status === 418 }
      const teapot = yield* runScripted([{ status: 418 }, { status: 200 }], custom, get)
      assert.isTrue(Exit.isSuccess(teapot.exit))
      expect(teapot.times()).toEqual([0, 100])
      const unavailable = yield* runScripted([{ status: 503 }], custom, get)
      expect(failureOf(unavailable)._tag).toBe("PermanentStatus")
      expect(unavailable.scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("a transport failure twice, then 200, succeeds on attempt 3", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ transportError: "ECONNRESET" }, { transportError: "ECONNREFUSED" }, { status: 200 }],
        policy,
        get
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      expect(run.times()).toEqual([0, 100, 200])
    })
  )

  it.effect("a POST with the same failures is tried once; with an Idempotency-Key three times", () =>
    Effect.gen(function* () {
      const script = [{ transportError: "ECONNRESET" }, { transportError: "ECONNRESET" }, { status: 200 }] as const
      const post = HttpClientRequest.post(url).pipe(HttpClientRequest.bodyText("{}"))
      const once = yield* runScripted(script, policy, (client) => client.execute(post))
      expect(failureOf(once)).toMatchObject({ _tag: "ConnectionError", reason: "Transport", attempt: 1 })
      expect(once.scripted.exchanges).toHaveLength(1)

      const keyed = yield* runScripted(script, policy, (client) =>
        client.execute(HttpClientRequest.setHeader(post, "Idempotency-Key", "order-42"))
      )
      assert.isTrue(Exit.isSuccess(keyed.exit))
      expect(keyed.scripted.exchanges).toHaveLength(3)
    })
  )

  it.effect("a POST 503 is retried when retryNonIdempotent is set; PATCH is not by default", () =>
    Effect.gen(function* () {
      const post = HttpClientRequest.post(url)
      const allowed = yield* runScripted([{ status: 503 }], { ...policy, retryNonIdempotent: true }, (client) =>
        client.execute(post)
      )
      expect(allowed.scripted.exchanges).toHaveLength(3)
      const patch = yield* runScripted([{ status: 503 }], policy, (client) =>
        client.execute(HttpClientRequest.patch(url))
      )
      expect(patch.scripted.exchanges).toHaveLength(1)
      for (const make of [
        HttpClientRequest.put,
        HttpClientRequest.del,
        HttpClientRequest.head,
        HttpClientRequest.options
      ]) {
        const run = yield* runScripted([{ status: 503 }], policy, (client) => client.execute(make(url)))
        expect(run.scripted.exchanges).toHaveLength(3)
      }
    })
  )

  it.effect("a one-shot streamed body is never retried, even when the method is idempotent", () =>
    Effect.gen(function* () {
      const put = HttpClientRequest.put(url).pipe(
        HttpClientRequest.setBody(HttpBody.stream(Stream.make(new TextEncoder().encode("chunk"))))
      )
      const run = yield* runScripted([{ status: 503 }], { ...policy, retryNonIdempotent: true }, (client) =>
        client.execute(put)
      )
      expect(run.scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("an invalid URL is a ConnectionError InvalidRequest, never retried", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 200 }], policy, (client) => client.get("not a url"))
      expect(failureOf(run)).toMatchObject({ _tag: "ConnectionError", reason: "InvalidRequest", attempt: 1 })
      expect(run.scripted.exchanges).toHaveLength(0)
    })
  )

  it.effect("attemptTimeout turns a hang into a ConnectionError Timeout, retried like a transport failure", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ hang: true }, { hang: true }, { status: 200 }],
        {
          ...policy,
          attemptTimeout: "2 seconds"
        },
        get
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      expect(run.times()).toEqual([0, 2100, 4200])
      expect(run.scripted.exchanges[0]!.aborted).toBe(true)
      expect(run.scripted.exchanges[1]!.aborted).toBe(true)

      const exhausted = yield* runScripted([{ hang: true }], { ...policy, attemptTimeout: "1 second" }, get)
      expect(failureOf(exhausted)).toMatchObject({ _tag: "ConnectionError", reason: "Timeout", attempt: 3 })
    })
  )

  it.effect("maxElapsed stops before a wait that would end past the deadline", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503 }],
        { ...noJitter, maxAttempts: 10, backoff: RetryPolicy.linear("1 second"), maxElapsed: "4 seconds" },
        get
      )
      // Waits 1 s then 2 s (3 s in all); the next 3 s wait would end at 6 s.
      expect(run.times()).toEqual([0, 1000, 3000])
      expect(failureOf(run).attempt).toBe(3)
    })
  )
})

describe("ResilientHttpClient: Retry-After and rate-limit headers", () => {
  const policy = { ...noJitter, maxAttempts: 2, backoff: RetryPolicy.constant("100 millis") }

  it.effect('retryAfter: "ignore" uses the backoff', () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "7" } }, { status: 200 }],
        {
          ...policy,
          retryAfter: "ignore"
        },
        get
      )
      expect(run.times()).toEqual([0, 100])
    })
  )

  it.effect("a 429 honours X-RateLimit-Reset; a 503 ignores it (it describes a quota, not an outage)", () =>
    Effect.gen(function* () {
      const limited = yield* runScripted(
        [{ status: 429, headers: { "x-ratelimit-reset": "3" } }, { status: 200 }],
        policy,
        get
      )
      expect(limited.times()).toEqual([0, 3000])
      const unavailable = yield* runScripted(
        [{ status: 503, headers: { "x-ratelimit-reset": "3" } }, { status: 200 }],
        policy,
        get
      )
      expect(unavailable.times()).toEqual([0, 100])
    })
  )

  it.effect("Retry-After is not jittered, backoff is", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "retry-after": "1" } }, { status: 200 }],
        {
          ...policy,
          jitter: "full"
        },
        get
      )
      expect(run.times()).toEqual([0, 1000])
    })
  )
})

describe("ResilientHttpClient: getJson", () => {
  const Track = Schema.Struct({ id: Schema.String, name: Schema.String })
  const policy = { ...noJitter, maxAttempts: 3, backoff: RetryPolicy.constant("100 millis") }
  const getTrack = (client: ResilientHttpClient.ResilientHttpClient.Service) => client.getJson(url, Track)

  it.effect("decodes a 200 after retrying a 503", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503 }, { status: 200, body: '{"id":"t1","name":"Song"}' }],
        policy,
        getTrack
      )
      expect(run.exit).toEqual(Exit.succeed({ id: "t1", name: "Song" }))
      expect(run.scripted.exchanges).toHaveLength(2)
    })
  )

  it.effect("invalid JSON in a 200 is a DecodeError after one attempt", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 200, body: '{"tracks": [' }], policy, getTrack)
      const failure = failureOf(run)
      expect(failure).toMatchObject({ _tag: "DecodeError", status: 200, attempt: 1 })
      expect(failure.cause).toBeInstanceOf(SyntaxError)
      expect(run.scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("JSON that fails the schema is a DecodeError after one attempt", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 200, body: '{"id":7}' }], policy, getTrack)
      const failure = failureOf(run)
      expect(failure).toMatchObject({ _tag: "DecodeError", status: 200, attempt: 1 })
      expect(String(failure.cause)).toContain("name")
      expect(run.scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("a failed response's body is never decoded as data", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 404, body: '{"id":"x","name":"looks like a track"}' }],
        policy,
        getTrack
      )
      expect(failureOf(run)._tag).toBe("PermanentStatus")
    })
  )

  it.effect("the response is released once decoded", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 200, body: '{"id":"t1","name":"Song"}' }], policy, getTrack)
      assert.isTrue(Exit.isSuccess(run.exit))
      assert.isTrue(ScriptedHttpClient.isReleased(run.scripted.exchanges[0]!))
    })
  )
})

describe("ResilientHttpClient: interruption and release", () => {
  it.effect("interrupting during a 2 s wait sends no further attempt at any later time", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503 }])
      const client = yield* ResilientHttpClient.make({
        ...noJitter,
        maxAttempts: 5,
        backoff: RetryPolicy.constant("2 seconds")
      }).pipe(Effect.provideService(HttpClient.HttpClient, scripted.client))
      const fiber = yield* Effect.fork(Effect.scoped(client.get(url)))
      yield* TestClock.adjust("1 second")
      expect(scripted.times()).toEqual([0])
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      yield* TestClock.adjust("1 hour")
      expect(scripted.times()).toEqual([0])
    })
  )

  it.effect("every discarded response is released before the next attempt", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503 }, { transportError: "ECONNRESET" }, { status: 500, body: "x".repeat(100) }, { status: 200 }],
        { ...noJitter, maxAttempts: 4, backoff: RetryPolicy.constant("10 millis") },
        get
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      const [first, , third] = run.scripted.exchanges
      expect(first!.releasedBeforeNext).toBe(true)
      expect(third!.releasedBeforeNext).toBe(true)
      // A small body is drained, so the connection can be reused.
      expect(first!.drained).toBe(true)
      expect(third!.drained).toBe(true)
    })
  )

  it.effect("a large discarded body is aborted rather than read", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [
          { status: 503, headers: { "content-length": String(1024 * 1024) }, body: "x".repeat(1024 * 1024) },
          { status: 200 }
        ],
        { ...noJitter, maxAttempts: 2, backoff: RetryPolicy.constant("10 millis") },
        get
      )
      const first = run.scripted.exchanges[0]!
      expect(first.drained).toBe(false)
      expect(first.aborted).toBe(true)
      expect(first.releasedBeforeNext).toBe(true)
    })
  )

  it.effect("a PermanentStatus body snippet stops at 8 KiB", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 400, body: "é".repeat(20_000) }], undefined, get)
      const failure = failureOf(run)
      if (failure._tag !== "PermanentStatus") return assert.fail("expected PermanentStatus")
      expect(new TextEncoder().encode(failure.body).byteLength).toBeLessThanOrEqual(8 * 1024)
      expect(failure.body.length).toBeGreaterThan(4000)
      expect(failure.body).not.toContain("\uFFFD")
    })
  )

  it.effect("an unreadable PermanentStatus body leaves the snippet empty, the failure unchanged", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 404, body: "partial", bodyError: "socket hang up" }], undefined, get)
      expect(failureOf(run)).toMatchObject({ _tag: "PermanentStatus", status: 404, attempt: 1, body: "" })
    })
  )

  it.effect("a transient body that breaks off while draining is still released and retried", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, bodyError: "socket hang up" }, { status: 200 }],
        { ...noJitter, maxAttempts: 2, backoff: RetryPolicy.constant("10 millis") },
        get
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      expect(run.scripted.exchanges[0]!.releasedBeforeNext).toBe(true)
    })
  )

  it.effect("the final response stays open in the caller's scope; an unread body is released when it closes", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200, body: "payload" }])
      const client = yield* ResilientHttpClient.make().pipe(
        Effect.provideService(HttpClient.HttpClient, scripted.client)
      )
      const read = yield* Scope.make()
      const response = yield* Scope.extend(client.get(url), read)
      expect(ScriptedHttpClient.isReleased(scripted.exchanges[0]!)).toBe(false)
      expect(yield* response.text).toBe("payload")
      yield* Scope.close(read, Exit.void)
      expect(scripted.exchanges[0]).toMatchObject({ drained: true, aborted: false })

      const unread = yield* Scope.make()
      yield* Scope.extend(client.get(url), unread)
      expect(ScriptedHttpClient.isReleased(scripted.exchanges[1]!)).toBe(false)
      yield* Scope.close(unread, Exit.void)
      expect(ScriptedHttpClient.isReleased(scripted.exchanges[1]!)).toBe(true)
    })
  )

  it.effect("an unread large final response is aborted when the caller's scope closes", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([
        { status: 200, headers: { "content-length": String(1024 * 1024) }, body: "x".repeat(1024 * 1024) }
      ])
      const client = yield* ResilientHttpClient.make().pipe(
        Effect.provideService(HttpClient.HttpClient, scripted.client)
      )
      yield* Effect.scoped(client.get(url))
      expect(scripted.exchanges[0]).toMatchObject({ drained: false, aborted: true })
    })
  )

  it.effect("concurrent calls sharing one request value keep separate connections", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const client = yield* ResilientHttpClient.make().pipe(
        Effect.provideService(HttpClient.HttpClient, scripted.client)
      )
      const shared = HttpClientRequest.get(url)
      const scopeA = yield* Scope.make()
      const scopeB = yield* Scope.make()
      yield* Effect.all([Scope.extend(client.execute(shared), scopeA), Scope.extend(client.execute(shared), scopeB)], {
        concurrency: 2
      })
      yield* Scope.close(scopeA, Exit.void)
      expect(scripted.exchanges.map((exchange) => exchange.aborted)).toEqual([true, false])
      yield* Scope.close(scopeB, Exit.void)
      expect(scripted.exchanges.map((exchange) => exchange.aborted)).toEqual([true, true])
    })
  )
})

describe("ResilientHttpClient: policies and schedules", () => {
  it.effect("layer with plain options fails with InvalidRetryPolicy naming the option", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200 }])
      const built = yield* Layer.build(
        ResilientHttpClient.layer({ maxAttempts: 0 }).pipe(
          Layer.provide(Layer.succeed(HttpClient.HttpClient, scripted.client))
        )
      ).pipe(Effect.scoped, Effect.flip)
      expect(built).toBeInstanceOf(RetryPolicy.InvalidRetryPolicy)
      expect(built.option).toBe("maxAttempts")
    })
  )

  it.effect("a custom Schedule decides the waits but never retries a permanent status or a POST", () =>
    Effect.gen(function* () {
      const schedule = Schedule.intersect(Schedule.spaced("300 millis"), Schedule.recurs(4))
      const retried = yield* runScripted([{ status: 503 }, { status: 200 }], schedule, get)
      expect(retried.times()).toEqual([0, 300])
      const permanent = yield* runScripted([{ status: 400 }], schedule, get)
      expect(permanent.scripted.exchanges).toHaveLength(1)
      const post = yield* runScripted([{ status: 503 }], schedule, (client) =>
        client.execute(HttpClientRequest.post(url))
      )
      expect(post.scripted.exchanges).toHaveLength(1)
    })
  )

  it.effect("the default policy: 3 attempts, equal jitter within [250, 500] then [500, 1000] ms", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 503 }], undefined, get)
      const [first, second, third] = run.times()
      expect(run.scripted.exchanges).toHaveLength(3)
      expect(second! - first!).toBeGreaterThanOrEqual(250)
      expect(second! - first!).toBeLessThanOrEqual(500)
      expect(third! - second!).toBeGreaterThanOrEqual(500)
      expect(third! - second!).toBeLessThanOrEqual(1000)
    })
  )

  it.effect("each attempt is the transport's own client span, with http.request.resend_count on resends only", () =>
    Effect.gen(function* () {
      const spans: Array<Tracer.Span> = []
      const base = yield* Effect.tracer
      const recording = Tracer.make({
        span: (...args) => {
          const span = base.span(...args)
          spans.push(span)
          return span
        },
        context: base.context
      })
      yield* runScripted(
        [{ status: 503 }, { status: 503 }, { status: 200 }],
        {
          ...noJitter,
          backoff: RetryPolicy.constant("10 millis")
        },
        get
      ).pipe(Effect.withTracer(recording))
      // No span of our own: one client span per physical request, as OpenTelemetry's HTTP conventions want.
      expect(spans.map((span) => span.name)).toEqual(["http.client GET", "http.client GET", "http.client GET"])
      expect(spans.map((span) => span.attributes.get("http.request.resend_count"))).toEqual([undefined, 1, 2])
    })
  )

  it.effect("each retry is logged at debug level with attempt, status and the wait", () =>
    Effect.gen(function* () {
      const lines: Array<{ message: unknown; annotations: Record<string, unknown>; level: string }> = []
      const capture = Logger.make(({ annotations, logLevel, message }) => {
        lines.push({
          message: Array.isArray(message) ? message[0] : message,
          annotations: Object.fromEntries(annotations),
          level: logLevel.label
        })
      })
      yield* runScripted(
        [{ status: 503, headers: { "retry-after": "5" } }],
        { ...noJitter, maxAttempts: 2, maxDelay: "2 seconds" },
        get
      ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)), Logger.withMinimumLogLevel(LogLevel.Debug))
      expect(lines).toEqual([
        {
          message: "retrying",
          level: "DEBUG",
          annotations: expect.objectContaining({
            "retry.attempt": 1,
            "http.response.status_code": 503,
            "retry.wait_millis": 2000,
            "retry.wait_source": "retry-after",
            "retry.wait_capped": true
          })
        },
        {
          message: "giving up",
          level: "DEBUG",
          annotations: expect.objectContaining({ "retry.attempt": 2, "retry.give_up_reason": "attempts-exhausted" })
        }
      ])
    })
  )
})
