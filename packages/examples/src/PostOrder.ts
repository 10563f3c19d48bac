/**
 * Placing an order with a POST, through the platform's `HttpClient` made resilient with
 * `ResilientHttpClient.withResilience`.
 *
 * A POST is not idempotent: sent twice, it may place two orders. So the resilient client retries
 * a POST only when it carries an `Idempotency-Key` header, which lets the server recognise a
 * repeat of the same order and answer it without placing it again. Without a key, a 503 ends the
 * call on its first attempt, and the failure says why: "not retried: POST is not idempotent".
 *
 * @since 0.2.0
 */
import * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { HttpFailure } from "effect-http-resilience"
import { ResilientHttpClient, RetryPolicy } from "effect-http-resilience"

/**
 * @since 0.2.0
 * @category models
 */
export interface Order {
  readonly sku: string
  readonly quantity: number
}

/**
 * At most 3 attempts, short jittered exponential waits: an order is worth a second try, not a
 * long one.
 */
const orderPolicy: RetryPolicy.RetryPolicy = RetryPolicy.make({
  maxAttempts: 3,
  backoff: RetryPolicy.exponential("200 millis")
})

/**
 * @since 0.2.0
 * @category models
 */
export interface Config {
  /** Where orders are POSTed, e.g. `http://127.0.0.1:8080/api/orders`. */
  readonly ordersUrl: string
}

/**
 * @since 0.2.0
 * @category models
 */
export interface PlaceOptions {
  /**
   * Names this order for the server, so a repeat is recognised: make one per order (say
   * `crypto.randomUUID()`) and keep it for every retry of that order. Without it, the POST is
   * sent once.
   */
  readonly idempotencyKey?: string | undefined
}

/**
 * @since 0.2.0
 * @category tags
 */
export class Orders extends Context.Tag("@effect-http-resilience/examples/Orders")<
  Orders,
  {
    /** POSTs the order as JSON and succeeds with the status of the 2xx answer. */
    readonly place: (order: Order, options?: PlaceOptions) => Effect.Effect<number, HttpFailure.HttpFailure>
  }
>() {}

/**
 * The service over the `HttpClient` in context, made resilient with {@link orderPolicy}.
 *
 * @since 0.2.0
 * @category constructors
 */
export const make = (config: Config): Effect.Effect<Orders["Type"], never, HttpClient.HttpClient> =>
  Effect.map(HttpClient.HttpClient, (http) => {
    const client = http.pipe(ResilientHttpClient.withResilience(orderPolicy))
    return Orders.of({
      place: (order, options) =>
        client
          .post(config.ordersUrl, {
            headers: options?.idempotencyKey === undefined ? {} : { "idempotency-key": options.idempotencyKey },
            body: HttpBody.unsafeJson(order)
          })
          .pipe(
            Effect.map((response) => response.status),
            Effect.scoped
          )
    })
  })
