/**
 * What a browser hides from a cross-origin call, said once per origin: a `Retry-After` the
 * server did not expose (CORS), and a fetch that failed with a `TypeError`, which a browser
 * gives alike for a CORS rejection and an unreachable server. The libraries log these at debug
 * level; they change no decision.
 *
 * @example
 * ```ts
 * import { BrowserHints } from "@effect-http-resilience/core"
 *
 * BrowserHints.pageOrigin() // undefined under Node; "https://app.example" on such a page
 * ```
 *
 * @since 0.2.0
 */
import { originOf } from "./Origin.js"
import { someCause } from "./TransportFailure.js"

/**
 * The page's origin when running in a browser document (`location.origin`), else `undefined`
 * (Node, workers without a location, an opaque origin).
 *
 * @since 0.2.0
 * @category browser
 */
export const pageOrigin = (): string | undefined => {
  if (!("document" in globalThis) || !("location" in globalThis)) return undefined
  const location: unknown = globalThis.location
  if (typeof location !== "object" || location === null || !("origin" in location)) return undefined
  const origin = location.origin
  return typeof origin === "string" && /^https?:\/\//.test(origin) ? origin : undefined
}

/**
 * Whether `url` is another origin than the page's: only then does CORS hide anything.
 *
 * @since 0.2.0
 * @category browser
 */
export const isCrossOrigin = (url: string, page: string): boolean => {
  try {
    return new URL(url, page).origin !== page
  } catch {
    return false
  }
}

/**
 * Whether a fetch failure's cause chain holds a `TypeError`: how `fetch` rejects in every
 * browser for a network error, a CORS rejection, or a refused preflight alike.
 *
 * @since 0.2.0
 * @category browser
 */
export const isFetchTypeError = (cause: unknown): boolean => someCause(cause, (link) => link instanceof TypeError)

/**
 * What a failed attempt showed, as far as the hints need it.
 *
 * @since 0.2.0
 * @category models
 */
export type Seen =
  | {
      readonly _tag: "Status"
      readonly url: string
      readonly status: number
      /** Whether the page could read a server delay: `Retry-After`, or a rate-limit reset header. */
      readonly retryAfterReadable: boolean
    }
  | {
      readonly _tag: "TransportTypeError"
      readonly url: string
      /** Whether the platform adds `b3` and `traceparent` headers to requests (its default). */
      readonly tracerPropagation: boolean
      /** How this Effect line turns them off, as the hint says it. */
      readonly turnOffTracing: string
    }

/**
 * The hint a failure calls for on a page at `page`, with the origin it is about, or
 * `undefined`: a 429 or 503 without a readable `Retry-After`, or a fetch `TypeError`, on a
 * cross-origin call.
 *
 * @since 0.2.0
 * @category browser
 */
export const hintFor = (
  seen: Seen,
  page: string | undefined
): { readonly origin: string; readonly kind: Seen["_tag"]; readonly message: string } | undefined => {
  if (page === undefined || !isCrossOrigin(seen.url, page)) return undefined
  const origin = originOf(new URL(seen.url, page))
  if (seen._tag === "Status") {
    if (seen.retryAfterReadable || (seen.status !== 429 && seen.status !== 503)) return undefined
    return {
      origin,
      kind: seen._tag,
      message:
        `${seen.status} from ${origin} without a readable Retry-After: the server may have sent one that this page ` +
        `(${page}) cannot see, as a browser hides response headers of a cross-origin call that the server does not ` +
        `expose. The wait is the policy's backoff. To honour it, the server sends ` +
        `"Access-Control-Expose-Headers: Retry-After" (and any rate-limit headers it uses).`
    }
  }
  return {
    origin,
    kind: seen._tag,
    message:
      `fetch to ${origin} failed with a TypeError, cross-origin from ${page}: a browser reports a CORS rejection ` +
      `exactly as an unreachable server, and the server may have received and acted on the request. ` +
      (seen.tracerPropagation
        ? `The platform adds b3 and traceparent headers to every request, which force a preflight; unless the ` +
          `server allows them (Access-Control-Allow-Headers), turn them off with ${seen.turnOffTracing}.`
        : `Check that the server answers with Access-Control-Allow-Origin for this page, and allows the request's headers.`)
  }
}

/**
 * Which hints were given, by kind and origin, so that each is given once. Bounded: past
 * `maxKeys` it forgets them all, and a hint may be given again.
 *
 * @since 0.2.0
 * @category browser
 */
export class GivenOnce {
  private readonly keys = new Set<string>()
  constructor(private readonly maxKeys = 1_000) {}

  /** True the first time a key is seen. */
  first(key: string): boolean {
    if (this.keys.has(key)) return false
    if (this.keys.size >= this.maxKeys) this.keys.clear()
    this.keys.add(key)
    return true
  }
}
