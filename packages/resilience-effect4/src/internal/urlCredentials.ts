// @generated from templates/src/internal/urlCredentials.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
// Credentials in a request's URL: the platform's transports drop them (undici), refuse them
// (fetch) or send them (node:http). The library sends them as curl does, as an Authorization:
// Basic header to the URL without them, or refuses them, saying why; the rules are the core's.
import * as UrlCredentials from "@effect-http-resilience/core/UrlCredentials"
import * as Headers from "effect/http/Headers"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Effect from "effect/Effect"
import * as HttpFailure from "../HttpFailure.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as decisions from "./decisions.js"

/**
 * What a request is sent as: itself (`"Unchanged"`: no user info in its URL), another request
 * (`"Rewritten"`: the URL without its user info, with `Authorization: Basic` unless it had an
 * `Authorization` header), or nothing (`"Refused"`, saying why).
 *
 * @internal
 */
export type Prepared =
  | { readonly _tag: "Unchanged" }
  | { readonly _tag: "Rewritten"; readonly request: HttpClientRequest.HttpClientRequest }
  | { readonly _tag: "Refused"; readonly problem: UrlCredentials.Problem }

const unchanged: Prepared = { _tag: "Unchanged" }

/** @internal */
export const prepare = (
  request: HttpClientRequest.HttpClientRequest,
  mode: RetryPolicy.UrlCredentialsMode
): Prepared => {
  // User info needs an "@": most URLs have none, and are done without parsing.
  if (!request.url.includes("@")) return unchanged
  const found = UrlCredentials.fromUrl(request.url)
  if (found === undefined) return unchanged
  if (mode === "refuse") return { _tag: "Refused", problem: "refused" }
  if (found._tag === "Invalid") return { _tag: "Refused", problem: found.problem }
  const withoutUserinfo = HttpClientRequest.setUrl(request, found.url)
  return {
    _tag: "Rewritten",
    request:
      found._tag === "Empty" || Headers.has(request.headers, "authorization")
        ? withoutUserinfo
        : HttpClientRequest.setHeader(withoutUserinfo, "authorization", found.authorization)
  }
}

/**
 * The request with credentials in its URL as a header, when they can be sent; as it is when
 * not (the call then refuses it). For a line whose transform cannot send the prepared request
 * (`line.beforeTransform`).
 *
 * @internal
 */
export const asHeader = (
  request: HttpClientRequest.HttpClientRequest,
  mode: RetryPolicy.UrlCredentialsMode
): HttpClientRequest.HttpClientRequest => {
  const prepared = prepare(request, mode)
  return prepared._tag === "Rewritten" ? prepared.request : request
}

/**
 * The failure of a call refused for its URL's credentials: nothing was sent, and it is not
 * retried. The decision is reported as any call's end is.
 *
 * @internal
 */
export const refusal = (
  request: HttpClientRequest.HttpClientRequest,
  problem: UrlCredentials.Problem
): Effect.Effect<HttpFailure.ConnectionError> => {
  const failure = new HttpFailure.ConnectionError({
    request,
    attempt: 1,
    reason: "InvalidRequest",
    cause: new HttpFailure.UrlCredentialsRefused({ problem }),
    giveUpReason: "not-retryable"
  })
  return Effect.as(decisions.report({ _tag: "GiveUp", failure, reason: "not-retryable" }), failure)
}
