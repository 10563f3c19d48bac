/**
 * `/api/orders`: a write endpoint that fails like `/api/chaos/retry/:key` and honours `Idempotency-Key`, so a
 * test can tell a client that retries a POST safely from one that places an order twice.
 *
 * @internal
 */
import { BadRequest, quote } from "./errors.js"
import { type Answer, type Exchange, errorJson, json } from "./exchange.js"
import { prefixOf } from "./namespaces.js"
import { integerParam, retryAfterHeader, retryAfterParam, retryAfterSeconds } from "./params.js"
import type { ChaosState, PlacedOrder } from "./state.js"
import { parseStatus, statusText } from "./status.js"

/** @internal */
export const ordersPath = "/api/orders"

const maxIdempotencyKeyLength = 128

const idempotencyKeyOf = (exchange: Exchange): string | null => {
  const header = exchange.request.headers["idempotency-key"]
  if (header === undefined) return null
  // Node joins repeated headers it does not know with ", "; the type also allows an array.
  const key = Array.isArray(header) ? header.join(", ") : header
  if (key.length === 0 || key.length > maxIdempotencyKeyLength) {
    throw new BadRequest(`Idempotency-Key must have 1 to ${maxIdempotencyKeyLength} characters`)
  }
  return key
}

/** The JSON object of the request body; anything else is a 400 that says why. */
const orderOf = (body: Buffer | undefined): object => {
  const text = body === undefined ? "" : body.toString("utf8")
  if (text.trim().length === 0) {
    throw new BadRequest("the order must be a JSON object in the request body, got an empty body")
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new BadRequest(`the order is not valid JSON: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`
    throw new BadRequest(`the order must be a JSON object, got ${kind}`)
  }
  return value
}

const orderLocation = (placed: PlacedOrder): string =>
  `${prefixOf(placed.namespace)}${ordersPath}/${encodeURIComponent(placed.orderId)}`

const placedBody = (placed: PlacedOrder) => ({
  orderId: placed.orderId,
  idempotencyKey: placed.idempotencyKey,
  attempt: placed.attempt,
  order: placed.order
})

/**
 * `POST /api/orders`: the first `succeedAfter` attempts of an idempotency key fail with `failStatus` and
 * `Retry-After`, the next one places the order (201), and any later one answers the same order again (200,
 * `Idempotent-Replayed: true`) without placing it twice. Without a key every request is a first attempt.
 *
 * @internal
 */
export const placeOrder =
  (state: ChaosState) =>
  (exchange: Exchange): Answer => {
    const key = idempotencyKeyOf(exchange)
    const { query } = exchange
    const succeedAfter = integerParam(query, "succeedAfter", { min: 0, max: 1_000_000 }, 2)
    const rawFailStatus = query.get("failStatus")
    const failStatus = rawFailStatus === null ? 503 : parseStatus("failStatus", rawFailStatus, { min: 400, max: 599 })
    const retryAfter = retryAfterParam(query, retryAfterSeconds(1))
    const order = orderOf(exchange.body)
    // Count only once the request is known to be valid: a rejected request is not an attempt.
    const { attempt, placed } =
      key === null ? { attempt: 1, placed: undefined } : state.nextOrderAttempt(exchange.namespace, key)
    const attemptHeader = { "x-attempt": String(attempt) }
    if (placed !== undefined) {
      return json(placedBody(placed), 200, {
        ...attemptHeader,
        location: orderLocation(placed),
        "idempotent-replayed": "true"
      })
    }
    if (attempt <= succeedAfter) {
      const named = key === null ? "an order without an Idempotency-Key" : `the order with key ${quote(key)}`
      return json(
        {
          status: failStatus,
          error: statusText(failStatus),
          message: `Attempt ${attempt} of ${named} fails; attempts after ${succeedAfter} succeed`,
          attempt,
          succeedAfter
        },
        failStatus,
        { ...retryAfterHeader(retryAfter), ...attemptHeader }
      )
    }
    const created = state.placeOrder(exchange.namespace, key, attempt, order)
    return json(placedBody(created), 201, { ...attemptHeader, location: orderLocation(created) })
  }

/**
 * `GET /api/orders/:orderId`: an order placed in the request's namespace (and not yet forgotten or reset), or 404.
 *
 * @internal
 */
export const findOrder =
  (state: ChaosState) =>
  (exchange: Exchange, params: Readonly<Record<string, string>>): Answer => {
    const orderId = params.orderId ?? ""
    const placed = state.findOrder(exchange.namespace, orderId)
    return placed === undefined ? errorJson(404, `order ${quote(orderId)} not found`) : json(placedBody(placed))
  }
