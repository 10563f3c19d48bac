// @generated from templates/test/e2e/bodyIdleTimeout.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The body idle timeout (issue #44) over real loopback sockets, through undici and fetch: the
 * chaos server's slow body sends its first chunk with the headers and its second 10 s later.
 * With `bodyIdleTimeout` at 500 ms and `attemptTimeout` at a minute, a read that fails before
 * the second chunk can only have been ended by the idle limit; the server then sees the client
 * leave (the connection closed). Nothing here waits a fixed time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as BodyIdleTimeout from "../../src/BodyIdleTimeout.js"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import { eventually } from "../support/eventually.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const stalls = "/api/chaos/slow-body?chunks=2&interval=10000"

const policy = {
  maxAttempts: 2,
  backoff: RetryPolicy.constant("10 millis"),
  attemptTimeout: "1 minute",
  retryBudget: "none",
  bodyIdleTimeout: BodyIdleTimeout.make("500 millis")
} as const

const stats = Effect.promise(() => chaos.stats())
const requestsTo = (path: string) => Effect.map(stats, (now) => now.requests.byPath[path] ?? 0)

// The server streams no body any more: the client closed its connection.
const clientLeft = eventually(
  Effect.map(stats, (now) => now.responses.streaming === 0),
  "the stalled bodies' connections closed"
)

// The library's failure in a platform error's cause, as a handed-over body's read fails.
const connectionErrorIn = (error: unknown): HttpFailure.ConnectionError | undefined => {
  const cause = typeof error === "object" && error !== null && "cause" in error ? error.cause : undefined
  return HttpFailure.isConnectionError(cause) ? cause : undefined
}

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

for (const [name, transport] of transports) {
  describe(`Effect 4 body idle timeout over ${name}`, () => {
    it.live(
      "layerHttpClient: a streamed body that stalls fails the caller's read, and its connection is closed",
      () =>
        Effect.gen(function* () {
          yield* Effect.promise(() => chaos.reset())
          const error = yield* HttpClient.get(`${chaos.url}${stalls}`).pipe(
            Effect.flatMap((response) => Stream.runDrain(response.stream)),
            Effect.flip
          )
          const failure = connectionErrorIn(error)
          expect(failure).toMatchObject({ reason: "Timeout", attempt: 1, giveUpReason: "body-idle-timeout" })
          expect(failure?.cause).toMatchObject({ _tag: "BodyIdleTimeoutExceeded", timeoutMillis: 500 })
          expect(yield* requestsTo("/api/chaos/slow-body")).toBe(1)
          yield* clientLeft
        }).pipe(Effect.provide(Layer.provide(ResilientHttpClient.layerHttpClient(policy), transport))),
      60_000
    )

    it.live(
      "getJson: each attempt's stalled body is a Timeout, retried by the usual rules until attempts run out",
      () =>
        Effect.gen(function* () {
          yield* Effect.promise(() => chaos.reset())
          const service = yield* ResilientHttpClient.make(policy)
          const failure = yield* Effect.flip(service.getJson(`${chaos.url}${stalls}`, Schema.Unknown))
          assert(failure._tag === "ConnectionError")
          expect([failure.reason, failure.attempt, failure.giveUpReason]).toEqual(["Timeout", 2, "attempts-exhausted"])
          expect(BodyIdleTimeout.isBodyIdleTimeoutExceeded(failure.cause)).toBe(true)
          expect(yield* requestsTo("/api/chaos/slow-body")).toBe(2)
          yield* clientLeft
        }).pipe(Effect.provide(transport)),
      60_000
    )
  })
}

describe("Effect 4 body idle timeout over undici, a body that keeps flowing", () => {
  it.live(
    "is read whole though it takes longer than the idle limit: the limit is per wait, not for the body",
    () =>
      Effect.gen(function* () {
        const service = yield* ResilientHttpClient.make({
          ...policy,
          maxAttempts: 1,
          bodyIdleTimeout: BodyIdleTimeout.make("5 seconds")
        })
        // Four chunks 2 s apart: 6 s in all, and never 5 s without a byte.
        const body = yield* service.getJson(
          `${chaos.url}/api/chaos/slow-body?chunks=4&interval=2000`,
          Schema.Array(Schema.Struct({ chunk: Schema.Number }))
        )
        expect(body.map((element) => element.chunk)).toEqual([1, 2, 3, 4])
      }).pipe(Effect.provide(NodeHttpClient.layerUndici)),
    60_000
  )
})
