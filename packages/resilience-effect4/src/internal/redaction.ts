// @generated from templates/src/internal/redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The rules and defaults are the shared core's (Redaction); the names are read from the fiber
// that writes the text, as Effect 4 reads them for its own errors: a message is built when it is
// read, often outside any fiber, and then the defaults apply.
import * as Redaction from "@effect-http-resilience/core/Redaction"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { dual } from "effect/Function"
import * as Headers from "effect/http/Headers"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as UrlParams from "effect/http/UrlParams"

/** @internal */
export type Names = ReadonlyArray<string | RegExp>

// Effect 4's own: what configures the platform's redaction configures the library's. Its
// default (OpenTelemetry's names) stands for "not configured", read as the core's wider default.
/** @internal */
export const currentRedactedUrlParams = UrlParams.CurrentRedactedNames

const platformDefault: Names = Context.get(Context.empty(), UrlParams.CurrentRedactedNames)

/** The names the library redacts, given the platform's reference's value. @internal */
const effectiveNames = (names: Names): Names => (names === platformDefault ? Redaction.defaultUrlParamNames : names)

const urlParamNamesNow = (): Names => {
  const fiber = Fiber.getCurrent()
  return fiber === undefined
    ? Redaction.defaultUrlParamNames
    : effectiveNames(fiber.getRef(UrlParams.CurrentRedactedNames))
}

/** @internal */
export const withRedactedUrlParams = dual<
  (names: Names) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  <A, E, R>(self: Effect.Effect<A, E, R>, names: Names) => Effect.Effect<A, E, R>
>(2, (self, names) => Effect.provideService(self, UrlParams.CurrentRedactedNames, names))

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

// The platform matches a string whole, ignoring case: as a regular expression it matches with
// `_` and `-` alike too, as the library does.
const asPlatformNames = (names: Names): Names =>
  names.map((name) =>
    typeof name === "string"
      ? new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[-_]/g, "[-_]")}$`, "i")
      : name
  )

const platformNames = new WeakMap<Names, Names>()

/** The names as the platform reads them, made once per list. @internal */
const forPlatform = (names: Names): Names => {
  const known = platformNames.get(names)
  if (known !== undefined) return known
  const made = asPlatformNames(names)
  platformNames.set(names, made)
  return made
}

/**
 * Sends a request with the transport's span (the platform's `http.client`, which redacts
 * `url.full` and `url.query` by `UrlParams.CurrentRedactedNames`) redacting what the library
 * does.
 *
 * @internal
 */
export const inTransport = <A, E, R>(
  request: HttpClientRequest.HttpClientRequest,
  send: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const query = request.url.includes("?") || request.urlParams.params.length > 0
  const credentials = hasCredentialHeader(request)
  return !query && !credentials
    ? send
    : Effect.withFiber((fiber) => {
        const headerNames = credentials ? withCredentialHeaders(fiber.getRef(Headers.CurrentRedactedNames)) : undefined
        const sent =
          headerNames === undefined ? send : Effect.provideService(send, Headers.CurrentRedactedNames, headerNames)
        return query
          ? Effect.provideService(
              sent,
              UrlParams.CurrentRedactedNames,
              forPlatform(effectiveNames(fiber.getRef(UrlParams.CurrentRedactedNames)))
            )
          : sent
      })
}

// The platform's names for headers, read from the fiber that writes the text, as the platform
// reads them (its defaults outside any fiber).
const headerNamesNow = (): Names => {
  const fiber = Fiber.getCurrent()
  return fiber === undefined ? Redaction.defaultHeaderNames : fiber.getRef(Headers.CurrentRedactedNames)
}

// Headers as the library writes them: the platform's names redacted, and `authorization`,
// `proxy-authorization` and `cookie` whatever the names.
const redactHeaders = (headers: Headers.Headers): Record<string, string> =>
  Redaction.redactHeaders(headers, headerNamesNow())

const requestJson = (request: HttpClientRequest.HttpClientRequest): Record<string, unknown> => ({
  _id: "HttpClientRequest",
  method: request.method,
  url: redactUrl(request.url),
  headers: redactHeaders(request.headers)
})

// A text the platform wrote a request's URL into (redacted by its own names), with
// the URL redacted by the library's names.
const withUrlRedacted = (text: string, url: string): string => {
  const asWritten = UrlParams.redactUrl(url)
  const redacted = redactUrl(url)
  return asWritten === redacted ? text : text.replaceAll(asWritten, redacted)
}

// The platform's errors write a request's URL redacted by the platform's names (OpenTelemetry's
// by default) in their message and JSON. The ones the library hands back, or keeps as a
// failure's cause, are of this class: the platform's, with the same tag and reason, writing the
// URL redacted by the library's names.
class RedactedHttpClientError extends HttpClientError.HttpClientError {
  override get message(): string {
    return withUrlRedacted(this.reason.message, this.reason.request.url)
  }
  override toJSON(): unknown {
    const { reason } = this
    const json: Record<string, unknown> = {
      _tag: reason._tag,
      request: { _id: "HttpClientRequest", method: reason.request.method, url: redactUrl(reason.request.url) }
    }
    if (reason.description !== undefined) json.description = reason.description
    if ("response" in reason) json.response = { _id: "HttpClientResponse", status: reason.response.status }
    return {
      _tag: this._tag,
      reason: json,
      message: this.message,
      ...(this.cause === undefined ? {} : { cause: this.cause })
    }
  }
}

/**
 * The platform's error of this reason, writing its request redacted.
 *
 * @internal
 */
export const clientError = (reason: HttpClientError.HttpClientErrorReason): HttpClientError.HttpClientError =>
  new RedactedHttpClientError({ reason })

/**
 * A platform error as one that writes its request redacted: the same class, tag and reason.
 *
 * @internal
 */
export const redactedClientError = (error: HttpClientError.HttpClientError): HttpClientError.HttpClientError =>
  error instanceof RedactedHttpClientError ? error : new RedactedHttpClientError({ reason: error.reason })

// A failure's cause, if the platform's error: its tag and message, the URL redacted.
const causeJson = (cause: unknown, url: string): unknown =>
  HttpClientError.isHttpClientError(cause) ? { _tag: cause._tag, message: withUrlRedacted(cause.message, url) } : cause

/**
 * A failure as JSON: its request's URL, and the one its cause names, redacted by the library's
 * names, and its headers by the platform's with the credential headers always. The platform
 * writes a request's URL redacted by its own names.
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
