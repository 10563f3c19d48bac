// @generated from templates/test/e2e/release.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * The release of a discarded response (issue #41), over real loopback sockets against the chaos
 * server: its chunks are read and dropped up to 128 KiB, so that a small body leaves its connection
 * to be reused; a body past that, or declaring more, is read no further and its connection closed;
 * one that trickles is bounded by the next attempt's limit, not waited for.
 * undici (a fresh pool per test) shows the connections; fetch, through a fetch counting what the
 * library reads of each body, shows the bytes. Nothing here waits a fixed time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { FetchHttpClient } from "@effect/platform"
import { afterAll, beforeAll } from "vitest"
import { type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
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

const kib = 1024
const cap = 128 * kib
// Far past the cap, and far past what loopback socket buffers hold.
const largeBytes = 32 * 1024 * kib
const largeJson = (declareLength: boolean) =>
  `/api/chaos/large-json?bytes=${largeBytes}&length=${declareLength}&status=503`

// Two attempts, both 503s: the first's is the discarded response, released before the wait; the
// second's is released when the call gives up. The wait lets undici pool a released connection.
const twoAttempts = { maxAttempts: 2, backoff: RetryPolicy.constant("100 millis"), retryBudget: "none" } as const

const stats = Effect.promise(() => chaos.stats())
const fresh = Effect.promise(() => chaos.reset())

// Bodies still streaming back to what they were, and the server's count of requests to `path`.
const streamingSettled = (before: number, what: string) =>
  eventually(
    Effect.map(stats, (now) => now.responses.streaming === before),
    what
  )
// The one connection stays open in the client's pool (an earlier test's closes a moment after).
const keptForReuse = eventually(
  Effect.map(stats, (now) => now.connections.open === 1),
  "one connection, kept for reuse"
)
const requestsTo = (path: string) => Effect.map(stats, (now) => now.requests.byPath[path] ?? 0)

// What the library read of each body fetch handed it, in the order the responses came.
const bodiesRead: Array<{ bytes: number }> = []
const countingFetch: typeof globalThis.fetch = async (input, init) => {
  const response = await globalThis.fetch(input, init)
  if (response.body === null) return response
  const read = { bytes: 0 }
  bodiesRead.push(read)
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read.bytes += chunk.byteLength
        controller.enqueue(chunk)
      }
    })
  )
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers })
}
const overCountingFetch = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.suspend(() => {
    bodiesRead.length = 0
    return effect.pipe(
      Effect.provide(FetchHttpClient.layer),
      Effect.provideService(FetchHttpClient.Fetch, countingFetch)
    )
  })

// A call that must fail, run to its end: how it failed does not matter here.
const failedCall = (client: ResilientHttpClient.ResilientHttpClient.Service, path: string) =>
  Effect.map(Effect.exit(Effect.scoped(client.get(`${chaos.url}${path}`))), Exit.isFailure)

describe("Effect 3 release of a discarded response over undici", () => {
  it.live("a small body is read to its end: the retry reuses its connection", () =>
    Effect.gen(function* () {
      yield* fresh
      const client = yield* ResilientHttpClient.make(twoAttempts)
      const key = `release-small-${Date.now()}`
      const status = yield* Effect.scoped(
        Effect.map(client.get(`${chaos.url}/api/chaos/retry/${key}?succeedAfter=1&retryAfter=none`), (r) => r.status)
      )
      expect(status).toBe(200)
      const after = yield* stats
      expect(after.requests.byRetryKey[key]).toBe(2)
      expect(after.connections.opened, "connections opened for the 503 and the 200").toBe(1)
      yield* keptForReuse
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  it.live("a small chunked body is read and dropped to its end: the retry reuses its connection", () =>
    Effect.gen(function* () {
      yield* fresh
      const client = yield* ResilientHttpClient.make(twoAttempts)
      expect(yield* failedCall(client, "/api/chaos/slow-body?chunks=3&interval=0&length=false&status=503")).toBe(true)
      expect(yield* requestsTo("/api/chaos/slow-body")).toBe(2)
      expect((yield* stats).connections.opened, "connections opened for both attempts").toBe(1)
      yield* keptForReuse
    }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )

  for (const declareLength of [false, true]) {
    const body = declareLength ? "declaring 32 MiB" : "of 32 MiB, chunked,"
    it.live(`a body ${body} is not read to its end: its connection is closed, not kept for reuse`, () =>
      Effect.gen(function* () {
        yield* fresh
        const before = (yield* stats).responses.streaming
        const client = yield* ResilientHttpClient.make(twoAttempts)
        expect(yield* failedCall(client, largeJson(declareLength))).toBe(true)
        expect(yield* requestsTo("/api/chaos/large-json")).toBe(2)
        // The server stops streaming only when the client leaves, and the client's pool, still
        // open, keeps none of the connections: both were closed, not kept for reuse.
        yield* streamingSettled(before, "both large bodies abandoned")
        yield* eventually(
          Effect.map(stats, (now) => now.connections.open === 0),
          "no connection left open"
        )
        expect((yield* stats).responses.bodyBytesStreamed).toBeLessThan(largeBytes / 2)
      }).pipe(Effect.provide(NodeHttpClient.layerUndici))
    )
  }

  it.live(
    "a body that trickles is not waited for: its own attempt's limit bounds its release, and the retry planned goes ahead",
    () =>
      Effect.gen(function* () {
        yield* fresh
        const before = (yield* stats).responses.streaming
        const client = yield* ResilientHttpClient.make({ ...twoAttempts, attemptTimeout: "300 millis" })
        // About 22 KB over 60 s: small enough to be read to its end if the release waited for it.
        const path = "/api/chaos/slow-body?chunks=1000&interval=60&length=true&status=503"
        const failed = yield* failedCall(client, path).pipe(
          Effect.timeoutFail({ duration: "20 seconds", onTimeout: () => "the release waited for the trickle" })
        )
        expect(failed).toBe(true)
        expect(yield* requestsTo("/api/chaos/slow-body")).toBe(2)
        yield* streamingSettled(before, "both trickles abandoned")
      }).pipe(Effect.provide(NodeHttpClient.layerUndici))
  )
})

describe("Effect 3 release of a discarded response over fetch", () => {
  it.live("a chunked body is read and dropped up to 128 KiB, and no further", () =>
    overCountingFetch(
      Effect.gen(function* () {
        const client = yield* ResilientHttpClient.make(twoAttempts)
        expect(yield* failedCall(client, largeJson(false))).toBe(true)
        const [discarded] = bodiesRead
        // Read up to the cap, then stopped: plus the chunk that crossed it, and what the counting
        // stream pulled ahead (a chunk of up to 64 KiB each).
        expect(discarded?.bytes).toBeGreaterThan(cap)
        expect(discarded?.bytes).toBeLessThanOrEqual(cap + 3 * 64 * kib)
      })
    )
  )

  it.live("a body declaring more than 128 KiB is not read on", () =>
    overCountingFetch(
      Effect.gen(function* () {
        const client = yield* ResilientHttpClient.make(twoAttempts)
        expect(yield* failedCall(client, largeJson(true))).toBe(true)
        const [discarded] = bodiesRead
        expect(discarded?.bytes).toBeLessThanOrEqual(3 * 64 * kib)
      })
    )
  )
})
