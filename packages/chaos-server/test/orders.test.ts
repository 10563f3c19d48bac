import { describe, expect, it, layer } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChaosServer from "../src/ChaosServer.js"
import { type ClientResponse, get, json, type RequestOptions, request, withServer } from "./support/client.js"

const imfFixdate = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/

/** POSTs `order` (JSON) to `/api/orders`, with an `Idempotency-Key` when `key` is given. */
const post = (
  server: { readonly url: string },
  order: unknown,
  options: { readonly key?: string; readonly query?: string; readonly body?: string } = {}
) => {
  const init: RequestOptions = {
    method: "POST",
    body: options.body ?? JSON.stringify(order),
    headers: {
      "content-type": "application/json",
      ...(options.key === undefined ? {} : { "idempotency-key": options.key })
    }
  }
  return request(`${server.url}/api/orders${options.query === undefined ? "" : `?${options.query}`}`, init)
}

/** The `orderId` of an order answer. */
const orderIdOf = (response: ClientResponse): string => {
  const body = json(response)
  return typeof body === "object" && body !== null && "orderId" in body ? String(body.orderId) : ""
}

layer(ChaosServer.layer())("POST /api/orders", (it) => {
  it.effect("fails twice with 503 and Retry-After: 1, places the order on attempt 3, then replays it", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const order = { sku: "A-1", quantity: 2 }
      const first = yield* post(server, order, { key: "order-a" })
      const second = yield* post(server, order, { key: "order-a" })
      const third = yield* post(server, order, { key: "order-a" })
      const fourth = yield* post(server, order, { key: "order-a" })
      expect([first.status, second.status, third.status, fourth.status]).toEqual([503, 503, 201, 200])
      expect([first, second, third, fourth].map((response) => response.headers["x-attempt"])).toEqual([
        "1",
        "2",
        "3",
        "4"
      ])
      expect(first.headers["retry-after"]).toBe("1")
      expect(first.headers["content-type"]).toBe("application/json")
      expect(json(first)).toMatchObject({ status: 503, error: "Service Unavailable", attempt: 1, succeedAfter: 2 })
      expect(third.headers["retry-after"]).toBeUndefined()

      const placed = json(third)
      expect(placed).toEqual({ orderId: expect.any(String), idempotencyKey: "order-a", attempt: 3, order })
      expect(third.headers.location).toBe(`/api/orders/${encodeURIComponent(orderIdOf(third))}`)
      expect(third.headers["idempotent-replayed"]).toBeUndefined()
      // The repeat answers the same order and places nothing.
      expect(json(fourth)).toEqual(placed)
      expect(fourth.headers["idempotent-replayed"]).toBe("true")
      expect(fourth.headers.location).toBe(third.headers.location)
      const stats = yield* server.stats
      expect(stats.orders.byIdempotencyKey["order-a"]).toBe(4)
    })
  )

  it.effect("answers a repeat with the order placed first, whatever its body", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const placedBefore = (yield* server.stats).orders.placed
      const placed = yield* post(server, { sku: "B-2" }, { key: "order-b", query: "succeedAfter=0" })
      expect(placed.status).toBe(201)
      const repeat = yield* post(server, { sku: "changed" }, { key: "order-b", query: "succeedAfter=0" })
      expect(repeat.status).toBe(200)
      expect(json(repeat)).toEqual(json(placed))
      expect((yield* server.stats).orders.placed).toBe(placedBefore + 1)
    })
  )

  it.effect("without an Idempotency-Key, every POST is a first attempt: it fails by default", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const placedBefore = (yield* server.stats).orders.placed
      for (let index = 0; index < 3; index++) {
        const response = yield* post(server, { sku: "C-3" })
        expect(response.status).toBe(503)
        expect(response.headers["x-attempt"]).toBe("1")
        expect(response.headers["retry-after"]).toBe("1")
      }
      expect((yield* server.stats).orders.placed).toBe(placedBefore)
    })
  )

  it.effect("without an Idempotency-Key and succeedAfter=0, every POST places a new order", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const placedBefore = (yield* server.stats).orders.placed
      const first = yield* post(server, { sku: "D-4" }, { query: "succeedAfter=0" })
      const second = yield* post(server, { sku: "D-4" }, { query: "succeedAfter=0" })
      expect([first.status, second.status]).toEqual([201, 201])
      expect(json(first)).toMatchObject({ idempotencyKey: null, attempt: 1, order: { sku: "D-4" } })
      expect(orderIdOf(first)).not.toBe(orderIdOf(second))
      expect((yield* server.stats).orders.placed).toBe(placedBefore + 2)
    })
  )

  it.effect("fails with failStatus and honours retryAfter=N, retryAfter=none and retryAfterDate=N", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const limited = yield* post(server, {}, { key: "limited", query: "succeedAfter=1&failStatus=429&retryAfter=3" })
      expect(limited.status).toBe(429)
      expect(limited.headers["retry-after"]).toBe("3")
      const bare = yield* post(server, {}, { key: "bare", query: "failStatus=500&retryAfter=none" })
      expect(bare.status).toBe(500)
      expect(bare.headers["retry-after"]).toBeUndefined()
      const dated = yield* post(server, {}, { key: "dated", query: "retryAfterDate=2" })
      expect(dated.headers["retry-after"]).toMatch(imfFixdate)
    })
  )

  describe("bad input", () => {
    const long = "k".repeat(129)
    const badRequests: ReadonlyArray<
      readonly [string, { readonly key?: string; readonly query?: string; readonly body: string }]
    > = [
      ["malformed JSON", { key: "bad", body: '{"sku": ' }],
      ["an empty body", { key: "bad", body: "" }],
      ["an array", { key: "bad", body: "[1, 2]" }],
      ["null", { key: "bad", body: "null" }],
      ["a number", { key: "bad", body: "42" }],
      ["a string", { key: "bad", body: '"order"' }],
      ["a fractional succeedAfter", { key: "bad", query: "succeedAfter=1.5", body: "{}" }],
      ["a failStatus below 400", { key: "bad", query: "failStatus=200", body: "{}" }],
      ["a negative retryAfter", { key: "bad", query: "retryAfter=-3", body: "{}" }],
      ["an Idempotency-Key over 128 characters", { key: long, body: "{}" }],
      ["an empty Idempotency-Key", { key: "", body: "{}" }]
    ]
    for (const [why, options] of badRequests) {
      it.effect(`answers 400 for ${why} and counts no attempt`, () =>
        Effect.gen(function* () {
          const server = yield* ChaosServer.ChaosServer
          const response = yield* post(server, undefined, options)
          expect(response.status).toBe(400)
          expect(json(response)).toEqual({ error: expect.any(String) })
          expect(response.headers["x-attempt"]).toBeUndefined()
          const stats = yield* server.stats
          expect(stats.orders.byIdempotencyKey.bad).toBeUndefined()
          expect(stats.orders.byIdempotencyKey[long]).toBeUndefined()
        })
      )
    }
  })

  it.effect("answers 405 with Allow: POST to other methods", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      for (const method of ["GET", "PUT", "DELETE"]) {
        const response = yield* request(`${server.url}/api/orders`, { method })
        expect(response.status, method).toBe(405)
        expect(response.headers.allow).toBe("POST")
        expect(json(response)).toEqual({ error: expect.any(String) })
      }
    })
  )
})

layer(ChaosServer.layer())("GET /api/orders/:orderId", (it) => {
  it.effect("answers a placed order, and 404 for any other id", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const placed = yield* post(server, { sku: "E-5" }, { key: "lookup", query: "succeedAfter=0" })
      const location = placed.headers.location ?? ""
      const found = yield* get(server, location)
      expect(found.status).toBe(200)
      expect(found.headers["content-type"]).toBe("application/json")
      expect(json(found)).toEqual(json(placed))
      const head = yield* request(`${server.url}${location}`, { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(head.body).toBe("")
      const missing = yield* get(server, "/api/orders/order-999999")
      expect(missing.status).toBe(404)
      expect(json(missing)).toEqual({ error: expect.stringContaining("not found") })
    })
  )

  it.effect("answers 405 with Allow: GET, HEAD to other methods", () =>
    Effect.gen(function* () {
      const server = yield* ChaosServer.ChaosServer
      const response = yield* request(`${server.url}/api/orders/order-1`, { method: "DELETE" })
      expect(response.status).toBe(405)
      expect(response.headers.allow).toBe("GET, HEAD")
    })
  )
})

describe("orders and the rest of the server", () => {
  it.effect("?error=CODE answers instead of the endpoint: no attempt is counted, no order placed", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const response = yield* post(server, { sku: "F-6" }, { key: "simulated", query: "error=503&succeedAfter=0" })
        expect(response.status).toBe(503)
        expect(response.headers["x-simulated"]).toBe("true")
        expect((yield* server.stats).orders).toEqual({ placed: 0, byIdempotencyKey: {} })
      })
    )
  )

  it.effect("a body over maxBodyBytes is a 413: no attempt is counted", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const response = yield* post(server, { note: "x".repeat(2048) }, { key: "large", query: "succeedAfter=0" })
          expect(response.status).toBe(413)
          expect((yield* server.stats).orders).toEqual({ placed: 0, byIdempotencyKey: {} })
        }),
      { maxBodyBytes: 1024 }
    )
  )

  it.effect("POST /__reset forgets orders and idempotency keys, and order ids are never reused", () =>
    withServer((server) =>
      Effect.gen(function* () {
        const placed = yield* post(server, { sku: "G-7" }, { key: "kept", query: "succeedAfter=0" })
        expect((yield* server.stats).orders).toEqual({ placed: 1, byIdempotencyKey: { kept: 1 } })
        const reset = yield* request(`${server.url}/__reset`, { method: "POST" })
        expect(reset.status).toBe(204)
        expect((yield* server.stats).orders).toEqual({ placed: 0, byIdempotencyKey: {} })
        expect((yield* get(server, placed.headers.location ?? "")).status).toBe(404)
        // The key starts over: its first attempt places a new order, with a new id.
        const again = yield* post(server, { sku: "G-7" }, { key: "kept", query: "succeedAfter=0" })
        expect(again.status).toBe(201)
        expect(again.headers["x-attempt"]).toBe("1")
        expect(again.headers.location).not.toBe(placed.headers.location)
      })
    )
  )

  it.effect("forgets the least recently used idempotency key and order beyond maxRetryKeys", () =>
    withServer(
      (server) =>
        Effect.gen(function* () {
          const a = yield* post(server, {}, { key: "a", query: "succeedAfter=0" })
          yield* post(server, {}, { key: "b", query: "succeedAfter=0" })
          // Using "a" again makes "b" the least recently used key.
          yield* post(server, {}, { key: "a", query: "succeedAfter=0" })
          yield* post(server, {}, { key: "c", query: "succeedAfter=0" })
          const stats = yield* server.stats
          expect(stats.orders.byIdempotencyKey).toEqual({ a: 2, c: 1 })
          expect(stats.orders.placed).toBe(3)
          // "b" was forgotten: its repeat is a first attempt again, and places a new order.
          const b = yield* post(server, {}, { key: "b", query: "succeedAfter=0" })
          expect(b.status).toBe(201)
          expect(b.headers["x-attempt"]).toBe("1")
          // At most two orders are kept: "a"'s was placed first and looked up least recently.
          expect((yield* get(server, a.headers.location ?? "")).status).toBe(404)
        }),
      { maxRetryKeys: 2 }
    )
  )
})
