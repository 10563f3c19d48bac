// @generated from templates/test/coalesce.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Request coalescing on Effect 3 (issue #44 item 4), on the TestClock over a scripted transport:
 * exact request counts, every caller's whole body, one follower interrupted, the last caller
 * out interrupting the shared request, the leader's failure shared, the cap's fallback, the
 * key (credentials never shared, a key function), and composition with retries and the metric.
 */
import { describe, expect, it } from "@effect/vitest"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Fiber, Layer, type Scope, TestClock } from "effect"
import * as Coalesce from "../src/Coalesce.js"
import type * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"
import { counterValue } from "./support/metrics.js"

const coalescedMetric = "http.client.resilience.coalesced"
const attemptsMetric = "http.client.resilience.attempts"

type Client = HttpClient.HttpClient.With<HttpFailure.HttpFailure, Scope.Scope>

const clientOf = (scripted: ScriptedHttpClient.ScriptedHttpClient, options: RetryPolicy.Options = {}): Client =>
  ResilientHttpClient.withResilience(scripted.client, {
    jitter: "none",
    coalesce: Coalesce.identical(),
    ...options
  })

/** One call: its status and whole body, or its failure's tag. */
const read = (client: Client, request: HttpClientRequest.HttpClientRequest) =>
  Effect.scoped(
    Effect.flatMap(client.execute(request), (response) =>
      Effect.map(response.text, (text) => `${response.status} ${text}`)
    )
  ).pipe(Effect.catchAll((failure) => Effect.succeed(`failed: ${failure._tag}`)))

/** Runs `calls` side by side with the clock moved a minute; what each returned. */
const together = <A, E>(calls: ReadonlyArray<Effect.Effect<A, E>>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(Effect.all(calls, { concurrency: "unbounded" }))
    yield* TestClock.adjust("1 minute")
    return yield* Fiber.join(fiber)
  })

const body = JSON.stringify({ items: Array.from({ length: 50 }, (_, i) => `item ${i}`) })

describe("Coalesce, Effect 3", () => {
  it.effect("100 concurrent identical GETs send one request; each caller reads the whole body", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200, body, delayMillis: 100 }])
      const client = clientOf(scripted)
      const url = "http://hundred.coalesce.test/items"
      const results = yield* together(Array.from({ length: 100 }, () => read(client, HttpClientRequest.get(url))))
      expect(scripted.exchanges).toHaveLength(1)
      expect(results).toEqual(Array.from({ length: 100 }, () => `200 ${body}`))
      expect(scripted.exchanges[0]?.drained).toBe(true)
      expect(yield* counterValue(coalescedMetric, "hundred.coalesce.test")).toBe(99)
      expect(yield* counterValue(attemptsMetric, "hundred.coalesce.test")).toBe(1)
    })
  )

  it.effect("a coalesced call is one call: one retry sequence for every caller, then a new call after it ended", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([
        { status: 503, headers: { "retry-after": "1" } },
        { status: 200, body }
      ])
      const client = clientOf(scripted)
      const request = HttpClientRequest.get("http://retried.coalesce.test/items")
      const results = yield* together(Array.from({ length: 10 }, () => read(client, request)))
      expect(results).toEqual(Array.from({ length: 10 }, () => `200 ${body}`))
      expect(scripted.times()).toEqual([0, 1000])
      // The call in flight ended: the next identical call sends its own request.
      yield* together([read(client, request)])
      expect(scripted.exchanges).toHaveLength(3)
    })
  )

  it.effect(
    "a follower interrupted leaves; the leader's caller interrupted too: the others still get the response",
    () =>
      Effect.gen(function* () {
        const scripted = ScriptedHttpClient.make([{ status: 200, body, delayMillis: 500 }])
        const client = clientOf(scripted)
        const request = HttpClientRequest.get("http://interrupted.coalesce.test/items")
        const fibers = yield* Effect.forEach([0, 1, 2, 3], () => Effect.fork(read(client, request)))
        yield* TestClock.adjust("100 millis")
        yield* Fiber.interrupt(fibers[0]!)
        yield* Fiber.interrupt(fibers[2]!)
        yield* TestClock.adjust("1 second")
        expect(yield* Fiber.join(fibers[1]!)).toBe(`200 ${body}`)
        expect(yield* Fiber.join(fibers[3]!)).toBe(`200 ${body}`)
        // The shared request ran to its end: its body was read whole, not cancelled.
        expect(scripted.exchanges).toHaveLength(1)
        expect(scripted.exchanges[0]?.drained).toBe(true)
        expect(scripted.exchanges[0]?.cancelled).toBe(false)
      })
  )

  it.effect("the last caller out interrupts the shared request", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ hang: true }])
      const client = clientOf(scripted, { attemptTimeout: "infinity", totalTimeout: "infinity" })
      const request = HttpClientRequest.get("http://abandoned.coalesce.test/items")
      const fibers = yield* Effect.forEach([0, 1, 2], () => Effect.fork(read(client, request)))
      yield* TestClock.adjust("100 millis")
      yield* Fiber.interrupt(fibers[0]!)
      yield* Fiber.interrupt(fibers[1]!)
      expect(scripted.exchanges[0]?.aborted).toBe(false)
      yield* Fiber.interrupt(fibers[2]!)
      expect(scripted.exchanges[0]?.aborted).toBe(true)
      // Nothing in flight is left: the next call sends anew.
      yield* together([Effect.ignore(Effect.timeout(read(client, request), "1 second"))])
      expect(scripted.exchanges).toHaveLength(2)
    })
  )

  it.effect("the leader's failure is every follower's: the same failure, one request", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 404, delayMillis: 100 }])
      const client = clientOf(scripted)
      const request = HttpClientRequest.get("http://failing.coalesce.test/items")
      const failures = yield* together(
        Array.from({ length: 5 }, () => Effect.flip(Effect.scoped(client.execute(request))))
      )
      expect(scripted.exchanges).toHaveLength(1)
      expect(failures.map((failure) => failure._tag)).toEqual(Array.from({ length: 5 }, () => "PermanentStatus"))
      expect(new Set(failures).size).toBe(1)
      expect(yield* counterValue(coalescedMetric, "failing.coalesce.test")).toBe(4)
    })
  )

  it.effect("past maxBodyBytes every caller sends its own request, and reads its whole body", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200, body: "0123456789", delayMillis: 100 }])
      const client = clientOf(scripted, { coalesce: Coalesce.identical({ maxBodyBytes: 4 }) })
      const request = HttpClientRequest.get("http://large.coalesce.test/items")
      const results = yield* together(Array.from({ length: 3 }, () => read(client, request)))
      expect(results).toEqual(["200 0123456789", "200 0123456789", "200 0123456789"])
      // The shared request, then one of each caller's own.
      expect(scripted.exchanges).toHaveLength(4)
      expect(yield* counterValue(coalescedMetric, "large.coalesce.test")).toBe(0)
    })
  )

  it.effect("different credentials never share; the same ones do", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200, body, delayMillis: 100 }])
      const client = clientOf(scripted)
      const as = (token: string) =>
        HttpClientRequest.get("http://credentials.coalesce.test/me").pipe(HttpClientRequest.bearerToken(token))
      yield* together([read(client, as("alice")), read(client, as("bob")), read(client, as("alice"))])
      expect(scripted.exchanges.map((exchange) => exchange.request.headers.authorization).sort()).toEqual([
        "Bearer alice",
        "Bearer bob"
      ])
      const cookies = (cookie: string) =>
        HttpClientRequest.get("http://credentials.coalesce.test/me").pipe(HttpClientRequest.setHeader("cookie", cookie))
      yield* together([read(client, cookies("session=1")), read(client, cookies("session=2"))])
      expect(scripted.exchanges).toHaveLength(4)
    })
  )

  it.effect("URL parameters are part of the key; a key function decides what else is", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200, body, delayMillis: 100 }])
      const client = clientOf(scripted)
      const page = (n: string) =>
        HttpClientRequest.get("http://params.coalesce.test/items").pipe(HttpClientRequest.setUrlParam("page", n))
      yield* together([read(client, page("1")), read(client, page("2")), read(client, page("1"))])
      expect(scripted.exchanges).toHaveLength(2)
      // A key of the URL alone: a request id header no longer keeps calls apart.
      const byUrl = clientOf(scripted, { coalesce: Coalesce.identical({ key: (request) => request.url }) })
      const tagged = (id: string) =>
        HttpClientRequest.get("http://params.coalesce.test/all").pipe(HttpClientRequest.setHeader("x-request-id", id))
      yield* together([read(byUrl, tagged("a")), read(byUrl, tagged("b"))])
      expect(scripted.exchanges).toHaveLength(3)
    })
  )

  it.effect("only GETs and HEADs without a body are coalesced", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 200, body, delayMillis: 100 }])
      const client = clientOf(scripted, { retryNonIdempotent: true })
      const url = "http://methods.coalesce.test/items"
      yield* together([read(client, HttpClientRequest.post(url)), read(client, HttpClientRequest.post(url))])
      expect(scripted.exchanges).toHaveLength(2)
      const heads = yield* together([
        read(client, HttpClientRequest.head(url)),
        read(client, HttpClientRequest.head(url))
      ])
      expect(heads).toEqual(["200 ", "200 "])
      expect(scripted.exchanges).toHaveLength(3)
    })
  )

  it.effect("the platform-typed client coalesces too", () =>
    Effect.gen(function* () {
      const scripted = ScriptedHttpClient.make([{ status: 503, body: "busy", delayMillis: 100 }])
      const policy = RetryPolicy.make({ jitter: "none", maxAttempts: 1, coalesce: Coalesce.identical() })
      const results = yield* Effect.gen(function* () {
        const client = yield* HttpClient.HttpClient
        const call = Effect.scoped(
          Effect.flatMap(client.get("http://platform.coalesce.test/items"), (response) =>
            Effect.map(response.text, (text) => `${response.status} ${text}`)
          )
        )
        return yield* together(Array.from({ length: 3 }, () => Effect.orDie(call)))
      }).pipe(
        Effect.provide(
          ResilientHttpClient.layerHttpClient(policy).pipe(
            Layer.provide(Layer.succeed(HttpClient.HttpClient, scripted.client))
          )
        )
      )
      expect(results).toEqual(["503 busy", "503 busy", "503 busy"])
      expect(scripted.exchanges).toHaveLength(1)
    })
  )

  it("a bad option is an InvalidRetryPolicy naming it", () => {
    expect(() => Coalesce.identical({ maxBodyBytes: -1 })).toThrow(/coalesce\.maxBodyBytes/)
    expect(() => RetryPolicy.make({ coalesce: {} as never })).toThrow(/Coalesce\.identical/)
  })
})
