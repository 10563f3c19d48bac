// @generated from templates/test/e2e/hedging.e2e.test.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * Hedged requests (issue #20) over real loopback sockets, on undici and fetch: the chaos server's
 * latency endpoint makes a key's first request slow and the rest fast, so a hedge sent after the
 * delay answers first; the slow copy must then be aborted, seen at the server as a request its
 * client left, with nothing left in flight or open. A POST without an `Idempotency-Key` is never
 * hedged; one with a key is. The server's counters are waited for, never a fixed time.
 */
import { NodeHttpClient } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { FetchHttpClient, type HttpClient, HttpClientRequest } from "@effect/platform"
import { afterAll, beforeAll } from "vitest"
import { type ChaosNamespace, type StartedChaosServer, startChaosServer } from "@effect-http-resilience/chaos-server"
import * as Hedging from "../../src/Hedging.js"
import * as ResilientHttpClient from "../../src/ResilientHttpClient.js"
import { eventually } from "../support/eventually.js"

let chaos: StartedChaosServer

beforeAll(async () => {
  chaos = await startChaosServer()
})
afterAll(async () => {
  await chaos?.close()
})

const transports: ReadonlyArray<readonly [string, Layer.Layer<HttpClient.HttpClient>]> = [
  ["undici", NodeHttpClient.layerUndici],
  ["fetch", FetchHttpClient.layer]
]

// A hedge 100 ms after a copy that has not answered; no budget to refuse it. The default attempt
// time limit (10 s) is past the slow copies: without a hedge, the call would wait for them.
const policy = { hedging: Hedging.after("100 millis"), retryBudget: "none" } as const

interface Latency {
  readonly key: string
  readonly n: number
  readonly delayMillis: number
  readonly slow: boolean
}

const serverStats = Effect.promise(() => chaos.stats())
const statsOf = (namespace: ChaosNamespace) => Effect.promise(() => namespace.stats())

/** A key whose first request waits `slowMillis` and every later one 5 ms. */
const slowFirst = (namespace: ChaosNamespace, key: string, slowMillis: number) =>
  `${namespace.url}/api/chaos/latency/${key}?slowEvery=1&slow=${slowMillis}&fast=5`

/** One hedged GET: the body, the `X-Attempt` header, and how long the call took. */
const hedgedGet = (client: ResilientHttpClient.ResilientHttpClient.Service, url: string) =>
  Effect.suspend(() => {
    const startMillis = Date.now()
    return Effect.scoped(
      Effect.flatMap(client.get(url), (response) =>
        Effect.map(response.json, (body: unknown) => ({
          body: body as Latency,
          attempt: response.headers["x-attempt"],
          elapsedMillis: Date.now() - startMillis
        }))
      )
    )
  })

// The server is this file's, and its tests run one at a time: the server's process-wide counts
// (in flight, open connections) are the running test's.
const settled = (what: string) =>
  eventually(
    Effect.map(serverStats, (stats) => stats.requests.inFlight === 0),
    `no request in flight at the server (${what})`
  )

for (const [name, transport] of transports) {
  describe(`Effect 3 hedged requests over ${name}`, () => {
    it.live(
      "a slow first copy is beaten by its hedge: the call returns the hedge's answer, long before the slow one",
      () =>
        Effect.gen(function* () {
          const namespace = chaos.namespace()
          const client = yield* ResilientHttpClient.make(policy)
          const { attempt, body, elapsedMillis } = yield* hedgedGet(client, slowFirst(namespace, "beaten", 5000))
          // Without a hedge this is request 1's answer, slow, after 5 s.
          expect(body).toEqual({ key: "beaten", n: 2, delayMillis: 5, slow: false })
          expect(attempt).toBe("2")
          // A hang guard, generous for busy cores, yet short of the slow copy's 5 s.
          expect(elapsedMillis).toBeLessThan(4000)
          expect((yield* statsOf(namespace)).requests.total).toBe(2)
        }).pipe(Effect.provide(transport))
    )

    it.live("the beaten copy is aborted: the server counts it abandoned and nothing stays in flight", () =>
      Effect.gen(function* () {
        const namespace = chaos.namespace()
        const client = yield* ResilientHttpClient.make(policy)
        // An earlier test's aborted copy may still be reaching the server: counted before the baseline.
        yield* settled("before the call")
        const abandonedBefore = (yield* serverStats).requests.abandoned
        // Slow for a minute: a copy left running would still be in flight when the waits below give up.
        const { body, elapsedMillis } = yield* hedgedGet(client, slowFirst(namespace, "aborted", 60_000))
        expect(body).toMatchObject({ n: 2, slow: false })
        // Not the retry after the 10 s attempt time limit, which would also abort the slow copy.
        expect(elapsedMillis).toBeLessThan(4000)
        yield* eventually(
          Effect.map(statsOf(namespace), (stats) => stats.requests.abandoned === 1),
          "the slow copy abandoned at the server"
        )
        yield* settled("after one hedged call")
        const [ours, server] = [yield* statsOf(namespace), yield* serverStats]
        expect(ours.requests).toMatchObject({ total: 2, abandoned: 1 })
        expect(server.requests.abandoned - abandonedBefore).toBe(1)
      }).pipe(Effect.provide(transport))
    )

    it.live(
      "24 hedged calls, 4 at a time, leave no request in flight and open connections that do not grow with calls",
      () =>
        Effect.gen(function* () {
          const calls = 24
          const concurrency = 4
          const namespace = chaos.namespace()
          const client = yield* ResilientHttpClient.make(policy)
          yield* settled("before the calls")
          const openBefore = (yield* serverStats).connections.open
          const answers = yield* Effect.forEach(
            Array.from({ length: calls }, (_, i) => `key-${i}`),
            (key) => hedgedGet(client, slowFirst(namespace, key, 60_000)),
            { concurrency }
          )
          expect(answers.map(({ body }) => [body.n, body.slow])).toEqual(
            Array.from({ length: calls }, () => [2, false])
          )
          expect(Math.max(...answers.map(({ elapsedMillis }) => elapsedMillis))).toBeLessThan(4000)
          // Slow for a minute: copies left running would keep these waits from ending.
          yield* eventually(
            Effect.map(statsOf(namespace), (stats) => stats.requests.abandoned === calls),
            `the ${calls} slow copies abandoned at the server`
          )
          yield* settled(`after ${calls} hedged calls`)
          const [ours, server] = [yield* statsOf(namespace), yield* serverStats]
          expect(ours.requests).toMatchObject({ total: 2 * calls, abandoned: calls })
          // Every aborted copy's connection is closed; what stays open is the transport's idle pool,
          // a few connections per call in flight at once (undici keeps about three), never one per call.
          // Read at once: idle connections close only later, when their keep-alive ends.
          expect(server.connections.open - openBefore, "connections left open").toBeLessThanOrEqual(4 * concurrency)
        }).pipe(Effect.provide(transport))
    )

    it.live("a POST without an Idempotency-Key to a slow endpoint is sent once, not hedged", () =>
      Effect.gen(function* () {
        const namespace = chaos.namespace()
        const client = yield* ResilientHttpClient.make(policy)
        // Half a second before the order is placed: five hedge delays.
        const request = HttpClientRequest.post(`${namespace.url}/api/orders?succeedAfter=0&delay=0.5`).pipe(
          HttpClientRequest.bodyUnsafeJson({ sku: "A-1", quantity: 1 })
        )
        const status = yield* Effect.scoped(Effect.map(client.execute(request), (response) => response.status))
        expect(status).toBe(201)
        const stats = yield* statsOf(namespace)
        expect([stats.requests.total, stats.requests.abandoned, stats.orders.placed]).toEqual([1, 0, 1])
      }).pipe(Effect.provide(transport))
    )

    it.live(
      "a POST with an Idempotency-Key to the slow endpoint is hedged: two requests, one order, the late copy aborted",
      () =>
        Effect.gen(function* () {
          const namespace = chaos.namespace()
          // Half a second between the copies, each waiting 1.5 s: the first answers well before the hedge would.
          const client = yield* ResilientHttpClient.make({ ...policy, hedging: Hedging.after("500 millis") })
          const request = HttpClientRequest.post(`${namespace.url}/api/orders?succeedAfter=0&delay=1.5`).pipe(
            HttpClientRequest.setHeader("idempotency-key", "order-1"),
            HttpClientRequest.bodyUnsafeJson({ sku: "A-1", quantity: 1 })
          )
          const status = yield* Effect.scoped(Effect.map(client.execute(request), (response) => response.status))
          expect(status).toBe(201)
          // The first copy places the order; the hedge, still waiting, is aborted before it reaches the endpoint.
          yield* eventually(
            Effect.map(statsOf(namespace), (stats) => stats.requests.abandoned === 1),
            "the hedge abandoned at the server"
          )
          const stats = yield* statsOf(namespace)
          expect([stats.requests.total, stats.orders.placed]).toEqual([2, 1])
          expect(stats.orders.byIdempotencyKey).toEqual({ "order-1": 1 })
          yield* settled("after a hedged POST")
        }).pipe(Effect.provide(transport))
    )
  })
}
