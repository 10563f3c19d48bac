// @generated from templates/src/internal/redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The rules and defaults are the shared core's (Redaction); the names are read from the fiber
// that writes the text, as Effect 4 reads them for its own errors: a message is built when it is
// read, often outside any fiber, and then the defaults apply.
import * as Redaction from "@effect-http-resilience/core/Redaction"
import type * as Headers from "@effect/platform/Headers"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as line from "./line.js"

/** @internal */
export type Names = ReadonlyArray<string | RegExp>

// The names the library redacts in a URL: on Effect 3 the library's own (its platform redacts no
// query parameter), on Effect 4 the platform's, which configure both (`line.redactedUrlParamNames`).
/** @internal */
export const currentRedactedUrlParams: line.Local<Names> = line.redactedUrlParamNames

const urlParamNamesNow = (): Names =>
  line.libraryUrlParamNames(line.currentOr(currentRedactedUrlParams, Redaction.defaultUrlParamNames))

/** @internal */
export const withRedactedUrlParams = dual<
  (names: Names) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  <A, E, R>(self: Effect.Effect<A, E, R>, names: Names) => Effect.Effect<A, E, R>
>(2, (self, names) => line.withLocal(self, currentRedactedUrlParams, names))

/** @internal */
export const redactUrl = (url: string): string => Redaction.redactUrl(url, urlParamNamesNow())

// The transport's span writes a request's headers redacted by the platform's names: a request
// with a credential header is sent with those names, the credential headers added when missing.
const hasCredentialHeader = (request: HttpClientRequest.HttpClientRequest): boolean =>
  request.headers.authorization !== undefined ||
  request.headers["proxy-authorization"] !== undefined ||
  request.headers.cookie !== undefined

// As the platform matches a header name: a string whole, ignoring case; a RegExp anywhere.
const platformRedacts = (name: string, names: Names): boolean =>
  names.some((pattern) => (typeof pattern === "string" ? pattern.toLowerCase() === name : name.search(pattern) !== -1))

const withCredentials = new WeakMap<Names, Names | undefined>()

/** The platform's header names with the credential headers, if any is missing; made once per list. */
const withCredentialHeaders = (names: Names): Names | undefined => {
  if (withCredentials.has(names)) return withCredentials.get(names)
  const missing = Redaction.credentialHeaderNames.filter((name) => !platformRedacts(name, names))
  const extended = missing.length === 0 ? undefined : [...names, ...missing]
  withCredentials.set(names, extended)
  return extended
}

/**
 * Sends a request with the transport's span (the platform's `http.client`) writing its URL and
 * headers redacted as the library does. No query, no parameters, no credential header, and on
 * Effect 3 no user info (its span writes the URL as it is): nothing to redact, whatever the names
 * (most calls).
 *
 * @internal
 */
export const inTransport = <A, E, R>(
  request: HttpClientRequest.HttpClientRequest,
  send: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const query = request.url.includes("?") || line.urlParamCount(request) > 0
  const credentials = hasCredentialHeader(request)
  return !query && !credentials && !line.spanShowsUserinfo(request.url)
    ? send
    : line.withLocals(line.redactedHeaderNames, currentRedactedUrlParams, (headerNames, urlParamNames) => {
        const extended = credentials ? withCredentialHeaders(headerNames) : undefined
        const sent = extended === undefined ? send : line.withLocal(send, line.redactedHeaderNames, extended)
        return line.spanRedactingUrl(sent, request, query, urlParamNames)
      })
}

// The platform's names for headers, read from the fiber that writes the text, as the platform
// reads them (its defaults outside any fiber).
const headerNamesNow = (): Names => line.currentOr(line.redactedHeaderNames, Redaction.defaultHeaderNames)

// Headers as the library writes them: the platform's names redacted, and `authorization`,
// `proxy-authorization` and `cookie` whatever the names.
/** @internal @oneLine */
export const redactHeaders = (headers: Headers.Headers): Record<string, string> =>
  Redaction.redactHeaders(headers, headerNamesNow())

/** @internal @oneLine */
export const requestJson = (request: HttpClientRequest.HttpClientRequest): Record<string, unknown> => ({
  method: request.method,
  url: redactUrl(request.url),
  headers: redactHeaders(request.headers)
})

// A text the platform wrote a request's URL into (as it is), with
// the URL redacted by the library's names.
/** @internal @oneLine */
export const withUrlRedacted = (text: string, url: string): string => {
  const asWritten = line.asPlatformWritesUrl(url)
  const redacted = redactUrl(url)
  return asWritten === redacted ? text : text.replaceAll(asWritten, redacted)
}

// A failure's cause, if the platform's error: its tag and message, the URL redacted.
const causeJson = (cause: unknown, url: string): unknown =>
  HttpClientError.isHttpClientError(cause) ? { _tag: cause._tag, message: withUrlRedacted(cause.message, url) } : cause

/**
 * A failure as JSON: its request's URL, and the one its cause names, redacted by the library's
 * names, and its headers by the platform's with the credential headers always. The platform
 * writes a request's URL and headers as they are.
 *
 * @internal
 */
export const failureJson = (failure: {
  readonly _tag: string
  readonly message: string
  readonly request: HttpClientRequest.HttpClientRequest
  readonly headers?: Headers.Headers
  readonly cause?: unknown
}): Record<string, unknown> => {
  const json: Record<string, unknown> = { ...failure, message: failure.message, request: requestJson(failure.request) }
  if (failure.headers !== undefined) json.headers = redactHeaders(failure.headers)
  if (failure.cause !== undefined) json.cause = causeJson(failure.cause, failure.request.url)
  return json
}
