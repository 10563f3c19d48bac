/**
 * Deterministic release, getJson and the body limit on the TestClock: every discarded response
 * is released before the next attempt (drained when small, aborted when large), the final one is
 * bound to the caller's scope, and getJson reads within the attempt.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Schema, Scope } from "effect"
import { HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import * as HttpFailure from "../src/HttpFailure.js"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { failureOf, runScripted } from "./support/harness.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/resource"
const fast = { jitter: "none", backoff: RetryPolicy.constant("10 millis") } as const
const big = 1024 * 1024
const clientOver = (script: ReadonlyArray<ScriptedHttpClient.Answer>, policy?: RetryPolicy.Options) => {
  const scripted = ScriptedHttpClient.make(script)
  return Effect.map(
    ResilientHttpClient.make(policy).pipe(Effect.provideService(HttpClient.HttpClient, scripted.client)),
    (client) => ({ client, scripted })
  )
}
const Todo = Schema.Struct({ id: Schema.Number, title: Schema.String })

describe("release of discarded responses, Effect 4", () => {
  it.effect("each discarded response is released before the next attempt: small ones drained", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503 }, { transportError: "ECONNRESET" }, { status: 500, body: "x".repeat(100) }, { status: 200 }],
        { ...fast, maxAttempts: 4 },
        (client) => client.get(url)
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      const [first, , third] = run.scripted.exchanges
      expect([first?.releasedBeforeNext, first?.drained, third?.releasedBeforeNext, third?.drained]).toEqual([
        true,
        true,
        true,
        true
      ])
    })
  )

  it.effect("a large discarded body is aborted rather than read", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [{ status: 503, headers: { "content-length": String(big) }, body: "x".repeat(big) }, { status: 200 }],
        fast,
        (client) => client.get(url)
      )
      expect(run.scripted.exchanges[0]).toMatchObject({ drained: false, aborted: true, releasedBeforeNext: true })
    })
  )

  it.effect("a transient body that breaks off while draining is still released and retried", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 503, bodyError: "socket hang up" }, { status: 200 }], fast, (client) =>
        client.get(url)
      )
      assert.isTrue(Exit.isSuccess(run.exit))
      expect(run.scripted.exchanges[0]!.releasedBeforeNext).toBe(true)
    })
  )

  it.effect("a PermanentStatus keeps at most 8 KiB of its body, with no character cut in two", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 400, body: "é".repeat(20_000) }], undefined, (client) =>
        client.get(url)
      )
      const failure = failureOf(run)
      if (failure._tag !== "PermanentStatus") return assert.fail("expected PermanentStatus")
      expect(new TextEncoder().encode(failure.body).byteLength).toBeLessThanOrEqual(8 * 1024)
      expect(failure.body.length).toBeGreaterThan(4000)
      expect(failure.body).not.toContain("\uFFFD")
      const unreadable = yield* runScripted(
        [{ status: 404, body: "partial", bodyError: "socket hang up" }],
        undefined,
        (client) => client.get(url)
      )
      expect(failureOf(unreadable)).toMatchObject({ _tag: "PermanentStatus", status: 404, body: "" })
    })
  )

  it.effect("interrupting during a wait sends no further attempt, ever", () =>
    Effect.gen(function* () {
      const { client, scripted } = yield* clientOver([{ status: 503 }], {
        jitter: "none",
        maxAttempts: 5,
        backoff: RetryPolicy.constant("2 seconds")
      })
      const fiber = yield* Effect.forkChild(Effect.scoped(client.get(url)), { startImmediately: true })
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.interrupt(fiber).pipe(Effect.andThen(Fiber.await(fiber)))
      assert.isTrue(Exit.hasInterrupts(exit))
      yield* TestClock.adjust("1 hour")
      expect(scripted.times()).toEqual([0])
    })
  )

  it.effect("the final response stays open in the caller's scope; an unread body is released when it closes", () =>
    Effect.gen(function* () {
      const { client, scripted } = yield* clientOver([{ status: 200, body: "payload" }])
      const read = yield* Scope.make()
      const response = yield* client.get(url).pipe(Scope.provide(read))
      expect(ScriptedHttpClient.isReleased(scripted.exchanges[0]!)).toBe(false)
      expect(yield* response.text).toBe("payload")
      yield* Scope.close(read, Exit.void)
      expect(scripted.exchanges[0]!.drained).toBe(true)

      const unread = yield* Scope.make()
      yield* client.get(url).pipe(Scope.provide(unread))
      expect(ScriptedHttpClient.isReleased(scripted.exchanges[1]!)).toBe(false)
      yield* Scope.close(unread, Exit.void)
      expect(ScriptedHttpClient.isReleased(scripted.exchanges[1]!)).toBe(true)
    })
  )

  it.effect("an unread large final response is aborted when the caller's scope closes", () =>
    Effect.gen(function* () {
      const { client, scripted } = yield* clientOver([
        { status: 200, headers: { "content-length": String(big) }, body: "x".repeat(big) }
      ])
      yield* Effect.scoped(client.get(url))
      expect(scripted.exchanges[0]).toMatchObject({ drained: false, aborted: true })
    })
  )
})

describe("getJson, Effect 4", () => {
  const getTodo = (client: ResilientHttpClient.ResilientHttpClient.Service) => client.getJson(url, Todo)

  it.effect("decodes a 200 after retrying a 503; the body is read within the attempt and released", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 503 }, { status: 200, body: '{"id":1,"title":"a"}' }], fast, getTodo)
      expect(Exit.isSuccess(run.exit) ? run.exit.value : undefined).toEqual({ id: 1, title: "a" })
      expect(run.scripted.exchanges.map((exchange) => exchange.drained)).toEqual([true, true])
    })
  )

  it.effect("invalid JSON, a schema mismatch, a failed status: never decoded as data, never retried", () =>
    Effect.gen(function* () {
      for (const [answer, ended] of [
        [
          { status: 200, body: "{not json" },
          { _tag: "DecodeError", status: 200 }
        ],
        [
          { status: 200, body: '{"id":"one"}' },
          { _tag: "DecodeError", status: 200 }
        ],
        [
          { status: 404, body: '{"id":1,"title":"a"}' },
          { _tag: "PermanentStatus", status: 404 }
        ]
      ] as const) {
        const run = yield* runScripted([answer], fast, getTodo)
        expect(run.scripted.exchanges.length).toBe(1)
        expect(failureOf(run)).toMatchObject({ ...ended, attempt: 1, giveUpReason: "not-retryable" })
      }
    })
  )

  it.effect("a body over maxBodyBytes is a DecodeError whose cause is BodyTooLarge, declared or read", () =>
    Effect.gen(function* () {
      const body = JSON.stringify({ id: 1, title: "x".repeat(200) })
      const declared = yield* runScripted(
        [{ status: 200, headers: { "content-length": String(body.length) }, body }],
        { maxBodyBytes: 100 },
        getTodo
      )
      const failure = failureOf(declared)
      assert.isTrue(HttpFailure.isDecodeError(failure) && HttpFailure.isBodyTooLarge(failure.cause))
      expect(failure.message).toBe(
        `GET ${url}: the body of status 200 is larger than the limit of 100 bytes (it declares ${body.length}) on attempt 1; not retried: the server answered, and would answer the same again`
      )
      const streamed = yield* runScripted([{ status: 200, body }], { maxBodyBytes: 100 }, getTodo)
      expect(failureOf(streamed)).toMatchObject({
        _tag: "DecodeError",
        cause: { _tag: "BodyTooLarge", declared: false }
      })
    })
  )

  it.effect("a body that breaks off is a ConnectionError, retried", () =>
    Effect.gen(function* () {
      const run = yield* runScripted(
        [
          { status: 200, body: '{"id":1,"title":"a"}', bodyError: "socket hang up" },
          { status: 200, body: '{"id":2,"title":"b"}' }
        ],
        fast,
        getTodo
      )
      expect(Exit.isSuccess(run.exit) ? run.exit.value : undefined).toEqual({ id: 2, title: "b" })
    })
  )
})
