// @generated from templates/test/Testing.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import { assert, describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Option, TestClock } from "effect"
import { HttpClient } from "@effect/platform"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import * as Testing from "../src/Testing.js"

describe("Testing.scriptedHttpClient", () => {
  it.effect("answers from the script in order, repeats the last step, and records every request", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([
        { status: 503, headers: { "retry-after": "2" }, body: "busy" },
        { status: 200, headers: { "content-type": "application/json" }, body: '{"id":1}' }
      ])
      // Without the platform's tracing headers (b3, traceparent), which the transport would see too.
      const client = scripted.client.pipe(HttpClient.withTracerPropagation(false))
      const first = yield* client.get("https://api.test/items?page=2", { headers: { "x-trace": "a" } })
      yield* TestClock.adjust("1500 millis")
      const second = yield* client.post("https://api.test/items")
      const third = yield* client.get("https://api.test/items")
      expect([first.status, first.headers["retry-after"], yield* first.text]).toEqual([503, "2", "busy"])
      expect([second.status, yield* second.json, third.status]).toEqual([200, { id: 1 }, 200])
      expect(yield* scripted.requests).toEqual([
        {
          attempt: 1,
          method: "GET",
          url: "https://api.test/items?page=2",
          headers: { "x-trace": "a" },
          sentAtMillis: 0
        },
        { attempt: 2, method: "POST", url: "https://api.test/items", headers: {}, sentAtMillis: 1500 },
        { attempt: 3, method: "GET", url: "https://api.test/items", headers: {}, sentAtMillis: 1500 }
      ])
      yield* scripted.client.get("https://api.test/traced")
      expect(Object.keys((yield* scripted.requests)[3]?.headers ?? {}).sort()).toEqual(["b3", "traceparent"])
    }).pipe(Effect.scoped)
  )

  it.effect("times the waits of a resilient client exactly: Retry-After 2 s, then 200 at 2 s, 2 attempts", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([
        { status: 503, headers: { "retry-after": "2" } },
        { status: 200, body: "ok" }
      ])
      const fiber = yield* HttpClient.get("https://retry-after.test/items").pipe(
        Effect.flatMap((response) => response.text),
        Effect.provide(ResilientHttpClient.layerHttpClient({ maxAttempts: 3 })),
        Effect.provide(scripted.layer),
        Effect.fork
      )
      yield* TestClock.adjust("1999 millis")
      expect((yield* scripted.requests).length).toBe(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(fiber)).toBe("ok")
      const requests = yield* scripted.requests
      expect(requests.map((request) => [request.attempt, request.sentAtMillis])).toEqual([
        [1, 0],
        [2, 2000]
      ])
    })
  )

  it.effect("a transport failure has no response; its code decides whether a retry can help", () =>
    Effect.gen(function* () {
      const policy = { maxAttempts: 3, jitter: "none", backoff: RetryPolicy.linear("500 millis") } as const
      const reset = yield* Testing.scriptedHttpClient([{ transportError: "socket hang up", code: "ECONNRESET" }])
      const resetFiber = yield* ResilientHttpClient.make(policy).pipe(
        Effect.flatMap((service) => service.get("https://reset.test/items")),
        Effect.scoped,
        Effect.provide(reset.layer),
        Effect.flip,
        Effect.fork
      )
      yield* TestClock.adjust("10 seconds")
      const resetFailure = yield* Fiber.join(resetFiber)
      assert(resetFailure._tag === "ConnectionError")
      expect([resetFailure.reason, resetFailure.attempt]).toEqual(["Transport", 3])
      expect((yield* reset.requests).map((request) => request.sentAtMillis)).toEqual([0, 500, 1500])

      const expired = yield* Testing.scriptedHttpClient([
        { transportError: "certificate has expired", code: "CERT_HAS_EXPIRED" }
      ])
      const expiredFailure = yield* ResilientHttpClient.make(policy).pipe(
        Effect.flatMap((service) => service.get("https://expired.test/items")),
        Effect.scoped,
        Effect.provide(expired.layer),
        Effect.flip
      )
      assert(expiredFailure._tag === "ConnectionError")
      expect([expiredFailure.reason, expiredFailure.attempt]).toEqual(["Unrecoverable", 1])
      expect((yield* expired.requests).length).toBe(1)
    })
  )

  it.effect("a step that hangs waits until the attempt's time limit interrupts it", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient([{ hang: true }, { status: 204 }])
      const fiber = yield* ResilientHttpClient.make({
        maxAttempts: 2,
        jitter: "none",
        backoff: RetryPolicy.constant("250 millis"),
        attemptTimeout: "1 second"
      }).pipe(
        Effect.flatMap((service) => service.get("https://hang.test/items")),
        Effect.map((response) => response.status),
        Effect.scoped,
        Effect.provide(scripted.layer),
        Effect.fork
      )
      yield* TestClock.adjust("1 minute")
      expect(yield* Fiber.join(fiber)).toBe(204)
      expect((yield* scripted.requests).map((request) => request.sentAtMillis)).toEqual([0, 1250])
    })
  )

  it.effect("answers by a function of the request: its number, method, URL and headers", () =>
    Effect.gen(function* () {
      const scripted = yield* Testing.scriptedHttpClient((request) =>
        request.headers["idempotency-key"] === undefined
          ? { status: 400 }
          : request.attempt < 3
            ? { status: 502 }
            : { status: 201, body: `${request.method} ${request.url}` }
      )
      const fiber = yield* Effect.gen(function* () {
        const client = (yield* HttpClient.HttpClient).pipe(
          ResilientHttpClient.withResilience({ jitter: "none", backoff: RetryPolicy.exponential("100 millis") })
        )
        const response = yield* client.post("https://orders.test/orders", { headers: { "idempotency-key": "k" } })
        return yield* response.text
      }).pipe(Effect.scoped, Effect.provide(scripted.layer), Effect.fork)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(fiber)).toBe("POST https://orders.test/orders")
      expect((yield* scripted.requests).map((request) => request.sentAtMillis)).toEqual([0, 100, 300])
    })
  )

  it.effect("each client has its own record; a script function that throws is a defect", () =>
    Effect.gen(function* () {
      const one = yield* Testing.scriptedHttpClient([{ status: 200 }])
      const other = yield* Testing.scriptedHttpClient(() => {
        throw new Error("no step for this request")
      })
      yield* Effect.scoped(one.client.get("https://one.test/"))
      const exit = yield* Effect.exit(Effect.scoped(other.client.get("https://other.test/")))
      expect((yield* one.requests).length).toBe(1)
      expect((yield* other.requests).length).toBe(1)
      assert(Exit.isFailure(exit))
      const defect = Cause.dieOption(exit.cause)
      assert(Option.isSome(defect))
      expect(String(defect.value)).toContain("no step for this request")
    })
  )
})
