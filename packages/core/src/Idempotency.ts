/**
 * Which requests may be sent again: by method (RFC 9110 9.2.2), by `Idempotency-Key`, and by
 * whether their body can be replayed, over the plain data both lines' requests are.
 *
 * @example
 * ```ts
 * import type { Idempotency } from "@effect-http-resilience/core"
 *
 * const body: Idempotency.Body = { _tag: "Raw", body: "plain text" }
 * ```
 *
 * @since 0.1.0
 */
import type { HeaderRecord } from "./RetryAfter.js"

/**
 * A request body as both lines' `HttpBody` tags it; an unknown tag is taken as one-shot.
 *
 * @since 0.1.0
 * @category models
 */
export interface Body {
  readonly _tag: string
  readonly body?: unknown
}

/**
 * What the rules read of a request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly method: string
  readonly headers: HeaderRecord
  readonly body: Body
}

// RFC 9110 9.2.2: these methods can be repeated without changing the outcome; QUERY is safe and
// idempotent too (draft-ietf-httpbis-safe-method-w-body), a GET with a body.
const idempotentMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "QUERY"])

const isIdempotentMethod = (method: string): boolean => idempotentMethods.has(method)

// A blank key names no operation: the server cannot recognise a repeat by it.
const hasIdempotencyKey = (headers: HeaderRecord): boolean => {
  const key = headers["idempotency-key"]
  return key !== undefined && key.trim() !== ""
}

/**
 * Whether sending the request again can do no harm: an idempotent method, or an `Idempotency-Key`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isIdempotent = (request: Pick<Request, "method" | "headers">): boolean =>
  isIdempotentMethod(request.method) || hasIdempotencyKey(request.headers)

// The values every transport (fetch, undici, node:http) sends from memory, whole, each time.
const isReplayableRaw = (raw: unknown): boolean =>
  raw === undefined ||
  raw === null ||
  typeof raw === "string" ||
  raw instanceof ArrayBuffer ||
  ArrayBuffer.isView(raw) ||
  raw instanceof Blob ||
  raw instanceof URLSearchParams ||
  raw instanceof FormData

/**
 * Whether a body can be sent again whole: an allowlist, so that in doubt it is not.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isReplayable = (body: Body): boolean => {
  switch (body._tag) {
    case "Empty":
    case "Uint8Array":
    case "FormData":
      return true
    case "Raw":
      return isReplayableRaw(body.body)
    default:
      return false
  }
}

/**
 * Whether the request's body is one-shot: it cannot be sent a second time.
 *
 * @since 0.1.0
 * @category predicates
 */
export const hasOneShotBody = (request: Pick<Request, "body">): boolean => !isReplayable(request.body)
