/**
 * A request body that can be read only once, over real sockets: a PUT whose raw body is a
 * synchronous generator, against a lasting 503, through each transport. Retried, it would
 * reach the server again with an empty body (the generator is spent).
 */
import { FetchHttpClient, HttpBody, type HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit, type Layer, Option } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"

const path = "/api/status/503"

interface Outcome {
  /** Requests the server received. */
  readonly requests: number
  /** What the generator went through: "start" when first pulled, "end" when spent. */
  readonly pulls: ReadonlyArray<string>
  readonly exit: Exit.Exit<unknown, unknown>
}

const putGeneratorBody = Effect.gen(function* () {
  const server = yield* ChaosServer.ChaosServer
  yield* server.reset
  // Retries would be quick and many if the body were taken for replayable.
  const client = yield* ResilientHttpClient.make({
    maxAttempts: 3,
    backoff: RetryPolicy.constant("10 millis"),
    jitter: "none",
    maxDelay: "20 millis"
  })
  const pulls: Array<string> = []
  function* payload() {
    pulls.push("start")
    yield new TextEncoder().encode("part 1, ")
    yield new TextEncoder().encode("part 2")
    pulls.push("end")
  }
  const request = HttpClientRequest.put(`${server.url}${path}?retryAfter=0`).pipe(
    HttpClientRequest.setBody(HttpBody.raw(payload(), { contentType: "application/octet-stream" }))
  )
  const exit = yield* Effect.exit(Effect.scoped(client.execute(request)))
  const stats = yield* server.stats
  return { requests: stats.requests.byPath[path] ?? 0, pulls, exit } satisfies Outcome
})

const expectTransientOnFirstAttempt = (exit: Exit.Exit<unknown, unknown>) => {
  const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : Option.none()
  expect(Option.getOrUndefined(failure)).toMatchObject({ _tag: "TransientStatus", status: 503, attempt: 1 })
}

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>, (outcome: Outcome) => void]> = [
  [
    "undici: the generator is sent whole, once, and the 503 handed back unretried",
    NodeHttpClient.layerUndici,
    ({ requests, pulls, exit }) => {
      expect(requests).toBe(1)
      expect(pulls).toEqual(["start", "end"])
      expectTransientOnFirstAttempt(exit)
    }
  ],
  [
    // fetch takes a body it does not know for a string: it sends "[object Generator]" and
    // never reads the generator. Still one request: the library does not retry it.
    "fetch: one request (fetch sends the generator's string form), the 503 handed back unretried",
    FetchHttpClient.layer,
    ({ requests, pulls, exit }) => {
      expect(requests).toBe(1)
      expect(pulls).toEqual([])
      expectTransientOnFirstAttempt(exit)
    }
  ],
  [
    // node:http writes a raw body with ClientRequest.end, which accepts only strings and
    // bytes: the platform's client throws before a request line is sent, and the call dies.
    "node:http: the transport rejects the body outright, nothing reaches the server",
    NodeHttpClient.layer,
    ({ requests, pulls, exit }) => {
      expect(requests).toBe(0)
      expect(pulls).toEqual([])
      const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
      expect(Option.getOrUndefined(defect)).toMatchObject({ name: "TypeError", code: "ERR_INVALID_ARG_TYPE" })
    }
  ]
]

layer(ChaosServer.layer(), { excludeTestServices: true })(
  "a PUT whose raw body is a sync generator, against a lasting 503",
  (it) => {
    for (const [title, transport, check] of transports) {
      it.effect(title, () => Effect.map(putGeneratorBody, check).pipe(Effect.provide(transport)))
    }
  }
)
