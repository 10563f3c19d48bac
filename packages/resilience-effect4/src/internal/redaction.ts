// @generated from templates/src/internal/redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The rules and defaults are the shared core's (Redaction); the names are read from the fiber
// that writes the text, as Effect 4 reads them for its own errors: a message is built when it is
// read, often outside any fiber, and then the defaults apply.
import * as Redaction from "@effect-http-resilience/core/Redaction"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { dual } from "effect/Function"
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
): Effect.Effect<A, E, R> =>
  !request.url.includes("?") && request.urlParams.params.length === 0
    ? send
    : Effect.withFiber((fiber) =>
        Effect.provideService(
          send,
          UrlParams.CurrentRedactedNames,
          forPlatform(effectiveNames(fiber.getRef(UrlParams.CurrentRedactedNames)))
        )
      )

// The platform's errors hold the request and name its URL in their message: written with the
// library's names.
const causeJson = (cause: unknown, url: string): unknown => {
  if (!HttpClientError.isHttpClientError(cause)) return cause
  const asWritten = UrlParams.redactUrl(url)
  return { _tag: cause._tag, message: cause.message.replaceAll(asWritten, redactUrl(url)) }
}

/**
 * A failure as JSON: its request's URL, and the one its cause names, redacted by the library's
 * names. Effect 4's platform writes a request's URL redacted by its own names.
 *
 * @internal
 */
export const failureJson = (failure: {
  readonly _tag: string
  readonly message: string
  readonly request: HttpClientRequest.HttpClientRequest
  readonly cause?: unknown
}): Record<string, unknown> => {
  const { request } = failure
  const json: Record<string, unknown> = {
    ...failure,
    message: failure.message,
    // The platform's headers write themselves redacted.
    request: { _id: "HttpClientRequest", method: request.method, url: redactUrl(request.url), headers: request.headers }
  }
  if (failure.cause !== undefined) json.cause = causeJson(failure.cause, request.url)
  return json
}
