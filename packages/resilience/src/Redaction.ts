// @generated from templates/src/Redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * What the library never writes out: a URL's user info and the values of query parameters that
 * carry secrets, wherever it writes a URL (docs/observability.md).
 *
 * @example
 * ```ts
 * import type { Redaction } from "effect-http-resilience"
 *
 * const names: Redaction.Names = ["Signature", /token/i]
 * ```
 *
 * @since 0.2.0
 */
import type * as FiberRef from "effect/FiberRef"
import type * as Effect from "effect/Effect"
import * as CoreRedaction from "@effect-http-resilience/core/Redaction"
import * as internal from "./internal/redaction.js"

/**
 * Names to redact: a string matches a whole name (any case, `_` and `-` alike), a `RegExp` any part.
 *
 * @since 0.2.0
 * @category models
 */
export type Names = ReadonlyArray<string | RegExp>

/**
 * OpenTelemetry's query parameters to redact in `url.full`, Effect 4's own default.
 *
 * @since 0.2.0
 * @category constants
 */
export const openTelemetryUrlParamNames: Names = CoreRedaction.openTelemetryUrlParamNames

/**
 * The query parameters APIs put secrets in: Sentry's, OAuth's and common API keys' names.
 *
 * @since 0.2.0
 * @category constants
 */
export const secretUrlParamNames: Names = CoreRedaction.secretUrlParamNames

/**
 * The query parameters redacted by default: {@link openTelemetryUrlParamNames} and {@link secretUrlParamNames}.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultUrlParamNames: Names = CoreRedaction.defaultUrlParamNames

/**
 * The query parameters whose values are written as `REDACTED`.
 *
 * @since 0.2.0
 * @category references
 */
export const currentRedactedUrlParams: FiberRef.FiberRef<Names> = internal.currentRedactedUrlParams

/**
 * Runs an effect with these query parameter names redacted, in place of the current ones.
 *
 * @since 0.2.0
 * @category references
 */
export const withRedactedUrlParams: {
  (names: Names): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, names: Names): Effect.Effect<A, E, R>
} = internal.withRedactedUrlParams

/**
 * A URL as the library writes it, redacted by the current {@link currentRedactedUrlParams}.
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactUrl: (url: string) => string = internal.redactUrl
