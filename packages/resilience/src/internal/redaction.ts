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
  // No user info, no query, no parameters: nothing to redact, whatever the names (most calls).
  !request.url.includes("@") && !request.url.includes("?") && request.urlParams.length === 0
    ? send
    : Effect.withFiberRuntime((fiber) => {
        const names = fiber.getFiberRef(currentRedactedUrlParams)
        return hasSomethingToRedact(request, names)
          ? Effect.tracerWith((tracer) => Effect.withTracer(send, redactingTracer(tracer, names)))
          : send
      })

const headerNamesNow = (): Names =>
  Option.match(Fiber.getCurrentFiber(), {
    onNone: () => Redaction.defaultHeaderNames,
    onSome: (fiber) => fiber.getFiberRef(Headers.currentRedactedNames)
  })

// The platform's errors hold the request and name its URL in their message: written with the
// library's names.
const causeJson = (cause: unknown, url: string): unknown => {
  if (!HttpClientError.isHttpClientError(cause)) return cause
  const asWritten = url
  return { _tag: cause._tag, message: cause.message.replaceAll(asWritten, redactUrl(url)) }
}

/**
 * A failure as JSON: its request's URL, and the one its cause names, redacted by the library's
 * names and every header redacted. Effect 3's platform writes a request's URL and headers as they are.
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
  const { request } = failure
  const headerNames = headerNamesNow()
  const json: Record<string, unknown> = {
    ...failure,
    message: failure.message,
    request: {
      method: request.method,
      url: redactUrl(request.url),
      headers: Redaction.redactHeaders(request.headers, headerNames)
    }
  }
  if (failure.headers !== undefined) json.headers = Redaction.redactHeaders(failure.headers, headerNames)
  if (failure.cause !== undefined) json.cause = causeJson(failure.cause, request.url)
  return json
}
