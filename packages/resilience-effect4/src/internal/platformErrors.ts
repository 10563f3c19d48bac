/**
 * The platform's errors, Effect 4's way: how the library reads them (`readClientError`) and the
 * ones it hands back, writing their request redacted. Effect 3's twin,
 * `packages/resilience/src/internal/platformErrors.ts`, exports the same names. Hand-written,
 * not generated.
 *
 * @internal
 */
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import { redactUrl, withUrlRedacted } from "./redaction.js"

/**
 * What a platform error says for a retry: no response (a transport failure, or a request that
 * could not be sent), a response its client rejected by status, or something else.
 *
 * @internal
 */
export type ClientErrorReading =
  | { readonly _tag: "Transport"; readonly cause: unknown }
  | { readonly _tag: "InvalidRequest" }
  | { readonly _tag: "StatusCode"; readonly response: HttpClientResponse.HttpClientResponse }
  | { readonly _tag: "Other" }

/** @internal */
export const readClientError = (error: HttpClientError.HttpClientError): ClientErrorReading => {
  const reason = error.reason
  switch (reason._tag) {
    case "TransportError":
      return { _tag: "Transport", cause: reason.cause }
    case "EncodeError":
    case "InvalidUrlError":
      return { _tag: "InvalidRequest" }
    case "StatusCodeError":
      return { _tag: "StatusCode", response: reason.response }
    default:
      return { _tag: "Other" }
  }
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
 */
const clientError = (reason: HttpClientError.HttpClientErrorReason): HttpClientError.HttpClientError =>
  new RedactedHttpClientError({ reason })

/**
 * A platform error as one that writes its request redacted: the same class, tag and reason.
 *
 * @internal
 */
export const redactedClientError = (error: HttpClientError.HttpClientError): HttpClientError.HttpClientError =>
  error instanceof RedactedHttpClientError ? error : new RedactedHttpClientError({ reason: error.reason })

/**
 * The platform's error of a failure with a cause of the platform's own, with why the call
 * stopped as its description.
 *
 * @internal
 */
export const describedAs = (
  error: HttpClientError.HttpClientError,
  description: string
): HttpClientError.HttpClientError => {
  const original = error.reason
  const fields = { request: original.request, cause: original.cause, description }
  switch (original._tag) {
    case "TransportError":
      return clientError(new HttpClientError.TransportError(fields))
    case "EncodeError":
      return clientError(new HttpClientError.EncodeError(fields))
    case "InvalidUrlError":
      return clientError(new HttpClientError.InvalidUrlError(fields))
    default:
      return redactedClientError(error)
  }
}

/**
 * The platform's error for a failure of the library's: an invalid URL (credentials not sent) or
 * a transport failure.
 *
 * @internal
 */
export const ofFailure = (
  request: HttpClientRequest.HttpClientRequest,
  kind: "InvalidUrl" | "Transport",
  cause: unknown,
  description: string
): HttpClientError.HttpClientError => {
  const fields = { request, cause, description }
  return clientError(
    kind === "InvalidUrl" ? new HttpClientError.InvalidUrlError(fields) : new HttpClientError.TransportError(fields)
  )
}

/**
 * The platform's error of a body read that failed for a reason of the library's (a stalled
 * body): a `DecodeError`, as a body that breaks off is.
 *
 * @internal
 */
export const bodyReadError = (
  response: HttpClientResponse.HttpClientResponse,
  cause: unknown,
  description: string
): HttpClientError.HttpClientError =>
  clientError(new HttpClientError.DecodeError({ request: response.request, response, cause, description }))
