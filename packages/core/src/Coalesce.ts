/**
 * Request coalescing without Effect: the `coalesce` option checked, which requests may share one
 * in flight, and the default key that says which are the same. A GET or HEAD without a body is
 * shared; its key is the method, the URL with its parameters, and every header, so that requests
 * with different credentials (`Authorization`, `Cookie`, an API key of any name) never share.
 *
 * The anchors: undici's `interceptors.deduplicate` (GET only by default, every header in its key
 * unless excluded, 5 MiB buffered, past that each waiting request sent on its own) and Go's
 * `singleflight`.
 *
 * @example
 * ```ts
 * import { Coalesce } from "@effect-http-resilience/core"
 *
 * const key = Coalesce.defaultKey("GET", "https://api.example/items?page=2", { accept: "application/json" })
 * ```
 *
 * @since 0.3.0
 */
import * as Settings from "./Settings.js"
import type { MetricSpec } from "./Telemetry.js"

/**
 * The stage's metric, here rather than in `Telemetry.metrics` so that a program without the
 * stage carries none of it: calls answered by another call's request in flight. Attributes: origin.
 *
 * @since 0.3.0
 * @category metrics
 */
export const coalescedMetric: MetricSpec = {
  name: "http.client.resilience.coalesced",
  description: "Calls answered by an identical call's request in flight, sending none of their own ({call})."
}

/**
 * The `coalesce` option checked, its default applied.
 *
 * @since 0.3.0
 * @category models
 */
export interface Resolved {
  /** The largest body shared, in bytes: past it every caller sends its own request. */
  readonly maxBodyBytes: number
}

// The default: 5 MiB buffered at most, as undici's `deduplicate`.
const defaults: Resolved = { maxBodyBytes: 5 * 1024 * 1024 }

// 1 GiB: a buffer held for every caller at once; larger is a mistake, not a setting.
const maxBufferBytes = 1024 * 1024 * 1024

/**
 * Checks the `coalesce` option's record: `maxBodyBytes`, a whole number from 0 to 1 GiB; `key`,
 * a function or left out.
 *
 * @since 0.3.0
 * @category checks
 */
export const check = (options: unknown): Settings.Checked<Resolved> =>
  Settings.andThen(Settings.optionsRecord("coalesce", options ?? {}, ["maxBodyBytes", "key"]), (given) => {
    if (given.key !== undefined && typeof given.key !== "function") {
      return Settings.invalid("coalesce.key", "must be a function from a request to a string (or undefined)", given.key)
    }
    const maxBodyBytes = given.maxBodyBytes ?? defaults.maxBodyBytes
    return typeof maxBodyBytes === "number" &&
      Number.isSafeInteger(maxBodyBytes) &&
      maxBodyBytes >= 0 &&
      maxBodyBytes <= maxBufferBytes
      ? Settings.valid({ maxBodyBytes })
      : Settings.invalid("coalesce.maxBodyBytes", "must be a whole number of bytes from 0 to 1 GiB", maxBodyBytes)
  })

/**
 * Whether a request of `method` may share a response: GET and HEAD, safe methods whose
 * response is the same for every identical request.
 *
 * @since 0.3.0
 * @category predicates
 */
export const isCoalescible = (method: string): boolean => method === "GET" || method === "HEAD"

/**
 * The default key: the method, the URL, the query parameters added to it (`params`, encoded),
 * and every header, names lower case, sorted. Two requests that differ in any header,
 * credentials above all, get different keys.
 *
 * @since 0.3.0
 * @category keys
 */
export const defaultKey = (
  method: string,
  url: string,
  headers: Readonly<Record<string, string>>,
  params = ""
): string => {
  const lines = Object.entries(headers).map(([name, value]) => `${name.toLowerCase()}: ${value}`)
  lines.sort()
  // JSON keeps a newline or a colon inside a value from forging another request's key.
  return JSON.stringify([method, url, params, lines])
}
