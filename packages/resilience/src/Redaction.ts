// @generated from templates/src/Redaction.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
/**
 * What the library never writes out: a URL's user info (as `REDACTED:REDACTED`) and the values
 * of signing query parameters (as `REDACTED`), in failure messages (and so `Cause.pretty`), the
 * `url.full` of span events and debug log lines, and metric labels (origins only). The rules and
 * default names are Effect 4's (`UrlParams.redactUrl`), so a URL is redacted at least as Effect
 * 4 redacts it in its own errors.
 *
 * The query parameter names are this module's {@link currentRedactedUrlParams}, as Effect 3's
 * platform redacts none; header names are the platform's `Headers.currentRedactedNames`, used
 * where a failure shows headers (`toJSON`).
 *
 * @since 0.2.0
 */
import type * as Effect from "effect/Effect"
import type * as FiberRef from "effect/FiberRef"
import * as internal from "./internal/redaction.js"

/**
 * Names to redact: a string matches a whole name, ignoring case; a regular expression matches
 * anywhere in it.
 *
 * @example
 * ```ts
 * import type { Redaction } from "effect-http-resilience"
 *
 * const names: Redaction.Names = ["Signature", /token/i]
 * ```
 *
 * @since 0.2.0
 * @category models
 */
export type Names = ReadonlyArray<string | RegExp>

/**
 * The query parameters whose values are written as `REDACTED`: names (matched whole, ignoring
 * case) or regular expressions (matched anywhere). A list replaces the defaults, Effect 4's:
 * `X-Amz-Signature`, `X-Amz-Credential`, `X-Amz-Security-Token`, `AWSAccessKeyId`, `Signature`,
 * `sig`, `X-Goog-Signature`. User info is always redacted.
 *
 * @example
 * ```ts
 * import { Effect, FiberRef } from "effect"
 * import { Redaction } from "effect-http-resilience"
 *
 * const names = FiberRef.get(Redaction.currentRedactedUrlParams)
 * ```
 *
 * @since 0.2.0
 * @category references
 */
export const currentRedactedUrlParams: FiberRef.FiberRef<Names> = internal.currentRedactedUrlParams

/**
 * Runs an effect with these query parameter names redacted, in place of the current ones:
 * failures it makes, read inside it, and the decisions it reports.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Redaction } from "effect-http-resilience"
 *
 * declare const program: Effect.Effect<void>
 *
 * const redactingKeys = program.pipe(Redaction.withRedactedUrlParams(["Signature", /api_?key/i]))
 * ```
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
 * @example
 * ```ts
 * import { Redaction } from "effect-http-resilience"
 *
 * Redaction.redactUrl("https://user:pw@host/file?Signature=abc&size=1")
 * // "https://REDACTED:REDACTED@host/file?Signature=REDACTED&size=1"
 * ```
 *
 * @since 0.2.0
 * @category redacting
 */
export const redactUrl: (url: string) => string = internal.redactUrl
