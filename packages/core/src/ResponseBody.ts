/**
 * How much of a response body to read, and how: the sizes, choices and byte arithmetic of
 * releasing, snippets and limits; the reading itself is each library's.
 *
 * @example
 * ```ts
 * import { ResponseBody } from "@effect-http-resilience/core"
 *
 * console.log(ResponseBody.snippetMaxBytes) // 8192
 * ```
 *
 * @since 0.1.0
 */
import type { HeaderRecord } from "./RetryAfter.js"

/**
 * The most of an error body kept for diagnostics: 8 KiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const snippetMaxBytes = 8 * 1024

/**
 * A discarded body is read, and its chunks dropped, up to this many bytes (128 KiB, where undici's
 * `dump()` stops), so the connection can be reused; past it, or when its declared length is larger,
 * the read stops and the connection is closed: a new one costs less than reading on.
 *
 * @since 0.1.0
 * @category constants
 */
export const drainMaxBytes = 128 * 1024

/**
 * A discarded body that declares at most this many bytes (16 KiB, what one read of a socket
 * holds) is read whole, in one call of the platform's: that costs less than a stream of chunks.
 *
 * @since 0.2.0
 * @category constants
 */
export const wholeReadMaxBytes = 16 * 1024

/**
 * The time (500 ms) a release bounds its read with where no attempt limit or deadline applies (a
 * response left unread when its scope closes, a snippet for diagnostics): a body that trickles
 * for longer is aborted, not waited for.
 *
 * @since 0.1.0
 * @category constants
 */
export const readTimeoutMillis = 500

/**
 * The `Content-Length` a response declares, when it is a valid one.
 *
 * @since 0.1.0
 * @category reading
 */
export const declaredLength = (headers: HeaderRecord): number | undefined => {
  const value = headers["content-length"]
  if (value === undefined) return undefined
  const length = Number(value)
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

/**
 * Whether a body is sent encoded: then its declared length bounds nothing a decoding transport reads.
 *
 * @since 0.2.0
 * @category reading
 */
export const isEncoded = (headers: HeaderRecord): boolean => {
  const value = headers["content-encoding"]?.trim().toLowerCase()
  return value !== undefined && value !== "" && value !== "identity"
}

/** The declared length, when it bounds the bytes a transport hands over (not encoded). */
const boundingLength = (headers: HeaderRecord): number | undefined =>
  isEncoded(headers) ? undefined : declaredLength(headers)

/**
 * How to release a body nobody will read, by its declared length: nothing to read; over
 * {@link drainMaxBytes}, abort; at most {@link wholeReadMaxBytes} and not encoded, read it whole;
 * otherwise read and drop its chunks up to {@link drainMaxBytes}.
 *
 * @since 0.1.0
 * @category reading
 */
export const releasePlan = (headers: HeaderRecord): "nothing" | "abort" | "read-whole" | "read-at-most" => {
  const length = declaredLength(headers)
  if (length === 0) return "nothing"
  if (length !== undefined && length > drainMaxBytes) return "abort"
  const bounding = boundingLength(headers)
  return bounding !== undefined && bounding <= wholeReadMaxBytes ? "read-whole" : "read-at-most"
}

/**
 * Chunks of a body as they are read, and how many bytes they hold.
 *
 * @since 0.1.0
 * @category reading
 */
export class Collected {
  readonly chunks: Array<Uint8Array> = []
  size = 0

  /** Adds a chunk; returns itself, so it folds. */
  push(chunk: Uint8Array): this {
    this.chunks.push(chunk)
    this.size += chunk.byteLength
    return this
  }

  /** The first `maxBytes` bytes read. */
  bytes(maxBytes: number): Uint8Array {
    const bytes = new Uint8Array(Math.min(this.size, maxBytes))
    let offset = 0
    for (const chunk of this.chunks) {
      if (offset >= bytes.length) break
      const part = chunk.subarray(0, bytes.length - offset)
      bytes.set(part, offset)
      offset += part.length
    }
    return bytes
  }

  /** The first `maxBytes` bytes as UTF-8 text. */
  text(maxBytes: number): string {
    return utf8.decode(this.bytes(maxBytes))
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false })

/**
 * The first {@link snippetMaxBytes} read, as text; a character cut at the limit is dropped.
 *
 * @since 0.1.0
 * @category reading
 */
export const snippet = (collected: Collected | undefined): string => {
  if (collected === undefined || collected.size === 0) return ""
  const text = collected.text(snippetMaxBytes)
  return collected.size > snippetMaxBytes ? text.replace(/\uFFFD$/, "") : text
}
