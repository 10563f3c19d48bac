// @generated from templates/src/internal/redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The rules and defaults are the shared core's (Redaction); the names are read from the fiber
// that writes the text, as Effect 4 reads them for its own errors: a message is built when it is
// read, often outside any fiber, and then the defaults apply.
import * as Redaction from "@effect-http-resilience/core/Redaction"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import { dual } from "effect/Function"
import { globalValue } from "effect/GlobalValue"
import { NodeInspectSymbol } from "effect/Inspectable"
import * as Headers from "@effect/platform/Headers"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

/** @internal */
export type Names = ReadonlyArray<string | RegExp>

// Effect 3's platform redacts no query parameter: the library keeps the names, with the core's
// defaults. The global key shares them between two copies of this module.
/** @internal */
export const currentRedactedUrlParams: FiberRef.FiberRef<Names> = globalValue(
  Symbol.for("effect-http-resilience/currentRedactedUrlParams"),
  () => FiberRef.unsafeMake<Names>(Redaction.defaultUrlParamNames)
)

const urlParamNamesNow = (): Names =>
  Option.match(Fiber.getCurrentFiber(), {
    onNone: () => Redaction.defaultUrlParamNames,
    onSome: (fiber) => fiber.getFiberRef(currentRedactedUrlParams)
  })

/** @internal */
export const withRedactedUrlParams = dual<
  (names: Names) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  <A, E, R>(self: Effect.Effect<A, E, R>, names: Names) => Effect.Effect<A, E, R>
>(2, (self, names) => Effect.locally(self, currentRedactedUrlParams, names))

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

// The transport's span (the platform's `http.client`) writes `url.full` and `url.query` as they
// are: a request whose URL has something to redact is sent under a tracer whose spans write
// them redacted, by the names of the fiber that sends it.
const redactedAttribute = (key: string, value: unknown, names: Names): unknown =>
  typeof value !== "string"
    ? value
    : key === "url.full"
      ? Redaction.redactUrl(value, names)
      : key === "url.query"
        ? Redaction.redactUrl(`?${value}`, names).slice(1)
        : value

const redactingSpan = (span: Tracer.Span, names: Names): Tracer.Span => ({
  _tag: "Span",
  name: span.name,
  spanId: span.spanId,
  traceId: span.traceId,
  parent: span.parent,
  context: span.context,
  get status() {
    return span.status
  },
  get attributes() {
    return span.attributes
  },
  get links() {
    return span.links
  },
  sampled: span.sampled,
  kind: span.kind,
  end: (endTime, exit) => span.end(endTime, exit),
  attribute: (key, value) => span.attribute(key, redactedAttribute(key, value, names)),
  event: (name, startTime, attributes) => span.event(name, startTime, attributes),
  addLinks: (links) => span.addLinks(links)
})

const redactingTracer = (tracer: Tracer.Tracer, names: Names): Tracer.Tracer =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind, options) =>
      redactingSpan(tracer.span(name, parent, context, links, startTime, kind, options), names),
    context: (f, fiber) => tracer.context(f, fiber)
  })

const hasSomethingToRedact = (request: HttpClientRequest.HttpClientRequest, names: Names): boolean =>
  request.url.includes("@") ||
  Redaction.redactsQuery(request.url, names) ||
  request.urlParams.some(([key]) => Redaction.isRedactedName(key, names))

/**
 * Sends a request with the transport's span written redacted.
 *
 * @internal
 */
export const inTransport = <A, E, R>(
  request: HttpClientRequest.HttpClientRequest,
  send: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  // No user info, no query, no parameters, no credential header: nothing to redact, whatever
  // the names (most calls).
  !request.url.includes("@") &&
  !request.url.includes("?") &&
  request.urlParams.length === 0 &&
  !hasCredentialHeader(request)
    ? send
    : Effect.withFiberRuntime((fiber) => {
        const names = fiber.getFiberRef(currentRedactedUrlParams)
        const headerNames = hasCredentialHeader(request)
          ? withCredentialHeaders(fiber.getFiberRef(Headers.currentRedactedNames))
          : undefined
        const sent = headerNames === undefined ? send : Effect.locally(send, Headers.currentRedactedNames, headerNames)
        return hasSomethingToRedact(request, names)
          ? Effect.tracerWith((tracer) => Effect.withTracer(sent, redactingTracer(tracer, names)))
          : sent
      })

// The platform's names for headers, read from the fiber that writes the text, as the platform
// reads them (its defaults outside any fiber).
const headerNamesNow = (): Names =>
  Option.match(Fiber.getCurrentFiber(), {
    onNone: () => Redaction.defaultHeaderNames,
    onSome: (fiber) => fiber.getFiberRef(Headers.currentRedactedNames)
  })

// Headers as the library writes them: the platform's names redacted, and `authorization`,
// `proxy-authorization` and `cookie` whatever the names.
const redactHeaders = (headers: Headers.Headers): Record<string, string> =>
  Redaction.redactHeaders(headers, headerNamesNow())

const requestJson = (request: HttpClientRequest.HttpClientRequest): Record<string, unknown> => ({
  method: request.method,
  url: redactUrl(request.url),
  headers: redactHeaders(request.headers)
})

// A text the platform wrote a request's URL into (as it is), with
// the URL redacted by the library's names.
const withUrlRedacted = (text: string, url: string): string => {
  const asWritten = url
  const redacted = redactUrl(url)
  return asWritten === redacted ? text : text.replaceAll(asWritten, redacted)
}

// The platform's errors write their request as it is: its URL in their message, its URL and
// headers in their JSON (and so in node's inspect, outside a fiber). The ones the library hands
// back, or keeps as a failure's cause, are of these classes: the platform's, with the same tag
// and fields, writing them redacted.
const clientErrorJson = (error: HttpClientError.HttpClientError): Record<string, unknown> => {
  const json: Record<string, unknown> = {
    _tag: error._tag,
    reason: error.reason,
    message: error.message,
    request: requestJson(error.request)
  }
  if (error.description !== undefined) json.description = error.description
  if (error._tag === "ResponseError") {
    json.response = { status: error.response.status, headers: redactHeaders(error.response.headers) }
  }
  if (error.cause !== undefined) json.cause = error.cause
  return json
}

class RedactedRequestError extends HttpClientError.RequestError {
  override get methodAndUrl(): string {
    return `${this.request.method} ${redactUrl(this.request.url)}`
  }
  override toJSON(): unknown {
    return clientErrorJson(this)
  }
  override [NodeInspectSymbol](): unknown {
    return this.toJSON()
  }
}

class RedactedResponseError extends HttpClientError.ResponseError {
  override get methodAndUrl(): string {
    return `${this.request.method} ${redactUrl(this.request.url)}`
  }
  override toJSON(): unknown {
    return clientErrorJson(this)
  }
  override [NodeInspectSymbol](): unknown {
    return this.toJSON()
  }
}

/**
 * The platform's `RequestError`, writing its request redacted.
 *
 * @internal
 */
export const requestError = (
  fields: ConstructorParameters<typeof HttpClientError.RequestError>[0]
): HttpClientError.RequestError => new RedactedRequestError(fields)

/**
 * A platform error as one that writes its request redacted: the same class, tag and fields.
 *
 * @internal
 */
export const redactedClientError = (error: HttpClientError.HttpClientError): HttpClientError.HttpClientError => {
  if (error instanceof RedactedRequestError || error instanceof RedactedResponseError) return error
  const { request, cause, description } = error
  const optional = { ...(cause === undefined ? {} : { cause }), ...(description === undefined ? {} : { description }) }
  return error._tag === "RequestError"
    ? new RedactedRequestError({ request, reason: error.reason, ...optional })
    : new RedactedResponseError({ request, response: error.response, reason: error.reason, ...optional })
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
