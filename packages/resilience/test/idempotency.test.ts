/**
 * What the policy may send twice: replayable bodies (an allowlist) and idempotent requests
 * (the method, or a non-blank Idempotency-Key).
 */
import { Headers, HttpBody, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option, Stream } from "effect"
import { Readable } from "node:stream"
import * as HttpFailure from "../src/HttpFailure.js"
import * as RetryPolicy from "../src/RetryPolicy.js"
import { failureOf, runScripted } from "./support/harness.js"

const url = "http://api.test/resource"
const policy = RetryPolicy.make({ jitter: "none", backoff: RetryPolicy.constant("10 millis") })

/** The policy's decision on a 503 to `request`, its first failure. */
const decide = (request: HttpClientRequest.HttpClientRequest) => {
  const schedule = RetryPolicy.toSchedule(policy)
  const failure = new HttpFailure.TransientStatus({
    request,
    attempt: 1,
    status: 503,
    headers: Headers.empty,
    retryAfter: Option.none()
  })
  return Effect.map(schedule.step(0, failure, schedule.initial), ([, decision]) => decision)
}

const putWith = (body: HttpBody.HttpBody) => HttpClientRequest.put(url).pipe(HttpClientRequest.setBody(body))
const bytes = (text: string) => new TextEncoder().encode(text)

describe("one-shot bodies: only bodies known to be replayable are sent again", () => {
  const replayable: ReadonlyArray<readonly [string, HttpClientRequest.HttpClientRequest]> = [
    ["no body", HttpClientRequest.put(url)],
    ["Uint8Array body", putWith(HttpBody.uint8Array(bytes("payload")))],
    ["text body", putWith(HttpBody.text("payload"))],
    ["JSON body", putWith(HttpBody.unsafeJson({ id: 1 }))],
    ["URL-encoded body", HttpClientRequest.put(url).pipe(HttpClientRequest.bodyUrlParams({ q: "x" }))],
    ["FormData body", putWith(HttpBody.formData(new FormData()))],
    ["raw string", putWith(HttpBody.raw("payload"))],
    ["raw ArrayBuffer", putWith(HttpBody.raw(new ArrayBuffer(8)))],
    ["raw Uint8Array", putWith(HttpBody.raw(bytes("payload")))],
    ["raw Buffer", putWith(HttpBody.raw(Buffer.from("payload")))],
    ["raw DataView", putWith(HttpBody.raw(new DataView(new ArrayBuffer(8))))],
    ["raw Blob", putWith(HttpBody.raw(new Blob(["payload"])))],
    ["raw URLSearchParams", putWith(HttpBody.raw(new URLSearchParams({ q: "x" })))],
    ["raw FormData", putWith(HttpBody.raw(new FormData()))],
    ["raw undefined (no body)", putWith(HttpBody.raw(undefined))]
  ]
  for (const [kind, request] of replayable) {
    it.effect(`a PUT with a ${kind} is retried`, () =>
      Effect.map(decide(request), (decision) => expect(decision).toMatchObject({ _tag: "Retry", attempt: 1 }))
    )
  }

  function* generator() {
    yield bytes("payload")
  }
  async function* asyncGenerator() {
    yield bytes("payload")
  }
  const oneShot: ReadonlyArray<readonly [string, () => HttpClientRequest.HttpClientRequest]> = [
    ["an Effect Stream body", () => putWith(HttpBody.stream(Stream.make(bytes("payload"))))],
    ["a raw sync generator", () => putWith(HttpBody.raw(generator()))],
    ["a raw array iterator", () => putWith(HttpBody.raw([bytes("payload")].values()))],
    ["a raw sync iterable object", () => putWith(HttpBody.raw({ [Symbol.iterator]: generator }))],
    ["a raw async generator", () => putWith(HttpBody.raw(asyncGenerator()))],
    ["a raw async iterable object", () => putWith(HttpBody.raw({ [Symbol.asyncIterator]: asyncGenerator }))],
    ["a raw Node Readable", () => putWith(HttpBody.raw(Readable.from([bytes("payload")])))],
    ["a raw web ReadableStream", () => putWith(HttpBody.raw(new ReadableStream<Uint8Array>()))],
    ["a raw plain object", () => putWith(HttpBody.raw({ id: 1 }))],
    ["a raw array", () => putWith(HttpBody.raw([bytes("payload")]))],
    ["a raw Map", () => putWith(HttpBody.raw(new Map([["id", 1]])))],
    ["a raw number", () => putWith(HttpBody.raw(42))]
  ]
  for (const [kind, request] of oneShot) {
    it.effect(`a PUT with ${kind} is never retried: "one-shot-body"`, () =>
      Effect.map(decide(request()), (decision) =>
        expect(decision).toEqual({ _tag: "GiveUp", attempt: 1, reason: "one-shot-body" })
      )
    )
  }

  it.effect("through the client, a PUT with a raw generator body against a lasting 503 is sent once", () =>
    Effect.gen(function* () {
      const run = yield* runScripted([{ status: 503 }], { maxAttempts: 3, jitter: "none" }, (client) =>
        client.execute(putWith(HttpBody.raw(generator())))
      )
      expect(failureOf(run)).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 1 })
      expect(run.scripted.exchanges).toHaveLength(1)
    })
  )
})

describe("idempotency: a blank Idempotency-Key is not a key", () => {
  const postWithKey = (key: string) =>
    HttpClientRequest.post(url).pipe(
      HttpClientRequest.bodyText("payload"),
      HttpClientRequest.setHeader("Idempotency-Key", key)
    )

  for (const key of ["", " ", "\t  "]) {
    it.effect(`a POST with Idempotency-Key ${JSON.stringify(key)} is not idempotent`, () =>
      Effect.map(decide(postWithKey(key)), (decision) =>
        expect(decision).toEqual({ _tag: "GiveUp", attempt: 1, reason: "not-idempotent" })
      )
    )
  }

  for (const key of ["7c9e6679-7425-40de-944b-e07fc1f90ae7", " padded "]) {
    it.effect(`a POST with Idempotency-Key ${JSON.stringify(key)} is retried`, () =>
      Effect.map(decide(postWithKey(key)), (decision) => expect(decision).toMatchObject({ _tag: "Retry" }))
    )
  }

  it.effect("through the client, a POST with a blank key is sent once, with a key three times", () =>
    Effect.gen(function* () {
      const blank = yield* runScripted([{ status: 503 }], { maxAttempts: 3, jitter: "none" }, (client) =>
        client.execute(postWithKey(""))
      )
      expect(blank.scripted.exchanges).toHaveLength(1)
      const keyed = yield* runScripted([{ status: 503 }], { maxAttempts: 3, jitter: "none" }, (client) =>
        client.execute(postWithKey("k-1"))
      )
      expect(keyed.scripted.exchanges).toHaveLength(3)
    })
  )
})
