/**
 * CORS, for pages that call the chaos server from another origin (a browser test's page on another port): the
 * headers every answer carries, and the preflights answered before any endpoint runs.
 *
 * @internal
 */
import type * as Http from "node:http"

/**
 * The CORS option resolved: off is `undefined` where it is used.
 *
 * @internal
 */
export interface ResolvedCors {
  readonly exposeHeaders: boolean
  /** "any" echoes what a preflight asks for; a list (lower case) is all a preflight allows. */
  readonly allowHeaders: "any" | ReadonlyArray<string>
}

/**
 * Every response header the server sends that a page cannot read unless it is exposed (the CORS-safelisted
 * ones, such as `Content-Type`, are readable anyway), plus the rate-limit headers a page's client reads, so
 * that an endpoint sending them needs no change here. `Connection` is left out: a page can never read it.
 */
const exposedHeaders: ReadonlyArray<string> = [
  "Retry-After",
  "X-Attempt",
  "X-Simulated",
  "X-Chaos-Overload",
  "X-Chaos-Delay",
  "Idempotent-Replayed",
  "Location",
  "Allow",
  "Content-Encoding",
  "Content-Length",
  "RateLimit",
  "RateLimit-Policy",
  "RateLimit-Limit",
  "RateLimit-Remaining",
  "RateLimit-Reset",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset"
]

const allowedMethods: ReadonlyArray<string> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

/**
 * How long a browser may reuse a preflight's answer. Short enough that a test changing `allowHeaders` between
 * server starts is not fooled for long; browsers cap it anyway (Chromium at 2 hours).
 */
const preflightMaxAgeSeconds = 600

const defaultCors: ResolvedCors = { exposeHeaders: true, allowHeaders: "any" }

// RFC 9110's token: what a header name may be made of.
const headerNamePattern = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

/**
 * Why `name` is not a header name, or undefined when it is.
 *
 * @internal
 */
export const headerNameProblem = (name: string): string | undefined =>
  headerNamePattern.test(name)
    ? undefined
    : `a header name must be a non-empty token (letters, digits and !#$%&'*+-.^_\`|~), got ${JSON.stringify(name)}`

const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
      ? "an array"
      : typeof value === "string"
        ? JSON.stringify(value)
        : typeof value

const resolveAllowHeaders = (value: unknown): "any" | ReadonlyArray<string> => {
  if (value === undefined || value === "any") return "any"
  if (!Array.isArray(value)) {
    throw new RangeError(`cors.allowHeaders must be "any" or an array of header names, got ${describe(value)}`)
  }
  return value.map((name: unknown) => {
    if (typeof name !== "string") {
      throw new RangeError(`cors.allowHeaders must hold header names, got ${describe(name)}`)
    }
    const problem = headerNameProblem(name)
    if (problem !== undefined) throw new RangeError(`cors.allowHeaders: ${problem}`)
    return name.toLowerCase()
  })
}

const corsKeys = new Set(["exposeHeaders", "allowHeaders"])

/**
 * The `cors` option with its defaults, undefined when CORS is off; throws a `RangeError` naming what is
 * invalid, like the other options. Takes `unknown` because JavaScript callers and the layers' users can pass
 * anything.
 *
 * @internal
 */
export const resolveCors = (option: unknown): ResolvedCors | undefined => {
  if (option === undefined || option === false) return undefined
  if (option === true) return defaultCors
  if (typeof option !== "object" || option === null || Array.isArray(option)) {
    throw new RangeError(
      `cors must be a boolean or an object { exposeHeaders?, allowHeaders? }, got ${describe(option)}`
    )
  }
  // A misspelt key would silently leave the default in place, which is what a test author debugs longest.
  for (const key of Object.keys(option)) {
    if (!corsKeys.has(key)) {
      throw new RangeError(`cors has no option ${JSON.stringify(key)} (it has exposeHeaders and allowHeaders)`)
    }
  }
  const exposeHeaders = "exposeHeaders" in option ? option.exposeHeaders : undefined
  if (exposeHeaders !== undefined && typeof exposeHeaders !== "boolean") {
    throw new RangeError(`cors.exposeHeaders must be a boolean, got ${describe(exposeHeaders)}`)
  }
  return {
    exposeHeaders: exposeHeaders ?? defaultCors.exposeHeaders,
    allowHeaders: resolveAllowHeaders("allowHeaders" in option ? option.allowHeaders : undefined)
  }
}

/** A header node may have joined from repeats (as a string) or kept apart (as an array), as one string. */
const headerText = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  value === undefined ? undefined : typeof value === "string" ? value : value.join(", ")

/**
 * Whether the request is a CORS preflight: `OPTIONS` with `Access-Control-Request-Method`. Another `OPTIONS`
 * is an ordinary request.
 *
 * @internal
 */
export const isPreflight = (request: Http.IncomingMessage): boolean =>
  request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined

// What a browser's Origin is made of (a serialized origin, or "null"): visible ASCII.
const originPattern = /^[\x21-\x7e]+$/

/**
 * The origin a page may read the answer from: the request's own, echoed, or `*` when it names none. An Origin no
 * browser would send is not echoed, so that it never reaches a head the server writes by hand.
 */
const allowOrigin = (request: Http.IncomingMessage): string => {
  const origin = headerText(request.headers.origin)
  return origin !== undefined && originPattern.test(origin) ? origin : "*"
}

/**
 * The headers every answer to `request` carries.
 *
 * @internal
 */
export const responseHeaders = (cors: ResolvedCors, request: Http.IncomingMessage): Record<string, string> => ({
  "access-control-allow-origin": allowOrigin(request),
  vary: "Origin",
  ...(cors.exposeHeaders ? { "access-control-expose-headers": exposedHeaders.join(", ") } : {})
})

/**
 * The headers of a preflight's `204`. With `allowHeaders: "any"` the requested headers are echoed; with a list,
 * the list alone is answered, whatever was asked for, and the browser refuses a request that needs others.
 *
 * @internal
 */
export const preflightHeaders = (cors: ResolvedCors, request: Http.IncomingMessage): Record<string, string> => {
  const requested = headerText(request.headers["access-control-request-headers"])
  const allowed = cors.allowHeaders === "any" ? requested : cors.allowHeaders.join(", ")
  return {
    "access-control-allow-origin": allowOrigin(request),
    "access-control-allow-methods": allowedMethods.join(", "),
    ...(allowed === undefined || allowed === "" ? {} : { "access-control-allow-headers": allowed }),
    "access-control-max-age": String(preflightMaxAgeSeconds),
    vary: "Origin, Access-Control-Request-Headers"
  }
}
