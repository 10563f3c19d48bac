/**
 * The platform's errors, Effect 3's way: how the library reads them (`readClientError`) and the
 * ones it hands back, writing their request redacted. Effect 4's twin,
 * `packages/resilience-effect4/src/internal/platformErrors.ts`, exports the same names.
 * Hand-written, not generated.
 *
 * @internal
 */
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { NodeInspectSymbol } from "effect/Inspectable"
import { redactHeaders, redactUrl, requestJson } from "./redaction.js"

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
  if (error._tag === "RequestError") {
    return error.reason === "Transport" ? { _tag: "Transport", cause: error.cause } : { _tag: "InvalidRequest" }
  }
  return error.reason === "StatusCode" ? { _tag: "StatusCode", response: error.response } : { _tag: "Other" }
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
 */
const requestError = (
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

/**
 * The platform's error of a failure with a cause of the platform's own, with why the call
 * stopped as its description.
 *
 * @internal
 */
export const describedAs = (
  original: HttpClientError.HttpClientError,
  description: string
): HttpClientError.HttpClientError =>
  original._tag === "ResponseError"
    ? redactedClientError(original)
    : requestError({ request: original.request, reason: original.reason, cause: original.cause, description })

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
): HttpClientError.HttpClientError => requestError({ request, reason: kind, cause, description })

/**
 * The platform's error of a body read that failed for a reason of the library's (a stalled
 * body): a `ResponseError` `"Decode"`, as a body that breaks off is.
 *
 * @internal
 */
export const bodyReadError = (
  response: HttpClientResponse.HttpClientResponse,
  cause: unknown,
  description: string
): HttpClientError.ResponseError =>
  new RedactedResponseError({ request: response.request, response, reason: "Decode", cause, description })
