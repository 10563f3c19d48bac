/**
 * What Effect 4's own `HttpClient.retryTransient` does, pinned on `TestClock`: the behaviour the
 * Effect 4 line of this library is compared against (see PORTING.md). If an Effect upgrade
 * changes it, these tests say so.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Schedule } from "effect"
import { HttpClient, HttpClientResponse } from "effect/http"
import { TestClock } from "effect/testing"

interface Answer {
  readonly status: number
  readonly headers?: Record<string, string>
}

/** A client that plays `answers` in order (the last one for ever) and records each request's method. */
const scripted = (answers: readonly [Answer, ...Array<Answer>]) => {
  const methods: Array<string> = []
  const client = HttpClient.make((request) =>
    Effect.sync(() => {
      const answer = answers[Math.min(methods.length, answers.length - 1)] ?? answers[0]
      methods.push(request.method)
      return HttpClientResponse.fromWeb(
        request,
        new Response(null, { status: answer.status, headers: answer.headers ?? {} })
      )
    })
  )
  return { client, methods }
}

const oneDayMillis = 24 * 60 * 60 * 1000

describe("Effect 4 HttpClient.retryTransient", () => {
  it.effect("waits a Retry-After of a day in full: the header is a minimum delay, not capped", () =>
    Effect.gen(function* () {
      const server = scripted([{ status: 503, headers: { "retry-after": "86400" } }, { status: 200 }])
      const client = server.client.pipe(HttpClient.retryTransient({ times: 3 }))
      const fiber = yield* Effect.forkChild(client.get("http://api.test/items"), { startImmediately: true })

      yield* TestClock.adjust(oneDayMillis - 1)
      assert.deepStrictEqual(server.methods, ["GET"], "no second attempt before the day is over")
      assert.isUndefined(fiber.pollUnsafe(), "still waiting")

      yield* TestClock.adjust(1)
      const response = yield* Fiber.join(fiber)
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(server.methods, ["GET", "GET"])
    })
  )

  it.effect("retries a POST like any other method", () =>
    Effect.gen(function* () {
      const server = scripted([{ status: 503 }, { status: 502 }, { status: 201 }])
      const client = server.client.pipe(HttpClient.retryTransient({ times: 3, schedule: Schedule.spaced("1 second") }))
      const fiber = yield* Effect.forkChild(client.post("http://api.test/orders"), { startImmediately: true })

      yield* TestClock.adjust("2 seconds")
      const response = yield* Fiber.join(fiber)
      assert.strictEqual(response.status, 201)
      assert.deepStrictEqual(server.methods, ["POST", "POST", "POST"])
    })
  )

  it.effect("has no attempt limit unless `times` is set", () =>
    Effect.gen(function* () {
      const server = scripted([{ status: 503 }])
      const client = server.client.pipe(HttpClient.retryTransient({ schedule: Schedule.spaced("1 second") }))
      const fiber = yield* Effect.forkChild(client.get("http://api.test/items"), { startImmediately: true })

      yield* TestClock.adjust("1000 seconds")
      assert.strictEqual(server.methods.length, 1001, "one attempt a second, and still going")
      assert.isUndefined(fiber.pollUnsafe())
      yield* Fiber.interrupt(fiber)
    })
  )

  it.effect("hands back the last transient response as a success once `times` is spent", () =>
    Effect.gen(function* () {
      const server = scripted([{ status: 503, headers: { "retry-after": "1" } }])
      const client = server.client.pipe(HttpClient.retryTransient({ times: 2 }))
      const fiber = yield* Effect.forkChild(Effect.exit(client.get("http://api.test/items")), {
        startImmediately: true
      })

      yield* TestClock.adjust("2 seconds")
      const exit = yield* Fiber.join(fiber)
      assert.isTrue(Exit.isSuccess(exit), "not a failure: the 503 is returned")
      if (Exit.isSuccess(exit)) assert.strictEqual(exit.value.status, 503)
      assert.strictEqual(server.methods.length, 3, "the first attempt and `times` retries")
    })
  )
})
