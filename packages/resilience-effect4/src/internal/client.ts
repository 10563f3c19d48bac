// @generated from templates/src/internal/client.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as HttpFailure from "../HttpFailure.js"
import * as ResilienceStore from "../ResilienceStore.js"
import type * as ResilientHttpClient from "../ResilientHttpClient.js"
import type * as RetryPolicy from "../RetryPolicy.js"
import * as attemptLoop from "./attemptLoop.js"
import { type Attempt, connectionError, decodeError } from "./classify.js"
import type { InvalidRetryPolicy } from "./invalidOption.js"
import * as policyInput from "./policyInput.js"
import * as resilienceStore from "./resilienceStore.js"
import { readTextAtMost } from "./responseBody.js"
import * as urlCredentials from "./urlCredentials.js"
import { exchange, failWithReason, withPlatformTypes, withResolvedPolicy } from "./withResilience.js"

// A body read's failure: a body that stalled past `bodyIdleTimeout` is a timeout of this
// attempt (its cause the library's own failure), one that breaks off a transport failure.
const readFailure = (attempt: Attempt, error: Error): HttpFailure.ConnectionError =>
  HttpFailure.isConnectionError(error.cause)
    ? connectionError(attempt, error.cause.reason, error.cause.cause)
    : connectionError(attempt, "Transport", error)

// Within the attempt: a body that breaks off or stalls is a connection failure (retried); one
// over the size limit, invalid JSON or a schema mismatch is a decode error (never retried).
const readJson = (
  response: HttpClientResponse.HttpClientResponse,
  attempt: Attempt,
  maxBodyBytes: number
): Effect.Effect<unknown, HttpFailure.HttpFailure> =>
  Effect.flatMap(
    Effect.mapError(readTextAtMost(response, maxBodyBytes), (error) =>
      HttpFailure.isBodyTooLarge(error) ? decodeError(attempt, response.status, error) : readFailure(attempt, error)
    ),
    (text) =>
      Effect.try({
        try: (): unknown => JSON.parse(text),
        catch: (cause) => decodeError(attempt, response.status, cause)
      })
  )

/** The service's key; the public class is the same service (the key is its identity). @internal */
const serviceTag = Context.Service<
  ResilientHttpClient.ResilientHttpClient,
  ResilientHttpClient.ResilientHttpClient.Service
>("effect-http-resilience-effect4/ResilientHttpClient")

const makeService = (
  underlying: HttpClient.HttpClient,
  policy: policyInput.ResolvedPolicy
): ResilientHttpClient.ResilientHttpClient.Service => {
  const client = withResolvedPolicy(underlying, policy)

  const getJson = <S extends Schema.Constraint>(
    url: string | URL,
    schema: S,
    options?: HttpClientRequest.Options.NoUrl
  ): Effect.Effect<S["Type"], HttpFailure.HttpFailure, S["DecodingServices"]> => {
    const decode = Schema.decodeUnknownEffect(schema)
    const asGiven = HttpClientRequest.get(url, options)
    const prepared = urlCredentials.prepare(asGiven, policy.urlCredentials)
    if (prepared._tag === "Refused")
      return Effect.flatMap(urlCredentials.refusal(asGiven, prepared.problem), Effect.fail)
    const request = prepared._tag === "Rewritten" ? prepared.request : asGiven
    const send = underlying.execute(request)
    const idle = policy.bodyIdleTimeout
    const bounded = (response: HttpClientResponse.HttpClientResponse, attempt: Attempt) =>
      idle === undefined ? response : idle.bound(response, attempt, false)
    // One limit for the whole attempt, body included.
    return attemptLoop.run(
      policy,
      request,
      (attempt) =>
        Effect.flatMap(exchange(attempt, send, policy, true), (response) =>
          Effect.flatMap(readJson(bounded(response, attempt), attempt, policy.maxBodyBytes), (json) =>
            Effect.mapError(decode(json), (error) => decodeError(attempt, response.status, error))
          )
        ),
      failWithReason,
      // A losing copy's body was read whole: nothing is held.
      () => Effect.void
    )
  }

  return {
    client,
    execute: client.execute,
    get: client.get.bind(client),
    getJson
  }
}

// A store provided where the client is built (its layer's dependency, given with `Layer.provide`)
// is the store of its calls, as any service's dependency is; built without one, each call reads its own.
const withBuiltStore = (resolved: policyInput.ResolvedPolicy): Effect.Effect<policyInput.ResolvedPolicy> =>
  Effect.map(Effect.service(ResilienceStore.ResilienceStore), (store) =>
    store === resilienceStore.processDefault ? resolved : { ...resolved, store }
  )

type Infallible = RetryPolicy.RetryPolicy | Schedule.Schedule<unknown, HttpFailure.HttpFailure>

/** @internal */
export function make(
  policy: Infallible
): Effect.Effect<ResilientHttpClient.ResilientHttpClient.Service, never, HttpClient.HttpClient>
export function make(
  policy?: policyInput.PolicyInput
): Effect.Effect<ResilientHttpClient.ResilientHttpClient.Service, InvalidRetryPolicy, HttpClient.HttpClient>
export function make(
  policy?: policyInput.PolicyInput
): Effect.Effect<ResilientHttpClient.ResilientHttpClient.Service, InvalidRetryPolicy, HttpClient.HttpClient> {
  return Effect.flatMap(Effect.fromResult(policyInput.resolve(policy)), (resolved) =>
    Effect.flatMap(withBuiltStore(resolved), (built) =>
      Effect.map(Effect.service(HttpClient.HttpClient), (underlying) => makeService(underlying, built))
    )
  )
}

/** @internal */
export function layer(
  policy: Infallible
): Layer.Layer<ResilientHttpClient.ResilientHttpClient, never, HttpClient.HttpClient>
export function layer(
  policy?: policyInput.PolicyInput
): Layer.Layer<ResilientHttpClient.ResilientHttpClient, InvalidRetryPolicy, HttpClient.HttpClient>
export function layer(
  policy?: policyInput.PolicyInput
): Layer.Layer<ResilientHttpClient.ResilientHttpClient, InvalidRetryPolicy, HttpClient.HttpClient> {
  return Layer.effect(serviceTag, make(policy))
}

/** @internal */
export function layerHttpClient(policy: Infallible): Layer.Layer<HttpClient.HttpClient, never, HttpClient.HttpClient>
export function layerHttpClient(
  policy?: policyInput.PolicyInput
): Layer.Layer<HttpClient.HttpClient, InvalidRetryPolicy, HttpClient.HttpClient>
export function layerHttpClient(
  policy?: policyInput.PolicyInput
): Layer.Layer<HttpClient.HttpClient, InvalidRetryPolicy, HttpClient.HttpClient> {
  return Layer.effect(
    HttpClient.HttpClient,
    Effect.flatMap(Effect.fromResult(policyInput.resolve(policy)), (resolved) =>
      Effect.flatMap(withBuiltStore(resolved), (built) =>
        Effect.map(Effect.service(HttpClient.HttpClient), (underlying) => withPlatformTypes(underlying, built))
      )
    )
  )
}
