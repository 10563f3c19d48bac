// @generated from templates/src/Redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * What the library never writes out: a URL's user info (as `REDACTED:REDACTED`) and the values
 * of query parameters that carry secrets (as `REDACTED`), in failure messages (and so
 * `Cause.pretty`) and `toJSON`, the `url.full` of span events and debug log lines, the
 * transport's own span (`url.full`, `url.query`), and metric labels (origins only). The rules
 * are Effect 4's (`UrlParams.redactUrl`); the default names are OpenTelemetry's (Effect 4's)
 * and the names APIs put secrets in ({@link defaultUrlParamNames}).
 *
 * The query parameter names are this module's {@link currentRedactedUrlParams}, as Effect 3's
 * platform redacts none; header names are the platform's `Headers.currentRedactedNames`, used
 * where a failure shows headers (`toJSON`).
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
import type * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import * as CoreRedaction from "@effect-http-resilience/core/Redaction"
import * as internal from "./internal/redaction.js"

/**
 * Names to redact: a string matches a whole name, ignoring case, with `_` and `-` alike; a
 * regular expression matches anywhere in it.
 *
 * @since 0.2.0
 * @category models
 */
export type Names = ReadonlyArray<string | RegExp>

/**
 * OpenTelemetry's query parameters to redact in `url.full` (presigned URLs' signatures and
 * credentials): `X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`,
 * `AWSAccessKeyId`, `Signature`, `sig`, `X-Goog-Signature`. Effect 4's platform's own default.
 *
 * @since 0.2.0
 * @category constants
 */
export const openTelemetryUrlParamNames: Names = CoreRedaction.openTelemetryUrlParamNames

/**
 * The query parameters APIs put secrets in: Sentry's data scrubber defaults that name secrets
 * (`password`, `passwd`, `secret`, `api_key`, `apikey`, `auth`, `credentials`, `token`,
 * `session`, ...), OAuth 2.0's and OpenID Connect's (`access_token`, `refresh_token`,
 * `id_token`, `client_secret`) and common API keys (`key`, `api_token`, `private_token`, ...).
 *
 * @since 0.2.0
 * @category constants
 */
export const secretUrlParamNames: Names = CoreRedaction.secretUrlParamNames

/**
 * The query parameters redacted by default: {@link openTelemetryUrlParamNames} and
 * {@link secretUrlParamNames}. Extend them with `withRedactedUrlParams([...defaultUrlParamNames,
 * "my_key"])`.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultUrlParamNames: Names = CoreRedaction.defaultUrlParamNames

/**
 * The query parameters whose values are written as `REDACTED`: names (matched whole, ignoring
 * case, with `_` and `-` alike) or regular expressions (matched anywhere). A list replaces
 * {@link defaultUrlParamNames}; an empty list redacts none. User info is always redacted.
 *
 * @since 0.2.0
 * @category references
 */
export const currentRedactedUrlParams: FiberRef.FiberRef<Names> = internal.currentRedactedUrlParams

/**
 * Runs an effect with these query parameter names redacted, in place of the current ones:
 * failures it makes, read inside it, the decisions it reports and the spans of the requests it
 * sends. `withRedactedUrlParams([])` turns the redaction of query parameters off (user info is
 * still redacted); `[...Redaction.defaultUrlParamNames, "my_key"]` extends the defaults.
 *
 * @since 0.2.0
 * @category references
 */
export const withRedactedUrlParams: {
  (names: Names): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, names: Names): Effect.Effect<A, E, R>
} = internal.withRedactedUrlParams

/**
 * A URL as the library writes it: user info as `REDACTED:REDACTED`, the values of the current
 * fiber's {@link currentRedactedUrlParams} as `REDACTED` (outside a fiber, the defaults).
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactUrl: (url: string) => string = internal.redactUrl
