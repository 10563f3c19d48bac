import type * as HttpBody from "@effect/platform/HttpBody"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"

// RFC 9110 9.2.2: these methods can be repeated without changing the outcome.
const idempotentMethods: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"])

// An empty or blank key names no operation: the server cannot recognise a repeat by it.
const hasIdempotencyKey = (request: HttpClientRequest.HttpClientRequest): boolean => {
  const key = request.headers["idempotency-key"]
  return key !== undefined && key.trim() !== ""
}

/** @internal */
export const isIdempotent = (request: HttpClientRequest.HttpClientRequest): boolean =>
  idempotentMethods.has(request.method) || hasIdempotencyKey(request)

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

// An allowlist, not a list of known streams: a body the first attempt may have consumed (an
// Effect Stream, an iterator or generator, an async iterable, a Node or web stream, an object
// of a kind unknown here) would go out empty or partial on a second attempt. When in doubt,
// do not retry.
const isReplayable = (body: HttpBody.HttpBody): boolean => {
  switch (body._tag) {
    case "Empty":
    case "Uint8Array":
    case "FormData":
      return true
    case "Raw":
      return isReplayableRaw(body.body)
    case "Stream":
      return false
  }
}

/** @internal */
export const hasOneShotBody = (request: HttpClientRequest.HttpClientRequest): boolean => !isReplayable(request.body)
