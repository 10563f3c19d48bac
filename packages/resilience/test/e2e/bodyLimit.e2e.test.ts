// @generated from templates/test/e2e/bodyLimit.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Body limits count decoded bytes (issue #17, item 1), over real loopback sockets and fetch,
 * which decodes gzip: a small compressed body that inflates far past the limit is stopped at
 * the limit, is never retried, and a discarded one is not inflated to be drained.
 * A small node:http server in this file serves the bombs; nothing here waits a fixed time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { FetchHttpClient, HttpClient } from "@effect/platform"
import * as Http from "node:http"
import * as Zlib from "node:zlib"
import { afterAll, beforeAll } from "vitest"
import * as HttpFailure from "../../src/HttpFailure.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import * as RetryPolicy from "../../src/RetryPolicy.js"
import { closeLoopback, listenOnLoopback } from "../support/loopback.js"

const inflatedBytes = 32 * 1024 * 1024
const maxBodyBytes = 1024 * 1024

let server: Http.Server
let url: string
let bomb: Buffer
const requests = new Map<string, number>()
// Decoded bytes the library pulled from fetch's bodies: the counting fetch below adds them up.
let decodedRead = 0
const countingFetch: typeof globalThis.fetch = async (input, init) => {
  const response = await globalThis.fetch(input, init)
  if (response.body === null) return response
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        decodedRead += chunk.byteLength
        controller.enqueue(chunk)
      }
    })
  )
  return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers })
}
const overCountingFetch = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provide(FetchHttpClient.layer),
    Effect.provideService(FetchHttpClient.Fetch, countingFetch),
    Effect.ensuring(
      Effect.sync(() => {
        decodedRead = 0
      })
    )
  )

// Valid JSON, `[0]` padded with spaces: 32 MiB once inflated, about 32 KiB gzipped.
const gzipBomb = (): Buffer => {
  const json = Buffer.alloc(inflatedBytes, " ")
  json.write("[0", 0)
  json.write("]", inflatedBytes - 1)
  return Zlib.gzipSync(json, { level: 9 })
}

beforeAll(async () => {
  bomb = gzipBomb()
  server = Http.createServer((request, response) => {
    const path = request.url ?? "/"
    const seen = (requests.get(path) ?? 0) + 1
    requests.set(path, seen)
    request.resume()
    const gzipped = { "content-type": "application/json", "content-encoding": "gzip", "content-length": bomb.length }
    if (path === "/bomb") {
      response.writeHead(200, gzipped).end(bomb)
    } else if (path === "/bomb-then-ok") {
      if (seen === 1) response.writeHead(503, gzipped).end(bomb)
      else response.writeHead(200, { "content-type": "application/json" }).end("[1]")
    } else {
      response.writeHead(404).end()
    }
  })
  url = await listenOnLoopback(server)
})
afterAll(async () => {
  await closeLoopback(server)
})

const policy = {
  maxAttempts: 3,
  backoff: RetryPolicy.constant(0),
  retryBudget: "none",
  maxBodyBytes
} as const

describe("Effect 3 body limits over fetch, which decodes gzip", () => {
  it.live("the bomb is what it says: about 32 KiB declared, 32 MiB once decoded", () =>
    Effect.sync(() => {
      expect(bomb.length).toBeLessThan(maxBodyBytes / 8)
      expect(Zlib.gunzipSync(bomb).length).toBe(inflatedBytes)
    })
  )

  it.live("getJson stops a gzip bomb at maxBodyBytes decoded: one attempt, a DecodeError caused by BodyTooLarge", () =>
    Effect.gen(function* () {
      const client = yield* ResilientHttpClient.make(policy)
      const failure = yield* Effect.flip(client.getJson(`${url}/bomb`, Schema.Unknown))
      expect(failure).toMatchObject({ _tag: "DecodeError", status: 200, attempt: 1, giveUpReason: "not-retryable" })
      const cause = failure._tag === "DecodeError" ? failure.cause : undefined
      if (!HttpFailure.isBodyTooLarge(cause)) {
        return expect.fail(`expected a BodyTooLarge cause, got ${String(cause)}`)
      }
      expect(cause.limit).toBe(maxBodyBytes)
      // The declared length was within the limit: the decoded bytes crossed it.
      expect(cause.declared).toBe(false)
      expect(cause.seen).toBeGreaterThan(maxBodyBytes)
      expect(cause.seen).toBeLessThan(maxBodyBytes + 1024 * 1024)
      expect(requests.get("/bomb")).toBe(1)
      expect(decodedRead).toBeLessThan(2 * maxBodyBytes)
    }).pipe(overCountingFetch)
  )

  it.live("a retried 503's gzip bomb is aborted after 128 KiB decoded, not inflated to be drained", () =>
    Effect.gen(function* () {
      const client = (yield* HttpClient.HttpClient).pipe(ResilientHttpClient.withResilience(policy))
      const response = yield* Effect.scoped(client.get(`${url}/bomb-then-ok`))
      expect(response.status).toBe(200)
      expect(requests.get("/bomb-then-ok")).toBe(2)
      // What the retry read: at most 128 KiB of the bomb (plus a chunk or two fetch decodes
      // ahead), then the 3-byte answer. Reading it whole would have inflated 32 MiB.
      expect(decodedRead).toBeGreaterThan(3)
      expect(decodedRead).toBeLessThan(1024 * 1024)
    }).pipe(overCountingFetch)
  )
})
