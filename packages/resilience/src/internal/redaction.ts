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
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Option from "effect/Option"

/** @internal */
export type Names = ReadonlyArray<string | RegExp>

// Effect 3's platform redacts no query parameter: the library keeps the names, with Effect 4's
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

const headerNamesNow = (): Names =>
  Option.match(Fiber.getCurrentFiber(), {
    onNone: () => Redaction.defaultHeaderNames,
    onSome: (fiber) => fiber.getFiberRef(Headers.currentRedactedNames)
  })

// The platform's errors hold the request and name its URL as it is: written redacted.
const causeJson = (cause: unknown, url: string): unknown => {
  if (!(cause instanceof Error) || !("request" in cause)) return cause
  const tag: unknown = "_tag" in cause ? cause._tag : undefined
  return { _tag: typeof tag === "string" ? tag : cause.name, message: cause.message.replaceAll(url, redactUrl(url)) }
}

/**
 * A failure as JSON, its request's URL and every header redacted. Effect 3's platform writes a
 * request's URL and headers as they are.
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
  const headerNames = headerNamesNow()
  const { request } = failure
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
