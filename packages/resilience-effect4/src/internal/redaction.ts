// @generated from templates/src/internal/redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// The rules and defaults are the shared core's (Redaction); the names are read from the fiber
// that writes the text, as Effect 4 reads them for its own errors: a message is built when it is
// read, often outside any fiber, and then the defaults apply.
import * as Redaction from "@effect-http-resilience/core/Redaction"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { dual } from "effect/Function"
import * as UrlParams from "effect/http/UrlParams"

/** @internal */
export type Names = ReadonlyArray<string | RegExp>

// Effect 4's own: what configures the platform's redaction configures the library's.
/** @internal */
export const currentRedactedUrlParams = UrlParams.CurrentRedactedNames

const urlParamNamesNow = (): Names => {
  const fiber = Fiber.getCurrent()
  return fiber === undefined ? Redaction.defaultUrlParamNames : fiber.getRef(UrlParams.CurrentRedactedNames)
}

/** @internal */
export const withRedactedUrlParams = dual<
  (names: Names) => <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>,
  <A, E, R>(self: Effect.Effect<A, E, R>, names: Names) => Effect.Effect<A, E, R>
>(2, (self, names) => Effect.provideService(self, UrlParams.CurrentRedactedNames, names))

/** @internal */
export const redactUrl = (url: string): string => Redaction.redactUrl(url, urlParamNamesNow())
