/**
 * A body is released once: a caller's read that fails or is interrupted has already released it
 * (the transport aborts the request), so closing the caller's scope must not read it again.
 */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Scope, TestClock } from "effect"
import * as ResilientHttpClient from "../src/ResilientHttpClient.js"
import * as ScriptedHttpClient from "./support/ScriptedHttpClient.js"

const url = "http://api.test/resource"

const bodyReads = ["text", "json", "arrayBuffer", "formData", "urlParamsBody", "stream"] as const
type BodyRead = (typeof bodyReads)[number]

/**
 * A resilient client over `answer`, counting every read of the response body (any accessor, the
 * stream included). A `stalled` accessor never finishes, like a body that stops arriving.
 */
const countingBodyReads = (answer: ScriptedHttpClient.Answer, stalled?: BodyRead) =>
  Effect.gen(function* () {
    const reads: Array<BodyRead> = []
    const counting = HttpClient.transformResponse(ScriptedHttpClient.make([answer]).client, (response) =>
      Effect.map(
        response,
        (inner) =>
          new Proxy(inner, {
            get: (target, key) => {
              const read = bodyReads.find((name) => name === key)
              if (read === undefined) return Reflect.get(target, key)
              reads.push(read)
              return read === stalled ? Effect.never : target[read]
            }
          })
      )
    )
    const client = yield* ResilientHttpClient.make({ maxAttempts: 1 }).pipe(
      Effect.provideService(HttpClient.HttpClient, counting)
    )
    const scope = yield* Scope.make()
    const response = yield* Scope.extend(client.get(url), scope)
    return { response, reads, scope }
  })

describe("releasing a body the caller tried to read", () => {
  it.effect("a body whose read failed is not read again when the scope closes", () =>
    Effect.gen(function* () {
      const { reads, response, scope } = yield* countingBodyReads({
        status: 200,
        body: "x".repeat(40_000),
        bodyError: "connection reset"
      })
      const read = yield* Effect.exit(response.text)
      expect(Exit.isFailure(read)).toBe(true)
      yield* Scope.close(scope, Exit.void)
      expect(reads).toEqual(["text"])
    })
  )

  it.effect("a body whose read the caller's own timeout interrupted is not read again when the scope closes", () =>
    Effect.gen(function* () {
      const { reads, response, scope } = yield* countingBodyReads({ status: 200, body: "[1, 2, 3]" }, "text")
      const reader = yield* Effect.fork(Effect.timeout(response.text, "200 millis"))
      yield* TestClock.adjust("200 millis")
      const read = yield* Fiber.await(reader)
      expect(Exit.isFailure(read) && Cause.isFailType(read.cause) && read.cause.error._tag).toBe("TimeoutException")
      yield* Scope.close(scope, Exit.void)
      expect(reads).toEqual(["text"])
    })
  )

  it.effect("an unread body is read once, to release it, when the scope closes", () =>
    Effect.gen(function* () {
      const { reads, scope } = yield* countingBodyReads({ status: 200, body: "[1, 2, 3]" })
      yield* Scope.close(scope, Exit.void)
      expect(reads).toEqual(["stream"])
    })
  )
})
