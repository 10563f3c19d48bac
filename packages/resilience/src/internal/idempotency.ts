import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"

// RFC 9110 9.2.2: these methods can be repeated without changing the outcome.
const idempotentMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"])

/** @internal */
export const isIdempotent = (request: HttpClientRequest.HttpClientRequest): boolean =>
  idempotentMethods.has(request.method) || request.headers["idempotency-key"] !== undefined

// A stream (or a raw body that is itself a stream) is consumed by the first attempt: a second
// attempt would send an empty or partial body.
/** @internal */
export const hasOneShotBody = (request: HttpClientRequest.HttpClientRequest): boolean => {
  const body = request.body
  if (body._tag === "Stream") return true
  if (body._tag !== "Raw") return false
  const raw = body.body
  return (
    typeof raw === "object" &&
    raw !== null &&
    (Symbol.asyncIterator in raw || (typeof ReadableStream !== "undefined" && raw instanceof ReadableStream))
  )
}
