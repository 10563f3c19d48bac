import { NodeHttpClient } from "@effect/platform-node"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { ChaosServer } from "@effect-http-resilience/chaos-server/effect3"
import * as PostOrder from "../src/PostOrder.js"

const order: PostOrder.Order = { sku: "A-1", quantity: 2 }

/**
 * Orders POSTed to the chaos server's recovering endpoint: it answers 503 (without `Retry-After`,
 * so the policy's backoff applies) to the first two requests for `key`, then 200.
 */
const ordersAt = (key: string) =>
  Effect.gen(function* () {
    const server = yield* ChaosServer.ChaosServer
    const orders = yield* PostOrder.make({
      ordersUrl: `${server.url}/api/chaos/retry/${key}?succeedAfter=2&failStatus=503&retryAfter=none`
    })
    const requests = Effect.map(server.stats, (stats) => stats.requests.byRetryKey[key] ?? 0)
    return { orders, requests }
  })

layer(Layer.merge(ChaosServer.layer(), NodeHttpClient.layerUndici), { excludeTestServices: true })(
  "PostOrder against the chaos server",
  (it) => {
    it.effect("with an Idempotency-Key, a POST is retried until the service recovers", () =>
      Effect.gen(function* () {
        const { orders, requests } = yield* ordersAt("order-keyed")
        const status = yield* orders.place(order, { idempotencyKey: "order-42" })
        expect(status).toBe(200)
        expect(yield* requests).toBe(3)
      })
    )

    it.effect("without one, a POST meets the 503 once and the failure says why", () =>
      Effect.gen(function* () {
        const { orders, requests } = yield* ordersAt("order-unkeyed")
        const failure = yield* Effect.flip(orders.place(order))
        expect(failure).toMatchObject({
          _tag: "TransientStatus",
          status: 503,
          attempt: 1,
          giveUpReason: "not-idempotent"
        })
        expect(failure.message).toContain("not retried: POST is not idempotent")
        expect(yield* requests).toBe(1)
      })
    )
  }
)
